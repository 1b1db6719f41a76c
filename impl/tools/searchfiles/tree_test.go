package searchfiles

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/internal/tooltest"
)

// treeFixture holds what rg's own walk must treat as the walker does:
// hidden files and directories (.git among them), denied names as files
// and as directories, symlinks to a file and to a directory, a FIFO,
// names that are not UTF-8, hold a line feed or look like options, a file
// and a directory whose names sort differently with the "/" (a.txt, a/),
// depth, and the contents the shared reader decides on (binary, invalid
// UTF-8, CR, BOM, empty, many matches).
func treeFixture(t *testing.T) string {
	t.Helper()
	nodes := []tooltest.Node{
		tooltest.File("a.txt", "foo\n"), tooltest.File("a-b.txt", "foo a-b\n"), tooltest.Dir("a"), tooltest.File("a/x.txt", "foo in a\n"),
		tooltest.File(".hidden.txt", "foo hidden\n"), tooltest.Dir(".hdir"), tooltest.File(".hdir/f.txt", "foo in .hdir\n"),
		tooltest.Dir(".git"), tooltest.File(".git/config", "foo in .git\n"), tooltest.File(".gitignore", "a.txt\nsub/\n"),
		tooltest.File("key.pem", "foo pem\n"), tooltest.File("id_rsa", "foo\n"), tooltest.File("id_rsa.pub", "foo\n"),
		tooltest.File(".pem", "foo\n"), tooltest.Dir("dir.pem"), tooltest.File("dir.pem/inner.txt", "foo\n"),
		tooltest.Dir(".ssh"), tooltest.File(".ssh/x", "foo\n"), tooltest.Dir("sub"), tooltest.File("sub/.ssh", "foo\n"),
		tooltest.File("sub/x.key", "foo\n"), tooltest.File("sub/ok.txt", "ok foo\n"),
		tooltest.Link("link.txt", "a.txt"), tooltest.Link("linkdir", "a"), tooltest.Link("dangling", "nowhere"),
		tooltest.Fifo("fifo"),
		tooltest.File("bad\xffname.txt", "foo in a name that is not UTF-8\n"), tooltest.File("new\nline.txt", "foo\n"),
		tooltest.File("-", "foo dash\n"), tooltest.File("--glob=x", "foo option\n"), tooltest.File("sp ace.txt", "foo\n"),
		tooltest.Dir("d1"), tooltest.Dir("d1/d2"), tooltest.Dir("d1/d2/d3"), tooltest.File("d1/top.txt", "foo 2\n"),
		tooltest.File("d1/d2/mid.txt", "foo 3\n"), tooltest.File("d1/d2/d3/deep.txt", "foo 4\n"),
		tooltest.File("bin.dat", "foo\x00bar\n"), tooltest.File("badutf8.txt", "foo \xff\n"),
		tooltest.File("crlf.txt", "foo\r\nbar foo\r\nfoo\r"), tooltest.File("cr.txt", "foo\rfoo\n"),
		tooltest.File("bom.txt", "\ufefffoo\n"), tooltest.File("empty.txt", ""), tooltest.File("nofoo.txt", "bar\n"),
		tooltest.File("many.txt", strings.Repeat("foo foo\n", 30)),
	}
	return tooltest.Build(t, nodes...)
}

