package listdir

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/internal/tooltest"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

func TestMetadata(t *testing.T) {
	var tl tool.Tool = Tool{}
	if tl.Name() != "list_directory" || tl.Description() != "List directory entries" {
		t.Errorf("name/description %q/%q", tl.Name(), tl.Description())
	}
	if tl.SideEffecting() || tl.RequiresApproval() || tl.RiskLevel() != tool.Low {
		t.Errorf("side effecting %v, requires approval %v, risk %v", tl.SideEffecting(), tl.RequiresApproval(), tl.RiskLevel())
	}
	want := `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{
		"path":{"type":"string"},"recursive":{"type":"boolean","default":false},
		"max_depth":{"type":"integer","minimum":1},"max_entries":{"type":"integer","minimum":1},
		"include_hidden":{"type":"boolean","default":false},"include_files":{"type":"boolean","default":true},
		"include_dirs":{"type":"boolean","default":true},"include_symlinks":{"type":"boolean","default":true},
		"include_other":{"type":"boolean","default":false}},"required":["path"]}`
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
}

// ent renders an expected entry object by hand.
func ent(name, path string, depth int, typ, size, mtime string, hidden bool, code, msg string) string {
	q := func(s string) string {
		if s == "null" {
			return s
		}
		return `"` + s + `"`
	}
	return fmt.Sprintf(`{"name":%q,"path":%q,"depth":%d,"type":%q,"size_bytes":%s,"modified_epoch_ms":%s,"is_hidden":%v,"error_code":%s,"error":%s}`,
		name, path, depth, typ, size, mtime, hidden, q(code), q(msg))
}

func TestExactOutput(t *testing.T) {
	root := fixedMtime.Build(t,
		tooltest.File("b.txt", "abc"), tooltest.Dir("a"), tooltest.File("a/x", "hello"), tooltest.File(".hidden", ""),
		tooltest.File("a-b", "1"), tooltest.File("a0", ""),
	)
	ms := fmt.Sprint(fixedMillis)
	a := ent("a", "a", 1, "dir", "null", ms, false, "null", "null")
	ab := ent("a-b", "a-b", 1, "file", "1", ms, false, "null", "null")
	ax := ent("x", "a/x", 2, "file", "5", ms, false, "null", "null")
	a0 := ent("a0", "a0", 1, "file", "0", ms, false, "null", "null")
	b := ent("b.txt", "b.txt", 1, "file", "3", ms, false, "null", "null")
	h := ent(".hidden", ".hidden", 1, "file", "0", ms, true, "null", "null")
	tail := func(n, max int, reason string) string {
		if reason == "" {
			return fmt.Sprintf(`],"returned":%d,"max_entries":%d,"truncated":false,"truncated_reason":null}`, n, max)
		}
		return fmt.Sprintf(`],"returned":%d,"max_entries":%d,"truncated":true,"truncated_reason":%q}`, n, max, reason)
	}
	tests := []struct {
		name, args, want string
	}{
		{"defaults (T-LD-01)", `{"path":"."}`,
			`{"path":".","entries":[` + strings.Join([]string{a, ab, a0, b}, ",") + tail(4, 200, "")},
		{"recursive: a-b < a/x < a0", `{"path":"./","recursive":true}`,
			`{"path":".","entries":[` + strings.Join([]string{a, ab, ax, a0, b}, ",") + tail(5, 200, "")},
		{"hidden included", `{"path":".","include_hidden":true,"include_dirs":false}`,
			`{"path":".","entries":[` + strings.Join([]string{h, ab, a0, b}, ",") + tail(4, 200, "")},
		{"max_entries exceeded (T-LD-05)", `{"path":".","recursive":true,"max_entries":2}`,
			`{"path":".","entries":[` + strings.Join([]string{a, ax}, ",") + tail(2, 2, "max_entries")},
		{"subdirectory", `{"path":"  a//"}`,
			`{"path":"a","entries":[` + ent("x", "x", 1, "file", "5", ms, false, "null", "null") + tail(1, 200, "")},
		{"empty listing", `{"path":".","include_dirs":false,"include_files":false}`,
			`{"path":".","entries":[` + tail(0, 200, "")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, ctx, err := run(t, root, tooltest.Call{Args: tc.args})
			if err != nil {
				t.Fatal(err)
			}
			if out != tc.want {
				t.Errorf("got\n%s\nwant\n%s", out, tc.want)
			}
			if ctx.AllowTruncation {
				t.Errorf("allow_truncation left true (FR-LD-OUT-04)")
			}
		})
	}
}

