package writefile

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/internal/tooltest"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

func TestMetadata(t *testing.T) {
	var tl tool.Tool = Tool{}
	if tl.Name() != "write_file" || tl.Description() != "Create a new file with the given content" {
		t.Errorf("name/description %q/%q", tl.Name(), tl.Description())
	}
	if !tl.SideEffecting() || tl.RequiresApproval() || tl.RiskLevel() != tool.Medium {
		t.Errorf("side effecting %v, requires approval %v, risk %v", tl.SideEffecting(), tl.RequiresApproval(), tl.RiskLevel())
	}
	want := `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{
		"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"],
		"additionalProperties":false}`
	var got, exp any
	if err := json.Unmarshal(tl.Schema(), &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &exp); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, exp) {
		t.Errorf("schema %s", tl.Schema())
	}
	if _, err := tool.NewRegistry(Tool{}); err != nil {
		t.Errorf("schema does not register: %v", err)
	}
	for tools, want := range map[string]time.Duration{
		`{}`: 30 * time.Second,
		`{"timeouts":{"file_operations_seconds":4}}`:   4 * time.Second,
		`{"timeouts":{"file_operations_seconds":0}}`:   30 * time.Second,
		`{"timeouts":{"file_operations_seconds":"x"}}`: 30 * time.Second,
	} {
		if got := (Tool{}).Timeout(tooltest.Config(t, tools)); got != want {
			t.Errorf("%s: timeout %v, want %v", tools, got, want)
		}
	}
}

func TestCreate(t *testing.T) {
	tests := []struct {
		name, path, content string
		want                []string // snapshot after the call
	}{
		{"plain", "new.txt", "hello\n", []string{"keep=k", "new.txt=hello\n", "sub/"}},
		{"empty content", "empty", "", []string{"empty=", "keep=k", "sub/"}},
		{"non-ASCII and control bytes", "u.txt", "Grüße 😀\r\n\x00\ttab\u2028",
			[]string{"keep=k", "sub/", "u.txt=Grüße 😀\r\n\x00\ttab\u2028"}},
		{"existing parent", "sub/x", "1", []string{"keep=k", "sub/", "sub/x=1"}},
		{"nested parents", "a/b/c/d.txt", "deep", []string{"a/", "a/b/", "a/b/c/", "a/b/c/d.txt=deep", "keep=k", "sub/"}},
		{"below an existing dir", "sub/n/m", "x", []string{"keep=k", "sub/", "sub/n/", "sub/n/m=x"}},
		{"dot segments", "./sub//y", "y", []string{"keep=k", "sub/", "sub/y=y"}},
		{"hidden name", ".env.example", "A=1", []string{".env.example=A=1", "keep=k", "sub/"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := tooltest.Build(t, tooltest.File("keep", "k"), tooltest.Dir("sub"))
			args, _ := json.Marshal(map[string]string{"path": tc.path, "content": tc.content})
			out, c, err := run(t, root, tooltest.Call{Args: string(args)})
			if err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf(`{"status":"created","path":%q,"bytes_written":%d}`, tc.path, len(tc.content))
			if out != want {
				t.Errorf("output %s, want %s", out, want)
			}
			if got := snapshot(t, root); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("tree %q\nwant %q", got, tc.want)
			}
			fi, err := os.Lstat(filepath.Join(root, tc.path))
			if err != nil {
				t.Fatal(err)
			}
			if m := fi.Mode(); m != 0o644&^umask() {
				t.Errorf("mode %v", m)
			}
			for d := filepath.Dir(filepath.Join(root, tc.path)); d != root; d = filepath.Dir(d) {
				if fi, err := os.Lstat(d); err != nil || fi.Mode() != os.ModeDir|0o755&^umask() {
					t.Errorf("directory %s: %v, %v", d, fi.Mode(), err)
				}
			}
			if _, ok := c.Session.LastRead(filepath.Join(root, filepath.Clean(tc.path))); ok {
				t.Errorf("write_file recorded a read (I-WR-04)")
			}
		})
	}
}