// treeSettled runs the call as Execute does up to search and reports
// whether the tree mode settled it.
func treeSettled(t *testing.T, root, args, tools string) bool {
	t.Helper()
	cfg := tooltest.Config(t, tools)
	req, err := prepare(json.RawMessage(args), cfg, Options{})
	if err != nil {
		t.Fatalf("%s: %v", args, err)
	}
	if req.ext == nil {
		return false
	}
	if req.ext.path, err = (*binChecker)(nil).checkBackend(context.Background(), req.backend, req.ext.pcre2, os.Getenv("PATH")); err != nil {
		t.Fatal(err)
	}
	canon, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := readDir(afero.NewOsFs(), canon, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	pats, err := deniedPatterns(cfg)
	if err != nil {
		t.Fatal(err)
	}
	out, err := search(context.Background(), afero.NewOsFs(), tooltest.Sandbox(t, root), req, newDenyMatcher(pats), canon, ents)
	if err != nil {
		t.Fatalf("%s: %v", args, err)
	}
	return out.tree
}

// TestTreeSameAsNative: the rg backend gives the native output byte for
// byte, the tree mode settling the calls it can settle and the others
// going to the walker (a limit reached, more bytes than
// max_file_size_bytes read, a rule rg cannot reproduce).
func TestTreeSameAsNative(t *testing.T) {
	if _, err := exec.LookPath("rg"); err != nil {
		t.Skip("rg not installed")
	}
	root := treeFixture(t)
	const big = `"max_file_size_bytes":100000,"max_files":100000`
	const small = `"max_file_size_bytes":20,"max_files":100000`
	const denies = `{"denied_patterns":["**/sub/*.txt"]}`
	const simpleDenies = `{"denied_patterns":["**/mid*","**/d3/**"],"include_default_denies":false}`
	for _, c := range []struct {
		args, config string
		tree         bool
		sandbox      string
	}{
		{`"query":"foo"`, big, true, ""},
		{`"query":"foo","include_hidden":true`, big, true, ""},
		{`"query":"foo","max_depth":1`, big, true, ""},
		{`"query":"foo","max_depth":2`, big, true, ""},
		{`"query":"foo","recursive":false`, big, true, ""},
		{`"query":"foo","context_lines":2`, big, true, ""},
		{`"query":"foo$","mode":"regex"`, big, true, ""},
		{`"query":"^foo","mode":"regex","include_hidden":true`, big, true, ""},
		{`"query":"o\\r","mode":"regex"`, big, true, ""},
		{`"query":"\\x{FEFF}foo","mode":"regex"`, big, true, ""},
		{`"query":"FOO","case":"insensitive"`, big, true, ""},
		{`"query":"nothing at all"`, big, true, ""},
		{`"query":"foo","max_matches_per_file":3`, big, true, ""},
		{`"query":"foo","max_results":2`, big, false, ""},
		{`"query":"foo","max_files":3`, `"max_file_size_bytes":100000,"max_files":3`, false, ""},
		{`"query":"foo"`, `"max_file_size_bytes":100000`, false, ""},
		{`"query":"foo"`, small, false, ""},
		{`"query":"foo","include_hidden":true`, small, false, ""},
		{`"query":"foo","respect_gitignore":true`, big, false, ""},
		{`"query":"foo","follow_symlinks":true`, big, false, ""},
		{`"query":"foo","include_globs":["**/*.txt"]`, big, false, ""},
		{`"query":"foo","exclude_globs":["d1/**"]`, big, false, ""},
		{`"query":"foo"`, big, false, denies},
		{`"query":"foo"`, big, true, simpleDenies},
	} {
		args := `{"path":".","respect_gitignore":false,` + c.args + `}`
		if strings.Contains(c.args, "respect_gitignore") {
			args = `{"path":".",` + c.args + `}`
		}
		tools := func(backend string) string {
			sb := ""
			if c.sandbox != "" {
				sb = `,"sandbox":` + c.sandbox
			}
			return `{"search_files":{"backend":"` + backend + `",` + c.config + `}` + sb + `}`
		}
		want, _, werr := run(t, root, tooltest.Call{Args: args, Config: tools(backendNative)})
		got, _, err := run(t, root, tooltest.Call{Args: args, Config: tools(backendRg)})
		if fmt.Sprint(werr) != fmt.Sprint(err) || got != want {
			t.Errorf("%s %s: %s", args, c.config, firstDiff(got, want, err, werr))
		}
		if settled := treeSettled(t, root, args, tools(backendRg)); settled != c.tree {
			t.Errorf("%s %s: settled by the tree mode %v, want %v", args, c.config, settled, c.tree)
		}
	}
	// Exactly max_results matches is a complete result (I-SF-04): the
	// tree mode settles it. (The run counts the matches rg finds in binary
	// files too, so the query matches in text files only.)
	args := `{"path":".","query":"foo [2-4]","mode":"regex","respect_gitignore":false,"max_results":3}`
	tools := `{"search_files":{"backend":"rg",` + big + `}}`
	if !treeSettled(t, root, args, tools) {
		t.Errorf("%s: not settled by the tree mode", args)
	}
	want := mustRun(t, root, tooltest.Call{Args: args, Config: `{"search_files":{` + big + `}}`})
	if got := mustRun(t, root, tooltest.Call{Args: args, Config: tools}); got != want {
		t.Errorf("%s: %s", args, firstDiff(got, want, nil, nil))
	}
}

// TestTreeRunFails: a tree run that fails (here a wrapper that makes rg
// report an error, or cuts its output) leaves the search to the walker.
func TestTreeRunFails(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg not installed")
	}
	root := treeFixture(t)
	args := `{"path":".","query":"foo","respect_gitignore":false}`
	want := mustRun(t, root, tooltest.Call{Args: args, Config: `{"search_files":{"max_files":100000}}`})
	for _, script := range []string{
		`case "$*" in *--stats*) echo "rg: ./x: Permission denied (os error 13)" >&2; exit 2;; esac; exec ` + rg + ` "$@"`,
		`case "$*" in *--stats*) ` + rg + ` "$@"; echo late >&2;; *) exec ` + rg + ` "$@";; esac`,
		`case "$*" in *--stats*) ` + rg + ` "$@" | head -c 300; exit 0;; *) exec ` + rg + ` "$@";; esac`,
	} {
		fakeBinary(t, "rg", script)
		tools := backendConfig(backendRg, `"max_files":100000`)
		if treeSettled(t, root, args, tools) {
			t.Errorf("%s: the tree mode settled a failed run", script)
		}
		if got := mustRun(t, root, tooltest.Call{Args: args, Config: tools}); got != want {
			t.Errorf("%s: %s", script, firstDiff(got, want, nil, nil))
		}
	}
}