func TestValidation(t *testing.T) {
	root := fixedMtime.Build(t,
		tooltest.Dir("src"), tooltest.File("f", "x"), tooltest.Dir(".ssh"), tooltest.Link("loop", "loop"),
	)
	none := `"include_files":false,"include_dirs":false,"include_symlinks":false`
	tests := []struct {
		name, args, config string
		kind               toolerr.Kind
		words              []string
	}{
		{"not an object", `[1]`, "", toolerr.BadArgs, []string{"object"}},
		{"missing path", `{}`, "", toolerr.BadArgs, []string{"path"}},
		{"path not a string", `{"path":5}`, "", toolerr.BadArgs, []string{"path", "string"}},
		{"path null", `{"path":null}`, "", toolerr.BadArgs, []string{"path"}},
		{"case-sensitive keys", `{"PATH":"."}`, "", toolerr.BadArgs, []string{"path"}},
		{"recursive not bool", `{"path":".","recursive":"yes"}`, "", toolerr.BadArgs, []string{"recursive"}},
		{"max_depth fraction", `{"path":".","recursive":true,"max_depth":1.5}`, "", toolerr.BadArgs, []string{"max_depth"}},
		{"max_depth 1.0", `{"path":".","recursive":true,"max_depth":1.0}`, "", toolerr.BadArgs, []string{"max_depth"}},
		{"max_depth as string", `{"path":".","recursive":true,"max_depth":"2"}`, "", toolerr.BadArgs, []string{"max_depth"}},
		{"max_entries zero", `{"path":".","max_entries":0}`, "", toolerr.BadArgs, []string{"max_entries"}},
		{"max_entries huge", `{"path":".","max_entries":99999999999999999999}`, "", toolerr.BadArgs, []string{"max_entries"}},
		{"VAL-01 empty", `{"path":""}`, "", toolerr.BadArgs, []string{"empty"}},
		{"VAL-01 blank", `{"path":" \t\u00a0\u3000"}`, "", toolerr.BadArgs, []string{"empty"}},
		{"VAL-02", `{"path":".","max_depth":2}`, "", toolerr.BadArgs, []string{"recursive"}},
		{"VAL-02 explicit false", `{"path":".","recursive":false,"max_depth":3}`, "", toolerr.BadArgs, []string{"recursive"}},
		{"VAL-04", `{"path":".","max_entries":201}`, "", toolerr.BadArgs, []string{"max_entries", "200"}},
		{"VAL-04 config cap", `{"path":".","max_entries":11}`, `{"list_directory":{"max_entries":10}}`, toolerr.BadArgs, []string{"10"}},
		{"VAL-05", `{"path":".",` + none + `}`, "", toolerr.BadArgs, []string{"at least one"}},
		{"VAL-05 from config defaults", `{"path":"."}`,
			`{"list_directory":{"include_files_default":false,"include_dirs_default":false,"include_symlinks_default":false}}`,
			toolerr.BadArgs, []string{"at least one"}},
		{"VAL-06b", `{"path":".","recursive":true,"max_depth":5}`, "", toolerr.BadArgs, []string{"max_depth", "4"}},
		{"VAL-06b config cap", `{"path":".","recursive":true,"max_depth":3}`, `{"list_directory":{"max_depth":2}}`, toolerr.BadArgs, []string{"2"}},
		// I-LD-12: the first fault in order is reported.
		{"order 01 before 02", `{"path":" ","max_depth":2,"max_entries":999}`, "", toolerr.BadArgs, []string{"empty"}},
		{"order 02 before 04", `{"path":".","max_depth":2,"max_entries":999}`, "", toolerr.BadArgs, []string{"recursive"}},
		{"order 04 before 05", `{"path":".","max_entries":999,` + none + `}`, "", toolerr.BadArgs, []string{"max_entries"}},
		{"order 05 before 06b", `{"path":".","recursive":true,"max_depth":9,` + none + `}`, "", toolerr.BadArgs, []string{"at least one"}},
		{"args before sandbox", `{"path":"../x","max_entries":999}`, "", toolerr.BadArgs, []string{"max_entries"}},
		{"sandbox before existence", `{"path":"../nope"}`, "", toolerr.SandboxViolation, nil},
		{"absolute (T-LD-03)", `{"path":"/etc"}`, "", toolerr.SandboxViolation, nil},
		{"denied pattern", `{"path":".ssh"}`, "", toolerr.SandboxViolation, nil},
		{"missing", `{"path":"nope"}`, "", toolerr.ExecutionFailed, []string{"does not exist", "nope"}},
		{"below a file", `{"path":"f/x"}`, "", toolerr.ExecutionFailed, []string{"does not exist", "f/x"}},
		{"symlink loop", `{"path":"loop"}`, "", toolerr.ExecutionFailed, []string{"does not exist", "loop"}},
		{"file (T-LD-02)", `{"path":"./f"}`, "", toolerr.ExecutionFailed, []string{"path is not a directory", "f"}},
		{"bad config", `{"path":"."}`, `{"list_directory":{"max_entries":"many"}}`, toolerr.ExecutionFailed, []string{"configuration"}},
		{"zero config", `{"path":"."}`, `{"list_directory":{"max_depth":0}}`, toolerr.ExecutionFailed, []string{"max_depth"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := run(t, root, tooltest.Call{Args: tc.args, Config: tc.config})
			tooltest.ErrorKind(t, err, tc.kind, tc.words...)
		})
	}
	valid := []string{
		`{"path":".","recursive":false,"max_depth":1}`,
		`{"path":".","max_entries":200}`,
		`{"path":".","recursive":true,"max_depth":4}`,
		`{"path":".","include_files":false,"include_dirs":false}`,
		`{"path":".","recursive":null,"max_depth":null,"unknown":1}`,
		`{"path":"src"}`,
	}
	for _, args := range valid {
		if _, _, err := run(t, root, tooltest.Call{Args: args}); err != nil {
			t.Errorf("%s: %v", args, err)
		}
	}
}