func TestOutputEscaping(t *testing.T) {
	root := tooltest.Build(t)
	name := "q\"b\\s<&>\u2028é\x7f.txt"
	args, _ := json.Marshal(map[string]string{"path": name, "content": "日本"})
	out, _, err := run(t, root, tooltest.Call{Args: string(args)})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"status":"created","path":"q\"b\\s<&>` + "\u2028é\x7f" + `.txt","bytes_written":6}`
	if out != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	// The output path is the requested one, not a normalized form.
	out, _, err = run(t, root, tooltest.Call{Args: `{"path":"./d//f","content":""}`})
	if err != nil || out != `{"status":"created","path":"./d//f","bytes_written":0}` {
		t.Errorf("%s, %v", out, err)
	}
}

func TestExisting(t *testing.T) {
	nodes := []tooltest.Node{
		tooltest.File("f", "old"), tooltest.Dir("d"), tooltest.File("d/inner", "i"), tooltest.Link("l", "f"),
		tooltest.Link("dangling", "nowhere"),
		tooltest.Link("ldir", "d"), tooltest.Link("loop", "loop"), tooltest.Fifo("pipe"), tooltest.File("empty", ""),
	}
	for _, p := range []string{"f", "d", "l", "dangling", "ldir", "loop", "pipe", "empty", "d/inner", "./f", "d/../f"} {
		t.Run(p, func(t *testing.T) {
			root := tooltest.Build(t, nodes...)
			before := snapshot(t, root)
			_, _, err := run(t, root, tooltest.Call{Args: `{"path":"` + p + `","content":"new"}`})
			if strings.Contains(p, "..") {
				tooltest.ErrorKind(t, err, toolerr.SandboxViolation)
			} else {
				tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "already exists: "+p)
			}
			if got := snapshot(t, root); !reflect.DeepEqual(got, before) {
				t.Errorf("tree changed:\n%q\n%q", before, got)
			}
		})
	}
}

func TestValidation(t *testing.T) {
	nodes := []tooltest.Node{
		tooltest.File("f", "x"), tooltest.Dir(".ssh"), tooltest.Link("out", "/tmp"), tooltest.Dir("d"),
	}
	tests := []struct {
		name, args string
		kind       toolerr.Kind
		words      []string
	}{
		{"not an object", `["x"]`, toolerr.BadArgs, []string{"object"}},
		{"missing path", `{"content":"x"}`, toolerr.BadArgs, []string{"path"}},
		{"missing content", `{"path":"x"}`, toolerr.BadArgs, []string{"content"}},
		{"path null", `{"path":null,"content":"x"}`, toolerr.BadArgs, []string{"path"}},
		{"content null", `{"path":"x","content":null}`, toolerr.BadArgs, []string{"content"}},
		{"content not a string", `{"path":"x","content":42}`, toolerr.BadArgs, []string{"content", "string"}},
		{"unknown key", `{"path":"x","content":"","mode":"0600"}`, toolerr.BadArgs, []string{"mode"}},
		{"case-sensitive keys", `{"Path":"x","content":""}`, toolerr.BadArgs, []string{"Path"}},
		{"empty path", `{"path":"","content":""}`, toolerr.BadArgs, []string{"file"}},
		{"trailing slash", `{"path":"newdir/","content":""}`, toolerr.BadArgs, []string{"file"}},
		{"args before sandbox", `{"path":"../x"}`, toolerr.BadArgs, []string{"content"}},
		{"dotdot", `{"path":"../x","content":""}`, toolerr.SandboxViolation, nil},
		{"inner dotdot", `{"path":"d/../x","content":""}`, toolerr.SandboxViolation, nil},
		{"absolute", `{"path":"/tmp/forge-conform-x","content":""}`, toolerr.SandboxViolation, nil},
		{"through a symlink out", `{"path":"out/forge-conform-x","content":""}`, toolerr.SandboxViolation, nil},
		{"denied directory", `{"path":".ssh/authorized_keys","content":""}`, toolerr.SandboxViolation, []string{".ssh"}},
		{"denied new directory", `{"path":"new/.ssh/x","content":""}`, toolerr.SandboxViolation, []string{".ssh"}},
		{"denied name", `{"path":"d/server.key","content":""}`, toolerr.SandboxViolation, []string{"key"}},
		{"parent is a file", `{"path":"f/x","content":""}`, toolerr.ExecutionFailed, []string{"not a directory"}},
		{"grandparent is a file", `{"path":"f/x/y","content":""}`, toolerr.ExecutionFailed, []string{"not a directory"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := tooltest.Build(t, nodes...)
			before := snapshot(t, root)
			_, _, err := run(t, root, tooltest.Call{Args: tc.args})
			tooltest.ErrorKind(t, err, tc.kind, tc.words...)
			if got := snapshot(t, root); !reflect.DeepEqual(got, before) {
				t.Errorf("tree changed:\n%q\n%q", before, got)
			}
		})
	}
	if _, err := os.Lstat("/tmp/forge-conform-x"); err == nil {
		t.Errorf("a file was created outside the sandbox")
	}
}

// TestFailuresLeaveNothing injects a failure at each step after parents
// are created and checks that the tree is as before.
func TestFailuresLeaveNothing(t *testing.T) {
	eio := func(string, string) error { return &os.LinkError{Op: "link", Err: syscall.EIO} }
	tests := []struct {
		name  string
		fs    func(afero.Fs) afero.Fs
		kind  toolerr.Kind
		words []string
	}{
		{"link fails", func(b afero.Fs) afero.Fs { return linkingFs{&hookFs{Fs: b, link: eio}} },
			toolerr.ExecutionFailed, []string{"input/output error"}},
		{"link finds the name taken", func(b afero.Fs) afero.Fs {
			return linkingFs{&hookFs{Fs: b, link: func(_, newname string) error {
				if err := os.WriteFile(newname, []byte("racer"), 0o644); err != nil {
					return err
				}
				return &os.LinkError{Op: "link", New: newname, Err: syscall.EEXIST}
			}}}
		}, toolerr.ExecutionFailed, []string{"already exists"}},
		{"sync fails", func(b afero.Fs) afero.Fs { return &hookFs{Fs: b, syncErr: syscall.EIO} },
			toolerr.ExecutionFailed, []string{"cannot write"}},
		{"temp cannot be created", func(b afero.Fs) afero.Fs { return &hookFs{Fs: b, openErr: syscall.ENOSPC} },
			toolerr.ExecutionFailed, []string{"no space"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := tooltest.Build(t, tooltest.File("keep", "k"), tooltest.Dir("sub"))
			before := snapshot(t, root)
			_, _, err := run(t, root, tooltest.Call{Args: `{"path":"sub/a/b/new","content":"data"}`, FS: tc.fs})
			tooltest.ErrorKind(t, err, tc.kind, tc.words...)
			got := snapshot(t, root)
			if tc.name == "link finds the name taken" {
				// The racer's file stays, with the directories holding it.
				want := append(before, "sub/a/", "sub/a/b/", "sub/a/b/new=racer")
				if !reflect.DeepEqual(got, want) {
					t.Errorf("tree %q\nwant %q", got, want)
				}
				return
			}
			if !reflect.DeepEqual(got, before) {
				t.Errorf("tree changed:\n%q\n%q", before, got)
			}
		})
	}
	// A cancelled call creates nothing.
	root := tooltest.Build(t, tooltest.File("keep", "k"))
	before := snapshot(t, root)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := run(t, root, tooltest.Call{Args: `{"path":"a/new","content":"x"}`, Context: ctx})
	tooltest.ErrorKind(t, err, toolerr.Cancelled)
	if got := snapshot(t, root); !reflect.DeepEqual(got, before) {
		t.Errorf("tree changed:\n%q\n%q", before, got)
	}
}

func TestUsesLinker(t *testing.T) {
	root := tooltest.Build(t)
	var h *hookFs
	wrap := func(b afero.Fs) afero.Fs {
		h = &hookFs{Fs: b, link: os.Link}
		return linkingFs{h}
	}
	if _, _, err := run(t, root, tooltest.Call{Args: `{"path":"n","content":"x"}`, FS: wrap}); err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(root, "n")}; !reflect.DeepEqual(h.linkSeen, want) {
		t.Errorf("LinkNoReplace calls %q, want %q", h.linkSeen, want)
	}
	if got := snapshot(t, root); !reflect.DeepEqual(got, []string{"n=x"}) {
		t.Errorf("tree %q", got)
	}
}

// TestConcurrentCreators checks that of many calls racing to create one
// path exactly one succeeds and the file holds its content whole.
func TestConcurrentCreators(t *testing.T) {
	root := tooltest.Build(t)
	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			content := strings.Repeat(fmt.Sprint(i%10), 100_000)
			_, _, errs[i] = run(t, root, tooltest.Call{Args: `{"path":"race/f","content":"` + content + `"}`})
		})
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
		} else {
			tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "already exists")
		}
	}
	if ok != 1 {
		t.Fatalf("%d calls succeeded", ok)
	}
	got := snapshot(t, root)
	if len(got) != 2 || got[0] != "race/" || len(got[1]) != len("race/f=")+100_000 ||
		strings.Trim(strings.TrimPrefix(got[1], "race/f="), got[1][7:8]) != "" {
		t.Errorf("tree after the race: %d entries", len(got))
	}
}

func TestPermissions(t *testing.T) {
	root := tooltest.Build(t, tooltest.Dir("ro"), tooltest.Dir("rw"))
	tooltest.OpenToOthers(t, root, 0o777)
	if err := os.Chmod(filepath.Join(root, "ro"), 0o555); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(root, "rw"), 0o777); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(filepath.Join(root, "ro"), 0o755) })
	before := snapshot(t, root)
	for _, p := range []string{"ro/f", "ro/a/b"} {
		_, _, err := run(t, root, tooltest.Call{Args: `{"path":"` + p + `","content":"x"}`, Perm: true})
		tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "permission denied")
	}
	if got := snapshot(t, root); !reflect.DeepEqual(got, before) {
		t.Errorf("tree changed:\n%q\n%q", before, got)
	}
	// (Directories the tool creates belong to the real user, so PermFs
	// denies the emulated one writing into them; stay in rw itself.)
	if _, _, err := run(t, root, tooltest.Call{Args: `{"path":"rw/f","content":"x"}`, Perm: true}); err != nil {
		t.Errorf("writable directory through PermFs: %v", err)
	}
}

func TestApprovalSummary(t *testing.T) {
	long := strings.Repeat("é", 300)
	tests := []struct {
		args, want string
		kind       toolerr.Kind
	}{
		{args: `{"path":"src/new.rs","content":"fn main() {}\n"}`, want: "Write src/new.rs (13 bytes)"},
		{args: `{"path":"e","content":""}`, want: "Write e (0 bytes)"},
		{args: `{"path":"u","content":"é😀"}`, want: "Write u (6 bytes)"},
		{args: `{"path":"k","content":"API_KEY=sk-secret"}`, want: "Write k (17 bytes)"},
		{args: `{"path":"/abs/../x","content":"x"}`, want: "Write /abs/../x (1 bytes)"},
		{args: `{"path":"password=hunter2","content":"x"}`, want: "Write password=[REDACTED] (1 bytes)"},
		{args: `{"path":"` + strings.Repeat("a", 183) + `","content":"x"}`, want: "Write " + strings.Repeat("a", 183) + " (1 bytes)"},
		{args: `{"path":"` + strings.Repeat("a", 185) + `","content":"x"}`, want: "Write " + strings.Repeat("a", 185) + " (1 byte…"},
		{args: `{"path":"` + long + `","content":"x"}`, want: "Write " + strings.Repeat("é", 193) + "…"},
		{args: `{"path":"x"}`, kind: toolerr.BadArgs},
		{args: `{"path":"x","content":"","extra":1}`, kind: toolerr.BadArgs},
	}
	for _, tc := range tests {
		got, err := Tool{}.ApprovalSummary(json.RawMessage(tc.args), config.Config{})
		if tc.kind != "" {
			tooltest.ErrorKind(t, err, tc.kind)
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q, %v; want %q", trim(tc.args), got, err, tc.want)
		}
		if strings.Contains(got, "secret") {
			t.Errorf("summary shows the content: %q", got)
		}
		if n := utf8.RuneCountInString(got); n > tool.MaxSummaryChars {
			t.Errorf("summary has %d characters", n)
		}
	}
}

func trim(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

func TestNoSandbox(t *testing.T) {
	c := &tool.Ctx{FS: afero.NewOsFs(), MaxOutputBytes: 1 << 20, AvailableCapacityBytes: 1 << 20}
	_, err := Tool{}.Execute(context.Background(), json.RawMessage(`{"path":"x","content":""}`), c)
	tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "sandbox")
}

func TestThroughSymlinkedDirectory(t *testing.T) {
	root := tooltest.Build(t, tooltest.Dir("real"), tooltest.Link("alias", "real"))
	out, _, err := run(t, root, tooltest.Call{Args: `{"path":"alias/n/f","content":"v"}`})
	if err != nil || out != `{"status":"created","path":"alias/n/f","bytes_written":1}` {
		t.Fatalf("%s, %v", out, err)
	}
	if got, want := snapshot(t, root), []string{"alias@real", "real/", "real/n/", "real/n/f=v"}; !reflect.DeepEqual(got, want) {
		t.Errorf("tree %q\nwant %q", got, want)
	}
}