// TestManyChildMessages: a direct run that reports more failures than the
// kept 4 KiB of messages (rg on many files that are not UTF-8, with a
// PCRE2 pattern) still exits by itself with status 2, and the stdin mode
// searches its chunk: its writes to the error output never fail.
func TestManyChildMessages(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg not installed")
	}
	root := treeFixture(t)
	args := `{"path":".","query":"foo"}`
	want := mustRun(t, root, tooltest.Call{Args: args})
	fakeBinary(t, "rg", `case "$*" in *--with-filename*) i=0; while [ $i -lt 300 ]; do echo "./x$i: PCRE2: error matching: UTF-8 error" >&2 || exit 9; i=$((i+1)); done; exit 2;; esac; exec `+rg+` "$@"`)
	if got := mustRun(t, root, tooltest.Call{Args: args, Config: backendConfig(backendRg, "")}); got != want {
		t.Errorf("%s", firstDiff(got, want, nil, nil))
	}
}

// TestTreeRunHandsHits: a tree run that ended cleanly but read more bytes
// than max_file_size_bytes does not settle the search, but its matches
// are all the walker needs: rg does not search the files again (only the
// stdin mode searches the lines of the files holding a CR, as always).
func TestTreeRunHandsHits(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg not installed")
	}
	root := treeFixture(t)
	log := filepath.Join(t.TempDir(), "runs")
	args := `{"path":".","query":"foo","respect_gitignore":false}`
	tools := func(backend string) string {
		return `{"search_files":{"backend":"` + backend + `","max_file_size_bytes":20,"max_files":100000}}`
	}
	want := mustRun(t, root, tooltest.Call{Args: args, Config: tools(backendNative)})
	fakeBinary(t, "rg", `case "$*" in *--stats*) echo tree >> `+log+`;; *--with-filename*) echo direct >> `+log+`;; esac; exec `+rg+` "$@"`)
	if got := mustRun(t, root, tooltest.Call{Args: args, Config: tools(backendRg)}); got != want {
		t.Errorf("%s", firstDiff(got, want, nil, nil))
	}
	if b, err := os.ReadFile(log); err != nil || string(b) != "tree\n" {
		t.Errorf("rg's runs: %q (%v), want one tree run", b, err)
	}
}

