package searchfiles

import (
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/internal/tooltest"
)

const needle = "needle\n"

func TestTraversal(t *testing.T) {
	root := tooltest.Build(t,
		tooltest.Dir("a"), tooltest.File("a/1.txt", needle), tooltest.Dir("a/deep"), tooltest.Dir("a/deep/er"),
		tooltest.File("a/deep/er/f.txt", needle), tooltest.File("a/.x.txt", needle), tooltest.File("b.txt", needle),
		tooltest.Dir(".h"), tooltest.File(".h/x.txt", needle), tooltest.File("c.md", needle),
		tooltest.Link("ln", "a"), tooltest.Link("lf", "b.txt"), tooltest.Link("dangling", "nowhere"),
		tooltest.Link("a/up", ".."), tooltest.Fifo("p"),
	)
	tests := []struct {
		name, args string
		want, errs []string
	}{
		{"defaults", `{"path":"."}`, []string{"a/1.txt", "a/deep/er/f.txt", "b.txt", "c.md"}, nil},
		{"hidden", `{"path":".","include_hidden":true}`,
			[]string{".h/x.txt", "a/.x.txt", "a/1.txt", "a/deep/er/f.txt", "b.txt", "c.md"}, nil},
		{"follow_symlinks: files only (FR-SF-VAL-08)", `{"path":".","follow_symlinks":true}`,
			[]string{"a/1.txt", "a/deep/er/f.txt", "b.txt", "c.md", "lf"}, []string{"dangling: no such file or directory"}},
		{"max_depth 1", `{"path":".","max_depth":1}`, []string{"b.txt", "c.md"}, nil},
		{"max_depth 2", `{"path":".","max_depth":2}`, []string{"a/1.txt", "b.txt", "c.md"}, nil},
		{"not recursive", `{"path":".","recursive":false}`, []string{"b.txt", "c.md"}, nil},
		{"include glob on the relative path", `{"path":".","include_globs":["**/*.txt"]}`,
			[]string{"a/1.txt", "a/deep/er/f.txt", "b.txt"}, nil},
		{"a glob without ** stays at the top", `{"path":".","include_globs":["*.txt"]}`, []string{"b.txt"}, nil},
		{"several include globs", `{"path":".","include_globs":["*.md","a/*"]}`, []string{"a/1.txt", "c.md"}, nil},
		{"exclude glob prunes a directory", `{"path":".","exclude_globs":["a/deep"]}`, []string{"a/1.txt", "b.txt", "c.md"}, nil},
		{"exclude dir/**", `{"path":".","exclude_globs":["a/**"]}`, []string{"b.txt", "c.md"}, nil},
		{"exclude beats include", `{"path":".","include_globs":["**/*.txt"],"exclude_globs":["**/f.txt"]}`,
			[]string{"a/1.txt", "b.txt"}, nil},
		{"symlinked directory as path", `{"path":"ln"}`, []string{"1.txt", "deep/er/f.txt"}, nil},
		{"subdirectory as path", `{"path":"a/deep/"}`, []string{"er/f.txt"}, nil},
		{"hidden directory as path", `{"path":".h"}`, []string{"x.txt"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := mustRun(t, root, tooltest.Call{Args: `{"query":"needle",` + tc.args[1:]})
			if got := files(t, out); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			if got := errs(t, out); !reflect.DeepEqual(got, append([]string{}, tc.errs...)) {
				t.Errorf("errors %q, want %q", got, tc.errs)
			}
		})
	}
}