func TestNormalize(t *testing.T) {
	tests := map[string]string{
		".": ".", "./": ".", "": ".", " ": ".", "././.": ".",
		"a//b/": "a/b", "./a/./b": "a/b", "a/b/.": "a/b",
		"/": "/", "//": "/", "/a/": "/a", "/./a//b/": "/a/b",
		"  a/b \t\n": "a/b", "\u00a0a\u3000": "a",
		`a\b`: `a\b`, `a\`: `a\`, "C:/": "C:", "Src/Main": "Src/Main",
	}
	for in, want := range tests {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTraversal(t *testing.T) {
	tree := []tooltest.Node{
		tooltest.Dir("a"), tooltest.File("a/1", ""), tooltest.File("a/2", ""), tooltest.Dir("a/deep"),
		tooltest.Dir("a/deep/er"), tooltest.File("a/deep/er/f", ""),
		tooltest.File("a-b", ""), tooltest.File("a0", ""), tooltest.Dir("b"), tooltest.File("b/1", ""),
		tooltest.Dir(".git"), tooltest.File(".git/config", ""), tooltest.File(".h", ""), tooltest.File("a/.x", ""),
		tooltest.Link("ln", "a"), tooltest.Link("dangling", "nowhere"), tooltest.Fifo("p"), tooltest.Link("a/up", ".."),
	}
	root := fixedMtime.Build(t, tree...)
	tests := []struct {
		name, args string
		want       []string
		reason     string
	}{
		{"non-recursive (FR-LD-LST-01)", `{"path":"."}`,
			[]string{"a/", "a-b", "a0", "b/", "dangling@", "ln@"}, ""},
		{"recursive default depth 4 (FR-LD-VAL-03)", `{"path":".","recursive":true}`,
			[]string{"a/", "a-b", "a/1", "a/2", "a/deep/", "a/deep/er/", "a/deep/er/f", "a/up@", "a0", "b/", "b/1", "dangling@", "ln@"}, ""},
		{"max_depth 2 (T-LD-04)", `{"path":".","recursive":true,"max_depth":2}`,
			[]string{"a/", "a-b", "a/1", "a/2", "a/deep/", "a/up@", "a0", "b/", "b/1", "dangling@", "ln@"}, ""},
		{"max_depth 1", `{"path":".","recursive":true,"max_depth":1}`,
			[]string{"a/", "a-b", "a0", "b/", "dangling@", "ln@"}, ""},
		{"hidden included (FR-LD-LST-06)", `{"path":".","recursive":true,"max_depth":2,"include_hidden":true}`,
			[]string{".git/", ".git/config", ".h", "a/", "a-b", "a/.x", "a/1", "a/2", "a/deep/", "a/up@", "a0", "b/", "b/1", "dangling@", "ln@"}, ""},
		{"dirs excluded but traversed (I-LD-06)", `{"path":".","recursive":true,"include_dirs":false}`,
			[]string{"a-b", "a/1", "a/2", "a/deep/er/f", "a/up@", "a0", "b/1", "dangling@", "ln@"}, ""},
		{"files excluded", `{"path":".","recursive":true,"max_depth":2,"include_files":false}`,
			[]string{"a/", "a/deep/", "a/up@", "b/", "dangling@", "ln@"}, ""},
		{"symlinks excluded", `{"path":".","include_symlinks":false}`,
			[]string{"a/", "a-b", "a0", "b/"}, ""},
		{"other included (FR-LD-VAL-06)", `{"path":".","include_other":true,"include_dirs":false,"include_symlinks":false}`,
			[]string{"a-b", "a0", "p|"}, ""},
		{"symlinked dir as path (I-LD-11)", `{"path":"ln/"}`,
			[]string{"1", "2", "deep/", "up@"}, ""},
		// I-LD-04 and FR-LD-LST-07: the DFS prefix is kept.
		{"DFS truncation keeps the DFS prefix", `{"path":".","recursive":true,"max_entries":3}`,
			[]string{"a/", "a/1", "a/2"}, "max_entries"},
		{"exactly max_entries is complete", `{"path":".","max_entries":6}`,
			[]string{"a/", "a-b", "a0", "b/", "dangling@", "ln@"}, ""},
		{"one more is truncated", `{"path":".","max_entries":5}`,
			[]string{"a/", "a-b", "a0", "b/", "dangling@"}, "max_entries"},
		{"filtered entries do not count", `{"path":".","max_entries":4,"include_symlinks":false}`,
			[]string{"a/", "a-b", "a0", "b/"}, ""},
		{"entries below max_depth do not count", `{"path":"a/deep","recursive":true,"max_depth":1,"max_entries":1}`,
			[]string{"er/"}, ""},
		{"dot-dot is a sandbox violation", `{"path":".git/..//a/deep","recursive":true}`, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := run(t, root, tooltest.Call{Args: tc.args})
			if tc.want == nil {
				tooltest.ErrorKind(t, err, toolerr.SandboxViolation)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := listing(t, out); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			o := decode(t, out)
			if reason := derefOr(o.TruncatedReason); reason != tc.reason {
				t.Errorf("truncated_reason %q, want %q", reason, tc.reason)
			}
		})
	}

	hidden := fixedMtime.Build(t,
		tooltest.Dir(".d"), tooltest.File(".d/x", ""), tooltest.File(".a", ""), tooltest.File("y", ""),
		tooltest.File("z", ""),
	)
	out, _, err := run(t, hidden, tooltest.Call{Args: `{"path":".","recursive":true,"max_entries":2}`})
	if err != nil {
		t.Fatal(err)
	}
	if o := decode(t, out); o.Truncated || o.Returned != 2 {
		t.Errorf("hidden entries counted toward max_entries: %s", out)
	}
}

func derefOr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// TestReadsNoMoreThanNeeded checks NFR-LD-PERF-01: traversal stops at the
// first entry beyond max_entries.
func TestReadsNoMoreThanNeeded(t *testing.T) {
	root := fixedMtime.Build(t,
		tooltest.Dir("a"), tooltest.File("a/1", ""), tooltest.File("a/2", ""), tooltest.Dir("b"),
		tooltest.File("b/1", ""), tooltest.Dir("c"),
	)
	cfs := &countingFs{Fs: afero.NewOsFs()}
	sb := tooltest.Sandbox(t, root)
	ctx := &tool.Ctx{FS: cfs, Sandbox: sb, WorkingDir: root, MaxOutputBytes: 1 << 20, AvailableCapacityBytes: 1 << 20}
	if _, err := (Tool{}).Execute(context.Background(), json.RawMessage(`{"path":".","recursive":true,"max_entries":2}`), ctx); err != nil {
		t.Fatal(err)
	}
	for _, p := range cfs.touched {
		rel, _ := filepath.Rel(root, p)
		// a/2 is lstat-ed (it might have been filtered out); nothing after it.
		if strings.HasPrefix(rel, "b") || strings.HasPrefix(rel, "c") {
			t.Errorf("touched %s after max_entries was exceeded (all: %q)", rel, cfs.touched)
		}
	}
}

func TestBudget(t *testing.T) {
	root := fixedMtime.Build(t,
		tooltest.File("one", "1"), tooltest.File("two", "22"), tooltest.File("three", "333"),
		tooltest.Dir("empty"),
	)
	full, _, err := run(t, root, tooltest.Call{Args: `{"path":"."}`})
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Entries []json.RawMessage `json:"entries"`
	}
	if err := json.Unmarshal([]byte(full), &raw); err != nil {
		t.Fatal(err)
	}
	// expect returns the output keeping the first k entries truncated for
	// reason, built from the full output's entry bytes.
	expect := func(k int, reason string) string {
		parts := make([]string, k)
		for i := range parts {
			parts[i] = string(raw.Entries[i])
		}
		return fmt.Sprintf(`{"path":".","entries":[%s],"returned":%d,"max_entries":200,"truncated":true,"truncated_reason":%q}`,
			strings.Join(parts, ","), k, reason)
	}
	minimal := int64(len(expect(0, "max_output_bytes")))
	for budget := int64(len(full)) + 1; budget >= minimal-1; budget-- {
		out, ctx, err := run(t, root, tooltest.Call{Args: `{"path":"."}`, Budget: budget})
		switch {
		case budget >= int64(len(full)):
			if err != nil || out != full {
				t.Fatalf("budget %d: got %q, %v; want the full output", budget, out, err)
			}
		case budget < minimal:
			tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "output budget too small")
			if !ctx.AllowTruncation {
				t.Errorf("allow_truncation changed on failure")
			}
		default:
			k := len(raw.Entries) - 1
			for int64(len(expect(k, "max_output_bytes"))) > budget {
				k--
			}
			if want := expect(k, "max_output_bytes"); err != nil || out != want {
				t.Fatalf("budget %d: got %q, %v; want %q", budget, out, err, want)
			}
		}
	}

	// T-LD-14: output truncation overrides max_entries.
	out, _, err := run(t, root, tooltest.Call{Args: `{"path":".","max_entries":3}`, Budget: int64(len(full)) / 2})
	if err != nil {
		t.Fatal(err)
	}
	if o := decode(t, out); derefOr(o.TruncatedReason) != "max_output_bytes" || o.Returned >= 3 {
		t.Errorf("T-LD-14: %s", out)
	}

	// I-LD-05: an empty listing that does not fit fails.
	empty, _, err := run(t, root, tooltest.Call{Args: `{"path":"empty"}`})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, root, tooltest.Call{Args: `{"path":"empty"}`, Budget: int64(len(empty))}); err != nil {
		t.Errorf("empty listing at exact budget: %v", err)
	}
	_, _, err = run(t, root, tooltest.Call{Args: `{"path":"empty"}`, Budget: int64(len(empty)) - 1})
	tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "output budget too small")
	_, _, err = run(t, root, tooltest.Call{Args: `{"path":"."}`, Budget: -5})
	tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "output budget too small")
}

func TestBudgetUsesAvailableCapacity(t *testing.T) {
	root := fixedMtime.Build(t, tooltest.File("one", "1"), tooltest.File("two", "2"))
	sb := tooltest.Sandbox(t, root)
	ctx := &tool.Ctx{FS: afero.NewOsFs(), Sandbox: sb, WorkingDir: root, MaxOutputBytes: 1 << 20, AvailableCapacityBytes: 250}
	out, err := (Tool{}).Execute(context.Background(), json.RawMessage(`{"path":"."}`), ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > 250 || !decode(t, out).Truncated {
		t.Errorf("available capacity ignored: %d bytes: %s", len(out), out)
	}
}

func TestNonUTF8Names(t *testing.T) {
	root := fixedMtime.Build(t,
		tooltest.File("a\xfe", "1"), tooltest.Dir("a\xff"), tooltest.File("a\xff/x", ""),
		tooltest.Dir("d\xff"), tooltest.File("d\xff/x", ""), tooltest.Dir("d\xfe"), tooltest.File("d\xfe/y", ""),
		tooltest.File("\xf0\x9f\x98z", ""), tooltest.File("\xc0\xafq", ""), tooltest.File("\xed\xa0\x80s", ""),
	)
	out, _, err := run(t, root, tooltest.Call{Args: `{"path":"."}`})
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.ValidString(out) {
		t.Fatalf("output is not UTF-8 (T-LD-09)")
	}
	want := []string{"a\ufffd", "a\ufffd/", "d\ufffd/", "d\ufffd/", "\ufffdz", "\ufffd\ufffdq", "\ufffd\ufffd\ufffds"}
	if got := listing(t, out); !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// Traversal ties break on raw bytes: d\xfe (holding y) is descended
	// before d\xff (holding x), so max_entries keeps d\xfe/y.
	out, _, err = run(t, root, tooltest.Call{Args: `{"path":".","recursive":true,"max_entries":5}`})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"a\ufffd", "a\ufffd/", "a\ufffd/x", "d\ufffd/", "d\ufffd/y"}
	if got := listing(t, out); !reflect.DeepEqual(got, want) {
		t.Errorf("tie-broken DFS: got  %q\nwant %q", got, want)
	}
	// Output order is by lossy relative path, ties by raw bytes: d\xff/x
	// sorts before d\xfe/y although d\xfe sorts before d\xff.
	out, _, err = run(t, root, tooltest.Call{Args: `{"path":".","recursive":true}`})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"a\ufffd", "a\ufffd/", "a\ufffd/x", "d\ufffd/", "d\ufffd/", "d\ufffd/x", "d\ufffd/y", "\ufffdz", "\ufffd\ufffdq", "\ufffd\ufffd\ufffds"}
	if got := listing(t, out); !reflect.DeepEqual(got, want) {
		t.Errorf("sorted: got  %q\nwant %q", got, want)
	}
}

func TestEscaping(t *testing.T) {
	root := fixedMtime.Build(t,
		tooltest.File(`q"`, ""), tooltest.File(`b\s`, ""), tooltest.File("n\nl", ""),
		tooltest.File("c\x01", ""), tooltest.File("t<&>", ""),
		tooltest.File("tab\t", ""), tooltest.File("del\x7f", ""), tooltest.File("u\u2028", ""),
		tooltest.File("bs\b", ""), tooltest.File("ff\f", ""), tooltest.File("cr\r", ""),
		tooltest.File("e\x1f", ""),
	)
	out, _, err := run(t, root, tooltest.Call{Args: `{"path":"."}`})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"q\""`, `"b\\s"`, `"n\nl"`, `"c\u0001"`, `"t<&>"`, `"tab\t"`, "\"del\x7f\"", "\"u\u2028\"",
		`"bs\b"`, `"ff\f"`, `"cr\r"`, `"e\u001f"`} {
		if !strings.Contains(out, `"name":`+want) {
			t.Errorf("output lacks name %s:\n%s", want, out)
		}
	}
}

func TestMtime(t *testing.T) {
	root := fixedMtime.Build(t,
		tooltest.File("pre", ""), tooltest.File("epoch", ""), tooltest.File("ms", ""),
		tooltest.File("ns", ""), tooltest.Dir("d"), tooltest.Link("ln", "pre"),
	)
	times := map[string]time.Time{
		"pre": time.Unix(-2, 500_000_000), "epoch": time.Unix(0, 0),
		"ms": time.Unix(1, 999_999_999), "ns": time.Unix(0, 1),
	}
	for name, tm := range times {
		if err := os.Chtimes(filepath.Join(root, name), tm, tm); err != nil {
			t.Fatal(err)
		}
	}
	lfi, err := os.Lstat(filepath.Join(root, "ln"))
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, root, tooltest.Call{Args: `{"path":"."}`})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"pre": "null", "epoch": "0", "ms": "1999", "ns": "0", "d": fmt.Sprint(fixedMillis),
		"ln": fmt.Sprint(lfi.ModTime().UnixMilli())}
	for _, e := range decode(t, out).Entries {
		got := "null"
		if e.Mtime != nil {
			got = fmt.Sprint(*e.Mtime)
		}
		if got != want[e.Name] {
			t.Errorf("%s: modified_epoch_ms %s, want %s", e.Name, got, want[e.Name])
		}
	}
}

func TestEntryErrors(t *testing.T) {
	root := fixedMtime.Build(t,
		tooltest.File("f1", ""), tooltest.File("f2", ""), tooltest.File("f3", ""), tooltest.Dir("d"),
		tooltest.File("d/x", ""), tooltest.Dir("e"), tooltest.File("e/y", ""), tooltest.Dir(".h"),
	)
	abs := func(p string) string { return filepath.Join(root, p) }
	faults := []fsys.Fault{
		{Op: fsys.OpLstat, Path: abs("f1"), Err: syscall.EACCES},
		{Op: fsys.OpLstat, Path: abs("f2"), Err: syscall.ENOENT},
		{Op: fsys.OpLstat, Path: abs("f3"), Err: syscall.EIO},
		{Op: fsys.OpReaddir, Path: abs("d"), Err: syscall.EACCES},
		{Op: fsys.OpOpen, Path: abs("e"), Err: syscall.EIO},
		{Op: fsys.OpLstat, Path: abs(".h"), Err: syscall.EIO},
	}
	tests := []struct {
		name, args string
		want       []string
	}{
		{"recursive (T-LD-10, T-LD-12)", `{"path":".","recursive":true}`,
			[]string{"d!read_dir_failed", "e!read_dir_failed", "f1!permission_denied", "f2!metadata_unavailable", "f3!io_error"}},
		{"not descended: plain dir (I-LD-08)", `{"path":"."}`,
			[]string{"d/", "e/", "f1!permission_denied", "f2!metadata_unavailable", "f3!io_error"}},
		{"errors are never filtered (I-LD-07)", `{"path":".","recursive":true,"include_files":false,"include_dirs":false}`,
			[]string{"d!read_dir_failed", "e!read_dir_failed", "f1!permission_denied", "f2!metadata_unavailable", "f3!io_error"}},
		{"errors count toward max_entries", `{"path":".","recursive":true,"include_dirs":false,"max_entries":1}`,
			[]string{"d!read_dir_failed"}},
		{"hidden error entries follow include_hidden", `{"path":".","include_hidden":true,"include_files":false,"include_dirs":false}`,
			[]string{".h!io_error", "f1!permission_denied", "f2!metadata_unavailable", "f3!io_error"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := run(t, root, tooltest.Call{Args: tc.args, Faults: faults})
			if err != nil {
				t.Fatal(err)
			}
			if got := listing(t, out); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
	// The readings of Options (I-LD-08, I-LD-09).
	readings := []struct {
		name string
		opts Options
		args string
		want []string
	}{
		{"keep-dir-entry", Options{KeepDirEntry: true}, `{"path":".","recursive":true}`,
			[]string{"d/", "d!read_dir_failed", "e/", "e!read_dir_failed", "f1!permission_denied", "f2!metadata_unavailable", "f3!io_error"}},
		{"keep-dir-entry, dirs filtered", Options{KeepDirEntry: true}, `{"path":".","recursive":true,"include_dirs":false,"include_files":false}`,
			[]string{"d!read_dir_failed", "e!read_dir_failed", "f1!permission_denied", "f2!metadata_unavailable", "f3!io_error"}},
		{"keep-dir-entry, full after the dir", Options{KeepDirEntry: true}, `{"path":".","recursive":true,"max_entries":1}`,
			[]string{"d/"}},
		{"vanished-io-error", Options{VanishedCode: codeIOError}, `{"path":"."}`,
			[]string{"d/", "e/", "f1!permission_denied", "f2!io_error", "f3!io_error"}},
	}
	for _, tc := range readings {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := runTool(t, Tool{Options: tc.opts}, root, tooltest.Call{Args: tc.args, Faults: faults})
			if err != nil {
				t.Fatal(err)
			}
			if got := listing(t, out); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}

	out, _, err := run(t, root, tooltest.Call{Args: `{"path":".","recursive":true}`, Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	msgs := map[string]string{"d": "permission denied", "e": "input/output error", "f1": "permission denied",
		"f2": "no such file or directory", "f3": "input/output error"}
	for _, e := range decode(t, out).Entries {
		if derefOr(e.Error) != msgs[e.Name] {
			t.Errorf("%s: error %q, want %q", e.Name, derefOr(e.Error), msgs[e.Name])
		}
		wantMtime := e.Name == "d" || e.Name == "e" // from their own lstat
		if (e.Mtime != nil) != wantMtime {
			t.Errorf("%s: modified_epoch_ms %v", e.Name, e.Mtime)
		}
	}

	for _, f := range []fsys.Fault{
		{Op: fsys.OpReaddir, Path: root, Err: syscall.EIO},
		{Op: fsys.OpOpen, Path: root, Err: syscall.EACCES},
	} {
		_, _, err := run(t, root, tooltest.Call{Args: `{"path":"."}`, Faults: []fsys.Fault{f}})
		tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "cannot read directory")
	}
	_, _, err = run(t, root, tooltest.Call{Args: `{"path":"."}`, Faults: []fsys.Fault{{Op: fsys.OpStat, Path: root, Err: syscall.EIO}}})
	tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "input/output error")
}

// TestPermissions uses real modes seen through fsys.PermFs: a directory
// without r cannot be read; one with r but not x lists names whose lstat
// fails.
func TestPermissions(t *testing.T) {
	root := fixedMtime.Build(t,
		tooltest.Dir("closed"), tooltest.File("closed/a", ""), tooltest.Dir("noexec"),
		tooltest.File("noexec/b", ""), tooltest.File("f", ""),
	)
	tooltest.OpenToOthers(t, root, 0o755)
	modes := map[string]os.FileMode{"closed": 0o000, "noexec": 0o644}
	for name, m := range modes {
		if err := os.Chmod(filepath.Join(root, name), m); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(filepath.Join(root, name), 0o755) })
	}
	out, _, err := run(t, root, tooltest.Call{Args: `{"path":".","recursive":true}`, Perm: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"closed!read_dir_failed", "f", "noexec/", "noexec/b!permission_denied"}
	if got := listing(t, out); !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	_, _, err = run(t, root, tooltest.Call{Args: `{"path":"closed"}`, Perm: true})
	tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "permission denied")
}

func TestConfig(t *testing.T) {
	root := fixedMtime.Build(t,
		tooltest.Dir("a"), tooltest.File("a/x", ""), tooltest.Dir("a/b"), tooltest.File("a/b/y", ""),
		tooltest.File(".h", ""), tooltest.Fifo("p"),
	)
	tests := []struct {
		name, args, config string
		want               []string
		maxEntries         int64
	}{
		{"built-in defaults", `{"path":"."}`, "", []string{"a/"}, 200},
		{"table present but empty", `{"path":"."}`, `{"list_directory":{}}`, []string{"a/"}, 200},
		{"config defaults", `{"path":"."}`,
			`{"list_directory":{"include_hidden_default":true,"include_other_default":true,"max_entries":50}}`,
			[]string{".h", "a/", "p|"}, 50},
		{"explicit args win", `{"path":".","include_hidden":false,"include_other":false,"max_entries":7}`,
			`{"list_directory":{"include_hidden_default":true,"include_other_default":true}}`,
			[]string{"a/"}, 7},
		{"config depth is the recursive default", `{"path":".","recursive":true}`,
			`{"list_directory":{"max_depth":2}}`, []string{"a/", "a/b/", "a/x"}, 200},
		{"config include defaults", `{"path":".","recursive":true}`,
			`{"list_directory":{"include_dirs_default":false}}`, []string{"a/b/y", "a/x"}, 200},
		{"other sections ignored", `{"path":"."}`, `{"sandbox":{"allowed_roots":["/"]},"mode":"x"}`, []string{"a/"}, 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := run(t, root, tooltest.Call{Args: tc.args, Config: tc.config})
			if err != nil {
				t.Fatal(err)
			}
			if got := listing(t, out); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			if o := decode(t, out); o.MaxEntries != tc.maxEntries {
				t.Errorf("max_entries %d, want %d", o.MaxEntries, tc.maxEntries)
			}
		})
	}
}

func TestApprovalSummary(t *testing.T) {
	long := strings.Repeat("é", 300)
	tests := []struct {
		args, config, want string
		kind               toolerr.Kind
	}{
		{args: `{"path":"src/"}`, want: "List src"},
		{args: `{"path":" ./src//lib "}`, want: "List src/lib"},
		{args: `{"path":"."}`, want: "List ."},
		{args: `{"path":"src","recursive":true}`, want: "List src depth 4"},
		{args: `{"path":"src","recursive":true,"max_depth":2}`, want: "List src depth 2"},
		{args: `{"path":"src","recursive":true}`, config: `{"list_directory":{"max_depth":3}}`, want: "List src depth 3"},
		{args: `{"path":"src","recursive":false,"max_depth":1}`, want: "List src"},
		{args: `{"path":"` + strings.Repeat("a", 195) + `"}`, want: "List " + strings.Repeat("a", 195)},
		{args: `{"path":"` + strings.Repeat("a", 196) + `"}`, want: "List " + strings.Repeat("a", 194) + "…"},
		{args: `{"path":"` + long + `"}`, want: "List " + strings.Repeat("é", 194) + "…"},
		{args: `{"path":" "}`, kind: toolerr.BadArgs},
		{args: `{"path":"src","max_depth":3}`, kind: toolerr.BadArgs},
		{args: `{}`, kind: toolerr.BadArgs},
	}
	for _, tc := range tests {
		got, err := Tool{}.ApprovalSummary(json.RawMessage(tc.args), tooltest.Config(t, tc.config))
		if tc.kind != "" {
			tooltest.ErrorKind(t, err, tc.kind)
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.args, got, err, tc.want)
		}
		if n := utf8.RuneCountInString(got); n > maxSummaryChars {
			t.Errorf("%s: summary has %d characters", tc.args, n)
		}
	}
}

func TestCancelled(t *testing.T) {
	root := fixedMtime.Build(t, tooltest.File("f", ""))
	sb := tooltest.Sandbox(t, root)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := &tool.Ctx{FS: afero.NewOsFs(), Sandbox: sb, WorkingDir: root, MaxOutputBytes: 1 << 20, AvailableCapacityBytes: 1 << 20}
	_, err := Tool{}.Execute(ctx, json.RawMessage(`{"path":"."}`), c)
	tooltest.ErrorKind(t, err, toolerr.Cancelled)
	c.Sandbox = nil
	_, err = Tool{}.Execute(context.Background(), json.RawMessage(`{"path":"."}`), c)
	tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "sandbox")
}

// benchTree builds the benchmarks' tree: 50 directories of 100 files
// each, 5050 entries in all.
func benchTree(b *testing.B) string {
	b.Helper()
	var nodes []tooltest.Node
	for d := range 50 {
		dn := fmt.Sprintf("dir%02d", d)
		nodes = append(nodes, tooltest.Dir(dn))
		for f := range 100 {
			nodes = append(nodes, tooltest.File(fmt.Sprintf("%s/file%03d.txt", dn, f), "x"))
		}
	}
	return fixedMtime.Build(b, nodes...)
}

func BenchmarkListRecursive5000(b *testing.B) {
	root := benchTree(b)
	sb := tooltest.Sandbox(b, root)
	cfg := tooltest.Config(b, `{"list_directory":{"max_entries":10000}}`)
	args := json.RawMessage(`{"path":".","recursive":true,"max_entries":10000}`)
	b.ReportAllocs()
	for b.Loop() {
		c := &tool.Ctx{FS: afero.NewOsFs(), Sandbox: sb, WorkingDir: root,
			MaxOutputBytes: 8 << 20, AvailableCapacityBytes: 8 << 20, Config: cfg}
		out, err := Tool{}.Execute(context.Background(), args, c)
		if err != nil {
			b.Fatal(err)
		}
		if !strings.Contains(out, `"returned":5050,`) {
			b.Fatal("unexpected output")
		}
	}
}

// BenchmarkFind5000 runs find(1) over the same tree as
// BenchmarkListRecursive5000, printing type, size and mtime per entry (what
// list_directory reports), for a side-by-side figure in one run.
func BenchmarkFind5000(b *testing.B) {
	find, err := exec.LookPath("find")
	if err != nil {
		b.Skip("find not installed")
	}
	root := benchTree(b)
	for b.Loop() {
		out, err := exec.Command(find, root, "-mindepth", "1", "-maxdepth", "4", "-printf", "%P %y %s %T@\n").Output()
		if err != nil {
			b.Fatal(err)
		}
		if n := bytes.Count(out, []byte("\n")); n != 5050 {
			b.Fatalf("find printed %d entries", n)
		}
	}
}