// TestTreeRunParse reads reports as rg prints them, with names that hold
// a line feed or look like the totals.
func TestTreeRunParse(t *testing.T) {
	q := &extQuery{backend: backendRg}
	req := &request{maxFiles: 100, maxResults: 100}
	in := "./a\x000:foo\n./b\nc\x001:x\n./b\nc\x005:yz\n./b\nc\x009:y\n./5 files searched\n7 bytes searched\x002::\n" +
		"\n5 matches\n5 matched lines\n3 files contained matches\n4 files searched\n0 bytes printed\n123 bytes searched\n0.01 seconds spent searching\n0.02 seconds\n"
	r := &treeResult{hits: map[string][]hit{}}
	trailer, err := r.parse(strings.NewReader(in), q, req, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]hit{"a": {{0, 3}}, "b\nc": {{1, 1}, {5, 2}, {9, 1}}, "5 files searched\n7 bytes searched": {{2, 1}}}
	if !reflect.DeepEqual(r.hits, want) || r.upper != 4 {
		t.Errorf("hits %v, upper %d", r.hits, r.upper)
	}
	if files, size, ok := parseStats(trailer); !ok || files != 4 || size != 123 {
		t.Errorf("stats %d %d %v from %q", files, size, ok, trailer)
	}
	for _, bad := range []string{"x\x000:a\n", "./x\x00y\n", "./x\x00-1:a\n", "./x\x000:a", "./\x000:a\n"} {
		if _, err := (&treeResult{hits: map[string][]hit{}}).parse(strings.NewReader(bad), q, req, 2); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, _, ok := parseStats([]byte("\n1 files searched\n1 files searched\n2 bytes searched\n")); ok {
		t.Errorf("a repeated total was accepted")
	}
	r = &treeResult{hits: map[string][]hit{}}
	in = "./x\x000:a\n./x\x002:a\n./y\x000:a\n./z\x000:a\n./w\x000:a\n"
	if _, err := r.parse(strings.NewReader(in), q, &request{maxFiles: 100, maxResults: 2}, 1); err != errTreeStopped || len(r.hits) != 3 {
		t.Errorf("max_results 2, one per file: %v after %v", err, r.hits)
	}
}

// TestRgGlobLikeNamePattern checks the denied-name globs handed to rg
// against the walker's matcher, by letting rg list a directory of names.
func TestRgGlobLikeNamePattern(t *testing.T) {
	if _, err := exec.LookPath("rg"); err != nil {
		t.Skip("rg not installed")
	}
	names := []string{"id_rsa", "id_rsa.pub", "xid_rsa", "k.pem", ".pem", "pem", "a.key.bak", ".ssh", ".sshx", "ab", "axb",
		"x", "xx", "xax", "a.c", "id_rsa\xff", "\xff.pem", "a b", "a+b", "#x", "!x", "x~"}
	var nodes []tooltest.Node
	for _, n := range names {
		nodes = append(nodes, tooltest.File(n, "x\n"))
	}
	root := tooltest.Build(t, nodes...)
	for _, g := range []string{"id_rsa*", "*.pem", "*.key", ".ssh", "a*b", "*", "x*x", "[ab]*", "a?c", `\*`, "{a,b}", "a b", "#x", "!x", "x~", "a+b"} {
		p := newNamePattern(g)
		rgGlob, ok := p.rgGlob()
		if !ok {
			continue
		}
		out, err := exec.Command("rg", "--no-config", "--files", "--no-ignore", "--hidden", "--null", "--glob=!"+rgGlob, root).Output()
		if err != nil && len(out) > 0 {
			t.Fatal(err)
		}
		var listed []string
		for _, f := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
			if f != "" {
				listed = append(listed, filepath.Base(f))
			}
		}
		for _, n := range names {
			if denied, kept := p.match(n), slices.Contains(listed, n); denied == kept {
				t.Errorf("glob %q, name %q: denied %v by the walker, listed %v by rg --glob=!%s", g, n, denied, kept, rgGlob)
			}
		}
	}
}

// TestBlockingPipe: the read end is blocking, reads what the child wrote,
// and sees the end when the child exits.
func TestBlockingPipe(t *testing.T) {
	r, w, err := blockingPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("sh", "-c", "printf abc")
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		if err := cmd.Wait(); err != nil {
			t.Error(err)
		}
	}()
	b, err := io.ReadAll(&gulpReader{r: r, exited: exited})
	if err != nil || string(b) != "abc" {
		t.Errorf("read %q, %v", b, err)
	}
	<-exited
}

// TestTreeGoSrcSameAsNative compares the rg backend with native on the Go
// source tree (binary files, files over a size limit, CRLF test data) with
// the benchmark's queries: with every cap raised (the tree mode settles
// them), with a size limit the tree run exceeds (the walker uses its
// matches) and with a max_results it exceeds (the direct mode).
func TestTreeGoSrcSameAsNative(t *testing.T) {
	if testing.Short() {
		t.Skip("searches the Go source tree")
	}
	if _, err := exec.LookPath("rg"); err != nil {
		t.Skip("rg not installed")
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	for _, c := range []struct {
		caps string
		tree bool
	}{
		{`"max_results":10000000,"max_matches_per_file":10000000,"max_file_size_bytes":1073741824,"max_files":10000000,"max_depth":1000`, true},
		{`"max_results":100000,"max_matches_per_file":5,"max_file_size_bytes":100000,"max_files":100000`, false},
		{`"max_results":300,"max_files":100000`, false},
	} {
		for _, q := range benchQueries {
			args := `{"path":".","respect_gitignore":false,` + q.args + `}`
			tools := func(backend string) string { return `{"search_files":{"backend":"` + backend + `",` + c.caps + `}}` }
			want := mustRun(t, root, tooltest.Call{Args: args, Budget: 1 << 30, Config: tools(backendNative)})
			got := mustRun(t, root, tooltest.Call{Args: args, Budget: 1 << 30, Config: tools(backendRg)})
			if got != want {
				t.Errorf("%s %s: %s", args, c.caps, firstDiff(got, want, nil, nil))
			}
			if settled := treeSettled(t, root, args, tools(backendRg)); settled != c.tree {
				t.Errorf("%s %s: settled by the tree mode %v, want %v", args, c.caps, settled, c.tree)
			}
		}
	}
}