func TestSymlinkOutsideSandbox(t *testing.T) {
	ws := tooltest.Options{Workspace: true}.Build(t,
		tooltest.File("../secret.txt", needle), tooltest.Link("out", "../secret.txt"), tooltest.File("in.txt", needle),
		tooltest.Link("key", "k.pem"), tooltest.File("k.pem", needle),
	)
	out := mustRun(t, ws, tooltest.Call{Args: `{"path":".","query":"needle","follow_symlinks":true}`})
	if got, want := files(t, out), []string{"in.txt"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	want := []string{"key: symlink target matches a denied path pattern", "out: symlink target is outside the sandbox"}
	if got := errs(t, out); !reflect.DeepEqual(got, want) {
		t.Errorf("errors %q, want %q", got, want)
	}
}

// TestDenied covers I-SF-13: paths matching the sandbox's denied patterns
// are never read.
func TestDenied(t *testing.T) {
	root := tooltest.Build(t,
		tooltest.File("id_rsa", needle), tooltest.File("id_rsa.pub", needle), tooltest.File("server.pem", needle),
		tooltest.Dir(".ssh"), tooltest.File(".ssh/config", needle), tooltest.Dir("d"), tooltest.Dir("d/secret"),
		tooltest.File("d/secret/x", needle), tooltest.File("d/ok", needle), tooltest.Dir("d/x.key"), tooltest.File("d/x.key/y", needle),
	)
	out := mustRun(t, root, tooltest.Call{Args: `{"path":".","query":"needle","include_hidden":true}`})
	if got, want := files(t, out), []string{"d/ok", "d/secret/x"}; !reflect.DeepEqual(got, want) {
		t.Errorf("default denies: got %q, want %q", got, want)
	}
	out = mustRun(t, root, tooltest.Call{Args: `{"path":".","query":"needle"}`,
		Config: `{"sandbox":{"denied_patterns":["**/d/secret"],"include_default_denies":false}}`})
	if got, want := files(t, out), []string{"d/ok", "d/x.key/y", "id_rsa", "id_rsa.pub", "server.pem"}; !reflect.DeepEqual(got, want) {
		t.Errorf("configured denies: got %q, want %q", got, want)
	}
}

func TestGitignore(t *testing.T) {
	root := tooltest.Build(t,
		tooltest.Dir(".git"), tooltest.Dir(".git/info"),
		tooltest.File(".git/info/exclude", "excluded.txt\nkeep2.txt\n"),
		tooltest.File(".gitignore", "# comment\n*.log\n!keep.log\n/build/\ntmp/\ndocs/*.md\n\\#hash\ntrailing   \nspace\\ \n"+
			"out/**\n!out/keep.txt\ngone/\n!gone/keep.txt\na/**/z.txt\n!keep2.txt\n[0-9]x.txt\n"),
		tooltest.File("x.log", needle), tooltest.File("keep.log", needle), tooltest.File("plain.txt", needle),
		tooltest.Dir("build"), tooltest.File("build/f", needle),
		tooltest.Dir("sub"), tooltest.File("sub/.gitignore", "!x.log\nlocal.txt\n"), tooltest.File("sub/x.log", needle),
		tooltest.File("sub/local.txt", needle), tooltest.File("local.txt", needle),
		tooltest.Dir("sub/build"), tooltest.File("sub/build/f", needle), tooltest.Dir("sub/tmp"), tooltest.File("sub/tmp/f", needle),
		tooltest.File("sub/excluded.txt", needle),
		tooltest.Dir("tmp"), tooltest.File("tmp/f", needle), tooltest.Dir("t2"), tooltest.File("t2/tmp", needle),
		tooltest.Dir("docs"), tooltest.File("docs/a.md", needle), tooltest.Dir("docs/sub"), tooltest.File("docs/sub/b.md", needle),
		tooltest.File("#hash", needle), tooltest.File("trailing", needle), tooltest.File("space ", needle), tooltest.File("space", needle),
		tooltest.Dir("out"), tooltest.File("out/a.txt", needle), tooltest.File("out/keep.txt", needle),
		tooltest.Dir("gone"), tooltest.File("gone/keep.txt", needle),
		tooltest.Dir("a"), tooltest.File("a/z.txt", needle), tooltest.Dir("a/b"), tooltest.File("a/b/z.txt", needle),
		tooltest.File("excluded.txt", needle), tooltest.File("keep2.txt", needle),
		tooltest.File("1x.txt", needle), tooltest.File("ax.txt", needle),
		tooltest.Dir("nested"), tooltest.Dir("nested/.git"), tooltest.File("nested/x.log", needle),
		tooltest.File("nested/.gitignore", "inner.txt\n"), tooltest.File("nested/inner.txt", needle),
		tooltest.Dir("crlf"), tooltest.File("crlf/.gitignore", "\ufeffc.txt\r\nd.txt  \r\n"), tooltest.File("crlf/c.txt", needle),
		tooltest.File("crlf/d.txt", needle), tooltest.File("crlf/e.txt", needle),
	)
	tests := []struct {
		name, args string
		want       []string
	}{
		{"respected (T-SF-09)", `{"path":"."}`, []string{
			"ax.txt", "crlf/e.txt", "docs/sub/b.md", "keep.log", "keep2.txt", "local.txt",
			"nested/x.log", "out/keep.txt", "plain.txt", "space", "sub/build/f", "sub/x.log", "t2/tmp",
		}},
		{"ancestors apply to a subdirectory", `{"path":"sub"}`, []string{"build/f", "x.log"}},
		{"a nested repository starts afresh", `{"path":"nested"}`, []string{"x.log"}},
		{"not respected", `{"path":".","max_files":100,"respect_gitignore":false}`, []string{
			"#hash", "1x.txt", "a/b/z.txt", "a/z.txt", "ax.txt", "build/f", "crlf/c.txt", "crlf/d.txt", "crlf/e.txt",
			"docs/a.md", "docs/sub/b.md", "excluded.txt", "gone/keep.txt", "keep.log", "keep2.txt", "local.txt",
			"nested/inner.txt", "nested/x.log", "out/a.txt", "out/keep.txt", "plain.txt", "space", "space ",
			"sub/build/f", "sub/excluded.txt", "sub/local.txt", "sub/tmp/f", "sub/x.log", "t2/tmp", "tmp/f", "trailing", "x.log",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := mustRun(t, root, tooltest.Call{Args: `{"query":"needle",` + tc.args[1:]})
			if got := files(t, out); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestGitignoreTopWithoutRepository checks that without any .git the
// ignore files from the sandbox root down apply (I-SF-10).
func TestGitignoreTopWithoutRepository(t *testing.T) {
	root := tooltest.Build(t,
		tooltest.File(".gitignore", "/d/skip.txt\n*.tmp\n"), tooltest.Dir("d"), tooltest.File("d/skip.txt", needle),
		tooltest.File("d/keep.txt", needle), tooltest.File("d/x.tmp", needle),
	)
	out := mustRun(t, root, tooltest.Call{Args: `{"path":"d","query":"needle"}`})
	if got, want := files(t, out), []string{"keep.txt"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestWildmatch(t *testing.T) {
	tests := []struct {
		p, s string
		want bool
	}{
		{"*.log", "a.log", true}, {"*.log", ".log", true}, {"*.log", "a.logx", false},
		{"a?c", "abc", true}, {"a?c", "ac", false}, {"a?c", "aéc", true},
		{"[a-c]x", "bx", true}, {"[a-c]x", "dx", false}, {"[!a-c]x", "dx", true}, {"[^a-c]x", "ax", false},
		{"[]]", "]", true}, {"[!]]", "a", true}, {"[a\\-z]", "-", true}, {"[a\\-z]", "b", false},
		{"[[:digit:]]x", "7x", true}, {"[[:alpha:][:digit:]]", "_", false}, {"[[:upper:]]", "Q", true},
		{"[[:bogus:]]", "a", false}, {"[abc", "a", false}, {"\\*", "*", true}, {"\\*", "a", false},
		{"a\\", "a", false}, {"**", "anything", true}, {"a**b", "axxb", true}, {"*a*b*", "xxaxxbxx", true},
		{"*", "", true}, {"", "", true}, {"", "a", false}, {"é*", "éa", true}, {"\\é", "é", true},
		{"\\#x", "#x", true}, {"[é-ë]", "ê", true},
	}
	for _, tc := range tests {
		if got := wildmatch(tc.p, tc.s); got != tc.want {
			t.Errorf("wildmatch(%q, %q) = %v, want %v", tc.p, tc.s, got, tc.want)
		}
	}
	segs := []struct {
		p, path string
		isDir   bool
		want    bool
	}{
		{"**/foo", "foo", false, true}, {"**/foo", "a/b/foo", false, true}, {"a/**/b", "a/b", false, true},
		{"a/**/b", "a/x/y/b", false, true}, {"a/**", "a", true, false}, {"a/**", "a/x", false, true},
		{"a/**", "a/x/y", false, true}, {"/a", "a", false, true}, {"/a", "b/a", false, false},
		{"a/b", "x/a/b", false, false}, {"b/", "x/b", false, false}, {"b/", "x/b", true, true},
		{"doc/*.md", "doc/x/y.md", false, false},
	}
	for _, tc := range segs {
		r, ok := parseRule(tc.p)
		if !ok {
			t.Fatalf("%q does not parse", tc.p)
		}
		comps := splitSlash(tc.path)
		if got := r.matches(comps, tc.isDir); got != tc.want {
			t.Errorf("rule %q on %q (dir %v) = %v, want %v", tc.p, tc.path, tc.isDir, got, tc.want)
		}
	}
	for line, want := range map[string]string{"a  ": "a", "a\\ ": "a\\ ", "a\\  ": "a\\ ", " a": " a", "a \\": "a \\"} {
		if got := trimTrailingSpaces(line); got != want {
			t.Errorf("trimTrailingSpaces(%q) = %q, want %q", line, got, want)
		}
	}
	for _, line := range []string{"", "#x", "!", "/", "!/"} {
		if _, ok := parseRule(line); ok {
			t.Errorf("%q gave a rule", line)
		}
	}
}

func splitSlash(p string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(p); i++ {
		if i == len(p) || p[i] == '/' {
			out = append(out, p[start:i])
			start = i + 1
		}
	}
	return out
}

// TestNonUTF8 covers NFR-SF-REL-02 and T-SF-08: names are converted
// lossily, ties are broken by the raw bytes; content must be UTF-8.
func TestNonUTF8(t *testing.T) {
	root := tooltest.Build(t,
		tooltest.File("a\xff", "needle 2\n"), tooltest.File("a\xfe", "needle 1\n"),
		tooltest.Dir("d\xff"), tooltest.File("d\xff/x", needle), tooltest.Dir("d\xfe"), tooltest.File("d\xfe/y", needle),
		tooltest.File("latin1", "needle caf\xe9\n"),
	)
	out := mustRun(t, root, tooltest.Call{Args: `{"path":".","query":"needle"}`})
	if !utf8.ValidString(out) {
		t.Fatal("output is not UTF-8")
	}
	var got []string
	for _, m := range decode(t, out).Matches {
		got = append(got, m.Path+" "+m.LineText)
	}
	want := []string{"a\ufffd needle 1", "a\ufffd needle 2", "d\ufffd/x needle", "d\ufffd/y needle"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	// Traversal visits d\xfe (holding y) before d\xff (holding x): the
	// exception I-SF-11 names to "traversal order is output order".
	out = mustRun(t, root, tooltest.Call{Args: `{"path":".","query":"needle","max_results":3}`})
	if got, want := files(t, out), []string{"a\ufffd", "d\ufffd/y"}; !reflect.DeepEqual(got, want) {
		t.Errorf("max_results 3: got %q, want %q", got, want)
	}
}

// TestFileErrors covers FR-SF-ERR-04: per-file failures are recorded in
// errors and the call succeeds.
func TestFileErrors(t *testing.T) {
	root := tooltest.Build(t,
		tooltest.File("a", needle), tooltest.File("b", needle), tooltest.Dir("d"), tooltest.File("d/x", needle),
		tooltest.Dir("e"), tooltest.File("e/y", needle), tooltest.File("f", needle), tooltest.File("g", needle),
		tooltest.Dir("s"), tooltest.File("s/.gitignore", "z\n"), tooltest.File("s/z", needle),
	)
	abs := func(p string) string { return filepath.Join(root, p) }
	faults := []fsys.Fault{
		{Op: fsys.OpOpen, Path: abs("b"), Err: syscall.EACCES},
		{Op: fsys.OpReaddir, Path: abs("d"), Err: syscall.EIO},
		{Op: fsys.OpOpen, Path: abs("e"), Err: syscall.EACCES},
		{Op: fsys.OpOpen, Path: abs("s/.gitignore"), Err: syscall.EIO},
		{Op: fsys.OpLstat, Path: abs("f"), Err: syscall.EIO},
	}
	out := mustRun(t, root, tooltest.Call{Args: `{"path":".","query":"needle"}`, Faults: faults})
	if got, want := files(t, out), []string{"a", "f", "g", "s/z"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	want := []string{"b: permission denied", "d: input/output error", "e: permission denied", "s/.gitignore: input/output error"}
	if got := errs(t, out); !reflect.DeepEqual(got, want) {
		t.Errorf("errors %q, want %q", got, want)
	}
	if o := decode(t, out); o.Stats.FilesScanned != 5 || o.Stats.FilesMatched != 4 {
		t.Errorf("stats %+v", o.Stats)
	}
	// Without type information from the listing, entries are lstat-ed, so
	// metadata failures are recorded too.
	out = mustRun(t, root, tooltest.Call{Args: `{"path":".","query":"needle"}`, Faults: faults,
		FS: func(b afero.Fs) afero.Fs { return noReadDir{b} }})
	want = []string{"b: permission denied", "d: input/output error", "e: permission denied", "f: input/output error", "s/.gitignore: input/output error"}
	if got := errs(t, out); !reflect.DeepEqual(got, want) {
		t.Errorf("lstat path: errors %q, want %q", got, want)
	}

	for _, f := range []fsys.Fault{{Op: fsys.OpReaddir, Path: root, Err: syscall.EIO}, {Op: fsys.OpOpen, Path: root, Err: syscall.EACCES}} {
		_, _, err := run(t, root, tooltest.Call{Args: `{"path":".","query":"x"}`, Faults: []fsys.Fault{f}})
		if err == nil {
			t.Errorf("%v: an unreadable root must fail the call", f)
		}
	}
}

// TestPermissions uses real modes seen through fsys.PermFs.
func TestPermissions(t *testing.T) {
	root := tooltest.Build(t,
		tooltest.File("closed.txt", needle), tooltest.File("open.txt", needle),
		tooltest.Dir("shut"), tooltest.File("shut/x", needle), tooltest.Dir("noexec"), tooltest.File("noexec/y", needle),
	)
	tooltest.OpenToOthers(t, root, 0o755)
	for name, m := range map[string]os.FileMode{"shut": 0o000, "noexec": 0o644, "closed.txt": 0o000} {
		if err := os.Chmod(filepath.Join(root, name), m); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(filepath.Join(root, name), 0o755) })
	}
	out := mustRun(t, root, tooltest.Call{Args: `{"path":".","query":"needle"}`, Perm: true})
	if got, want := files(t, out), []string{"open.txt"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	want := []string{"closed.txt: permission denied", "noexec/y: permission denied", "shut: permission denied"}
	if got := errs(t, out); !reflect.DeepEqual(got, want) {
		t.Errorf("errors %q, want %q", got, want)
	}
}
