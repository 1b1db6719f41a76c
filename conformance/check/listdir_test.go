package check

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// ldGood is a canonical list_directory result for {"path":"."} with one
// file entry; each invariant row below changes one thing in it.
const ldGood = `{"path":".","entries":[{"name":"a","path":"a","depth":1,"type":"file","size_bytes":1,"modified_epoch_ms":0,"is_hidden":false,"error_code":null,"error":null}],"returned":1,"max_entries":200,"truncated":false,"truncated_reason":null}`

// ldEntry renders one canonical entry object.
func ldEntryJSON(name, path string, depth int, typ string) string {
	size := "null"
	if typ == "file" {
		size = "1"
	}
	code, msg := "null", "null"
	if typ == "unknown" {
		code, msg = `"io_error"`, `"failed"`
	}
	hidden := strings.HasPrefix(name, ".")
	b, _ := json.Marshal(hidden)
	return `{"name":` + quote(name) + `,"path":` + quote(path) + `,"depth":` + itoa(int64(depth)) +
		`,"type":"` + typ + `","size_bytes":` + size + `,"modified_epoch_ms":0,"is_hidden":` + string(b) +
		`,"error_code":` + code + `,"error":` + msg + `}`
}

// ldResult renders a canonical result holding entries, untruncated.
func ldResult(path string, maxEntries int, entries ...string) string {
	return `{"path":` + quote(path) + `,"entries":[` + strings.Join(entries, ",") + `],"returned":` +
		itoa(int64(len(entries))) + `,"max_entries":` + itoa(int64(maxEntries)) + `,"truncated":false,"truncated_reason":null}`
}

func quote(s string) string {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(sb.String(), "\n")
}

// replaceOnce replaces the single occurrence of old in s; it panics when
// old does not occur exactly once, so a row cannot silently test the
// unchanged baseline.
func replaceOnce(s, old, new string) string {
	if n := strings.Count(s, old); n != 1 {
		panic("replaceOnce: " + old + " occurs " + itoa(int64(n)) + " times in " + s)
	}
	return strings.Replace(s, old, new, 1)
}

func int64p(n int64) *int64 { return &n }

// ldInput builds the check input for a list_directory call.
func ldInput(t *testing.T, args, config, content string) Input {
	t.Helper()
	a, err := DecodeObject([]byte(args))
	if err != nil {
		t.Fatalf("args %s: %v", args, err)
	}
	c, err := DecodeObject([]byte(config))
	if err != nil {
		t.Fatalf("config %s: %v", config, err)
	}
	return Input{
		Case:         &corpus.Case{Spec: "list_directory", Name: "row", Op: "call", Tool: "list_directory", IDs: []string{"T-LD-01"}},
		Resp:         fcp.Response{OK: fcp.Bool(true), Content: &content, AllowTruncation: fcp.Bool(false)},
		Args:         a,
		Config:       c,
		ContentBytes: int64(len(content)),
	}
}

// failedIDs returns the sorted distinct IDs the failures name, and checks
// each failure is a well-formed invariant failure.
func failedIDs(t *testing.T, fs []Failure) []string {
	t.Helper()
	set := map[string]bool{}
	for _, f := range fs {
		if f.Kind != KindInvariant {
			t.Errorf("failure %q has kind %q, want %q", f.Message, f.Kind, KindInvariant)
		}
		if f.Message == "" || len(f.IDs) == 0 {
			t.Errorf("failure %+v needs a message and at least one ID", f)
		}
		for _, id := range f.IDs {
			set[id] = true
		}
	}
	out := make([]string, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

func messagesOf(fs []Failure) string {
	var ms []string
	for _, f := range fs {
		ms = append(ms, "["+strings.Join(f.IDs, ",")+"] "+f.Message)
	}
	return strings.Join(ms, "\n\t")
}

func TestListDirInvariants(t *testing.T) {
	file := func(name, path string, depth int) string { return ldEntryJSON(name, path, depth, "file") }
	tests := []struct {
		name    string
		args    string // decoded into Input.Args; default {"path":"."}
		config  string // decoded into Input.Config
		content string
		ctx     fcp.Ctx
		bytes   int64 // ContentBytes; 0 means len(content)
		allow   *bool // AllowTruncation; the row sets allowNil to send none
		allowNo bool
		want    []string // exactly the IDs that must fire; nil = silent
	}{
		// Good results: every invariant stays silent.
		{name: "good baseline", content: ldGood},
		{name: "good empty listing", content: ldResult(".", 200)},
		{name: "good recursive listing in path order", args: `{"path":".","recursive":true}`,
			content: ldResult(".", 200, ldEntryJSON("a", "a", 1, "dir"), file("b", "a/b", 2), ldEntryJSON("c", "a/c", 2, "unknown"), ldEntryJSON("l", "l", 1, "symlink"))},
		{name: "good hidden entry with include_hidden=true", args: `{"path":".","include_hidden":true}`,
			content: ldResult(".", 200, file(".a", ".a", 1))},
		{name: "good hidden entry with include_hidden_default=true", config: `{"tools":{"list_directory":{"include_hidden_default":true}}}`,
			content: ldResult(".", 200, file(".a", ".a", 1))},
		{name: "good other entry with include_other=true", args: `{"path":".","include_other":true}`,
			content: ldResult(".", 200, ldEntryJSON("p", "p", 1, "other"))},
		{name: "good truncated for max_entries", args: `{"path":".","max_entries":1}`,
			content: replaceOnce(replaceOnce(replaceOnce(ldGood, `"max_entries":200`, `"max_entries":1`), `"truncated":false`, `"truncated":true`), `"truncated_reason":null`, `"truncated_reason":"max_entries"`)},
		{name: "good truncated for max_output_bytes", content: replaceOnce(replaceOnce(ldGood, `"truncated":false`, `"truncated":true`), `"truncated_reason":null`, `"truncated_reason":"max_output_bytes"`)},
		{name: "good max_entries from args", args: `{"path":".","max_entries":100}`, content: ldResult(".", 100, file("a", "a", 1))},
		{name: "good max_entries from config", config: `{"tools":{"list_directory":{"max_entries":50}}}`, content: ldResult(".", 50, file("a", "a", 1))},
		{name: "good args max_entries beat config", args: `{"path":".","max_entries":10}`, config: `{"tools":{"list_directory":{"max_entries":50}}}`, content: ldResult(".", 10, file("a", "a", 1))},
		{name: "good output exactly at the budget", ctx: fcp.Ctx{MaxOutputBytes: int64p(int64(len(ldGood)))}, content: ldGood},
		{name: "good normalized path", args: `{"path":" ./sub//dir/ "}`, content: ldResult("sub/dir", 200, file("a", "a", 1))},
		{name: "good literal < and non-ASCII", content: ldResult(".", 200, file("a<b>é", "a<b>é", 1))},
		{name: "good short escapes and lower-case control escape", content: ldResult(".", 200, file("a\tb\x1f", "a\tb\x1f", 1))},

		// Serialization (FR-LD-OUT-02a).
		{name: "whitespace after colon", content: replaceOnce(ldGood, `"path":"."`, `"path": "."`), want: []string{"FR-LD-OUT-02a"}},
		{name: "newline between tokens", content: replaceOnce(ldGood, `"returned":1,`, "\"returned\":1,\n"), want: []string{"FR-LD-OUT-02a"}},
		{name: `\u003c escape`, content: ldResult(".", 200, `{"name":"a\u003cb","path":"a\u003cb","depth":1,"type":"file","size_bytes":1,"modified_epoch_ms":0,"is_hidden":false,"error_code":null,"error":null}`), want: []string{"FR-LD-OUT-02a"}},
		{name: "upper-case hex escape", content: ldResult(".", 200, `{"name":"a\u001Fb","path":"a\u001fb","depth":1,"type":"file","size_bytes":1,"modified_epoch_ms":0,"is_hidden":false,"error_code":null,"error":null}`), want: []string{"FR-LD-OUT-02a"}},
		{name: `\u000a instead of \n`, content: ldResult(".", 200, `{"name":"a\u000ab","path":"a\nb","depth":1,"type":"file","size_bytes":1,"modified_epoch_ms":0,"is_hidden":false,"error_code":null,"error":null}`), want: []string{"FR-LD-OUT-02a"}},
		{name: `\/ escape`, args: `{"path":"x/y"}`, content: replaceOnce(ldResult("x/y", 200), `"x/y"`, `"x\/y"`), want: []string{"FR-LD-OUT-02a"}},
		{name: "top-level key order", content: replaceOnce(ldGood, `"returned":1,"max_entries":200`, `"max_entries":200,"returned":1`), want: []string{"FR-LD-OUT-02a", "LD-ENT-06"}},
		{name: "entry key order", content: replaceOnce(ldGood, `"name":"a","path":"a"`, `"path":"a","name":"a"`), want: []string{"FR-LD-OUT-02a", "LD-ENT-06"}},
		{name: "missing top-level key", content: replaceOnce(ldGood, `,"truncated_reason":null`, ``), want: []string{"FR-LD-OUT-02a", "LD-ENT-06"}},
		{name: "missing entry key", content: replaceOnce(ldGood, `"modified_epoch_ms":0,`, ``), want: []string{"FR-LD-OUT-02a", "LD-ENT-06"}},
		{name: "extra top-level key", content: replaceOnce(ldGood, `"truncated_reason":null}`, `"truncated_reason":null,"extra":1}`), want: []string{"FR-LD-OUT-02a", "LD-ENT-06"}},
		{name: "extra entry key", content: replaceOnce(ldGood, `"error":null}`, `"error":null,"mode":"0644"}`), want: []string{"FR-LD-OUT-02a", "LD-ENT-06"}},
		{name: "field of the wrong type", content: replaceOnce(ldGood, `"returned":1`, `"returned":"1"`), want: []string{"LD-ENT-06"}},
		{name: "not JSON", content: `{"path":".",`, want: []string{"NFR-LD-REL-01"}},
		{name: "not an object", content: `[]`, want: []string{"NFR-LD-REL-01"}},

		// Counts and truncation (FR-LD-OUT-02b, FR-LD-LST-07).
		{name: "returned mismatch", content: replaceOnce(ldGood, `"returned":1`, `"returned":2`), want: []string{"FR-LD-OUT-02b"}},
		{name: "truncated without reason", content: replaceOnce(ldGood, `"truncated":false`, `"truncated":true`), want: []string{"FR-LD-OUT-02b"}},
		{name: "reason while not truncated", content: replaceOnce(ldGood, `"truncated_reason":null`, `"truncated_reason":"max_entries"`), want: []string{"FR-LD-OUT-02b"}},
		{name: "unknown reason", content: replaceOnce(replaceOnce(ldGood, `"truncated":false`, `"truncated":true`), `"truncated_reason":null`, `"truncated_reason":"too_big"`), want: []string{"FR-LD-OUT-02b"}},
		{name: "max_entries reason with fewer entries", content: replaceOnce(replaceOnce(ldGood, `"truncated":false`, `"truncated":true`), `"truncated_reason":null`, `"truncated_reason":"max_entries"`), want: []string{"FR-LD-OUT-07"}},
		{name: "more entries than max_entries", args: `{"path":".","max_entries":1}`, content: ldResult(".", 1, file("a", "a", 1), file("b", "b", 1)), want: []string{"FR-LD-LST-07", "NFR-LD-PERF-01"}},

		// Effective max_entries (LD-ENT-06, FR-LD-VAL-06a).
		{name: "max_entries not the built-in default", content: replaceOnce(ldGood, `"max_entries":200`, `"max_entries":100`), want: []string{"FR-LD-VAL-06a", "LD-ENT-06"}},
		{name: "max_entries ignores args", args: `{"path":".","max_entries":100}`, content: ldGood, want: []string{"FR-LD-VAL-06a", "LD-ENT-06"}},
		{name: "max_entries ignores config", config: `{"tools":{"list_directory":{"max_entries":50}}}`, content: ldGood, want: []string{"FR-LD-VAL-06a", "LD-ENT-06"}},
		{name: "config max_entries beat args", args: `{"path":".","max_entries":10}`, config: `{"tools":{"list_directory":{"max_entries":50}}}`, content: ldResult(".", 50, file("a", "a", 1)), want: []string{"FR-LD-VAL-06a", "LD-ENT-06"}},

		// Output budget (FR-LD-OUT-03/04/06).
		{name: "over the default budget", content: ldGood, bytes: fcp.DefaultAvailableCapacityBytes + 1, want: []string{"FR-LD-OUT-03", "FR-LD-OUT-06"}},
		{name: "over ctx max_output_bytes", ctx: fcp.Ctx{MaxOutputBytes: int64p(int64(len(ldGood)) - 1)}, content: ldGood, want: []string{"FR-LD-OUT-03", "FR-LD-OUT-06"}},
		{name: "over ctx available_capacity_bytes", ctx: fcp.Ctx{AvailableCapacityBytes: int64p(10)}, content: ldGood, want: []string{"FR-LD-OUT-03", "FR-LD-OUT-06"}},
		{name: "allow_truncation true", content: ldGood, allow: fcp.Bool(true), want: []string{"FR-LD-OUT-04"}},
		{name: "allow_truncation absent", content: ldGood, allowNo: true, want: []string{"FR-LD-OUT-04"}},

		// Path (FR-LD-VAL-10).
		{name: "path not normalized", args: `{"path":"./a/"}`, content: ldResult("./a/", 200), want: []string{"FR-LD-VAL-10"}},
		{name: "path not the requested one", args: `{"path":"a"}`, content: ldResult("b", 200), want: []string{"FR-LD-VAL-10"}},

		// Order and depth (FR-LD-OUT-01, FR-LD-LST-01/02, LD-ENT-05).
		{name: "unsorted entries", content: ldResult(".", 200, file("b", "b", 1), file("a", "a", 1)), want: []string{"FR-LD-OUT-01"}},
		{name: "depth 2 without recursive", content: ldResult(".", 200, ldEntryJSON("a", "a", 1, "dir"), file("b", "a/b", 2)), want: []string{"FR-LD-LST-01", "NFR-LD-PERF-01"}},
		{name: "depth 0", content: replaceOnce(ldGood, `"depth":1`, `"depth":0`), want: []string{"FR-LD-LST-01", "NFR-LD-PERF-01"}},
		{name: "depth over args max_depth", args: `{"path":".","recursive":true,"max_depth":2}`,
			content: ldResult(".", 200, ldEntryJSON("a", "a", 1, "dir"), ldEntryJSON("b", "a/b", 2, "dir"), file("c", "a/b/c", 3)), want: []string{"FR-LD-LST-02", "NFR-LD-PERF-01"}},
		{name: "depth over config max_depth", args: `{"path":".","recursive":true}`, config: `{"tools":{"list_directory":{"max_depth":1}}}`,
			content: ldResult(".", 200, ldEntryJSON("a", "a", 1, "dir"), file("b", "a/b", 2)), want: []string{"FR-LD-LST-02", "NFR-LD-PERF-01"}},
		{name: "depth over built-in max_depth 4", args: `{"path":".","recursive":true}`,
			content: ldResult(".", 200, file("e", "a/b/c/d/e", 5)), want: []string{"FR-LD-LST-02", "NFR-LD-PERF-01"}},
		{name: "depth differs from components", args: `{"path":".","recursive":true}`, content: ldResult(".", 200, file("b", "a/b", 1)), want: []string{"LD-ENT-05"}},
		{name: "name not the last component", content: replaceOnce(ldGood, `"name":"a"`, `"name":"x"`), want: []string{"LD-ENT-05"}},
		{name: "is_hidden true on a visible name", content: replaceOnce(ldGood, `"is_hidden":false`, `"is_hidden":true`), want: []string{"FR-LD-LST-06a", "LD-ENT-05"}},
		{name: "is_hidden false on a dot name", args: `{"path":".","include_hidden":true}`, content: ldResult(".", 200, replaceOnce(file(".a", ".a", 1), `"is_hidden":true`, `"is_hidden":false`)), want: []string{"FR-LD-LST-06a", "LD-ENT-05"}},
		{name: "dot component", args: `{"path":".","recursive":true,"include_hidden":true}`, content: ldResult(".", 200, file("b", "a/./b", 3)), want: []string{"FR-LD-LST-03"}},
		{name: "empty component", args: `{"path":".","recursive":true}`, content: ldResult(".", 200, file("b", "a//b", 3)), want: []string{"FR-LD-LST-03"}},

		// Entry fields (LD-ENT-01/02/04, FR-LD-LST-04).
		{name: "unknown type name", content: replaceOnce(ldGood, `"type":"file","size_bytes":1`, `"type":"folder","size_bytes":null`), want: []string{"LD-ENT-01"}},
		{name: "size on a dir", content: replaceOnce(ldGood, `"type":"file"`, `"type":"dir"`), want: []string{"LD-ENT-02"}},
		{name: "no size on a file", content: replaceOnce(ldGood, `"size_bytes":1`, `"size_bytes":null`), want: []string{"LD-ENT-02"}},
		{name: "negative size", content: replaceOnce(ldGood, `"size_bytes":1`, `"size_bytes":-1`), want: []string{"LD-ENT-02"}},
		{name: "no error_code on unknown", content: ldResult(".", 200, replaceOnce(ldEntryJSON("a", "a", 1, "unknown"), `"error_code":"io_error"`, `"error_code":null`)), want: []string{"FR-LD-LST-04", "LD-ENT-04"}},
		{name: "no error on unknown", content: ldResult(".", 200, replaceOnce(ldEntryJSON("a", "a", 1, "unknown"), `"error":"failed"`, `"error":null`)), want: []string{"FR-LD-LST-04", "LD-ENT-04"}},
		{name: "error_code on a file", content: replaceOnce(ldGood, `"error_code":null,"error":null`, `"error_code":"io_error","error":"x"`), want: []string{"FR-LD-LST-04", "LD-ENT-04"}},
		{name: "bad error_code", content: ldResult(".", 200, replaceOnce(ldEntryJSON("a", "a", 1, "unknown"), `"io_error"`, `"EACCES"`)), want: []string{"LD-ENT-04"}},

		// Filters (FR-LD-LST-06, FR-LD-VAL-06/06a).
		{name: "hidden entry with include_hidden=false", content: ldResult(".", 200, file(".a", ".a", 1)), want: []string{"FR-LD-LST-06"}},
		{name: "entry under a hidden dir", args: `{"path":".","recursive":true}`, content: ldResult(".", 200, file("b", ".a/b", 2)), want: []string{"FR-LD-LST-06"}},
		{name: "args include_hidden=false beat config", args: `{"path":".","include_hidden":false}`, config: `{"tools":{"list_directory":{"include_hidden_default":true}}}`,
			content: ldResult(".", 200, file(".a", ".a", 1)), want: []string{"FR-LD-LST-06"}},
		{name: "file listed with include_files=false", args: `{"path":".","include_files":false}`, content: ldGood, want: []string{"FR-LD-VAL-06", "FR-LD-VAL-06a"}},
		{name: "dir listed with include_dirs_default=false", config: `{"tools":{"list_directory":{"include_dirs_default":false}}}`,
			content: ldResult(".", 200, ldEntryJSON("d", "d", 1, "dir")), want: []string{"FR-LD-VAL-06", "FR-LD-VAL-06a"}},
		{name: "symlink listed with include_symlinks=false", args: `{"path":".","include_symlinks":false}`,
			content: ldResult(".", 200, ldEntryJSON("l", "l", 1, "symlink")), want: []string{"FR-LD-VAL-06", "FR-LD-VAL-06a"}},
		{name: "other listed by default", content: ldResult(".", 200, ldEntryJSON("p", "p", 1, "other")), want: []string{"FR-LD-VAL-06", "FR-LD-VAL-06a"}},

		// Symlinks (FR-LD-VAL-09, NFR-LD-SEC-03).
		{name: "entry under a symlink", args: `{"path":".","recursive":true}`,
			content: ldResult(".", 200, ldEntryJSON("l", "l", 1, "symlink"), file("x", "l/x", 2)), want: []string{"FR-LD-VAL-09", "NFR-LD-SEC-03"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if args == "" {
				args = `{"path":"."}`
			}
			in := ldInput(t, args, tt.config, tt.content)
			in.Ctx = tt.ctx
			if tt.bytes != 0 {
				in.ContentBytes = tt.bytes
			}
			switch {
			case tt.allowNo:
				in.Resp.AllowTruncation = nil
			case tt.allow != nil:
				in.Resp.AllowTruncation = tt.allow
			}
			fs := Invariants(in)
			got := failedIDs(t, fs)
			if len(tt.want) == 0 && len(got) == 0 {
				return
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("invariant IDs differ (-want +got):\n%s\ncontent: %s\nfailures:\n\t%s", d, tt.content, messagesOf(fs))
			}
		})
	}
}

func TestListDirErrorInvariants(t *testing.T) {
	tests := []struct {
		name string
		err  fcp.Error
		want []string
	}{
		{"clear BadArgs", fcp.Error{Kind: "BadArgs", Message: "path must not be empty"}, nil},
		{"SandboxViolation with denial", fcp.Error{Kind: "SandboxViolation", Message: "outside", Denial: &fcp.Denial{Reason: "PathOutsideSandbox"}}, nil},
		{"empty message", fcp.Error{Kind: "BadArgs", Message: ""}, []string{"FR-LD-ERR-01"}},
		{"blank message", fcp.Error{Kind: "ExecutionFailed", Message: " \t\n"}, []string{"FR-LD-ERR-01"}},
		{"SandboxViolation without denial", fcp.Error{Kind: "SandboxViolation", Message: "outside"}, []string{"FR-LD-ERR-02"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.err
			in := Input{Case: &corpus.Case{Op: "call", Tool: "list_directory"}, Resp: fcp.Response{OK: fcp.Bool(false), Error: &e}}
			fs := Invariants(in)
			got := failedIDs(t, fs)
			if len(tt.want) == 0 && len(got) == 0 {
				return
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("invariant IDs differ (-want +got):\n%s\nfailures:\n\t%s", d, messagesOf(fs))
			}
		})
	}
}

func TestInvariantsOnlyForCalls(t *testing.T) {
	bad := "not json"
	for _, c := range []*corpus.Case{
		{Op: "definitions", Tool: "list_directory"},
		{Op: "call", Tool: "no_such_tool"},
	} {
		in := Input{Case: c, Resp: fcp.Response{OK: fcp.Bool(true), Content: &bad}}
		if fs := Invariants(in); len(fs) != 0 {
			t.Errorf("Invariants(op %s, tool %s) = %v, want none", c.Op, c.Tool, messagesOf(fs))
		}
	}
}

func TestNormalizePath(t *testing.T) {
	tests := []struct{ in, want string }{
		{".", "."},
		{"./", "."},
		{"", "."},
		{"a//b/", "a/b"},
		{"  a ", "a"},
		{"\ta\n", "a"},
		{"/", "/"},
		{"//", "/"},
		{"/x/./y/", "/x/y"},
		{"./a/./b", "a/b"},
		{"A/B", "A/B"},
		{`a\b`, `a\b`}, // I-LD-11: a backslash is part of a name on Unix
		{"a/../b", "a/../b"},
	}
	for _, tt := range tests {
		if got := normalizePath(tt.in); got != tt.want {
			t.Errorf("normalizePath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCanonicalProblems(t *testing.T) {
	tests := []struct {
		name string
		json string
		want []string // substrings, one per expected problem, in order
	}{
		{"canonical", `{"a":"x\"\\\b\f\n\r\t\u0000\u001f","b":[1,true,null]}`, nil},
		{"space inside a string is fine", `{"a":"x y"}`, nil},
		{"escaped quote then colon inside a string", `{"a":"\": "}`, nil},
		{"space after colon", `{"a": 1}`, []string{"whitespace at byte 5"}},
		{"leading newline", "\n{}", []string{"whitespace at byte 0"}},
		{"tab and CR", "{\t\"a\":1\r}", []string{"whitespace at byte 1", "whitespace at byte 7"}},
		{"slash escape", `{"a":"x\/y"}`, []string{`\/`}},
		{"html escape", `{"a":"\u003c"}`, []string{`'<' as \u003c at byte 6: only control characters are escaped (no HTML escaping`}},
		{"non-ASCII escape", `{"a":"\u00e9"}`, []string{`\u00e9`}},
		{"upper-case hex", `{"a":"\u001F"}`, []string{"upper-case hex"}},
		{"short escape spelled long", `{"a":"\u0009"}`, []string{"short escape"}},
		{"newline spelled long", `{"a":"\u000a"}`, []string{"short escape"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := canonicalProblems([]byte(tt.json))
			if len(got) != len(tt.want) {
				t.Fatalf("canonicalProblems(%s) = %q, want %d problem(s) mentioning %q", tt.json, got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want it to mention %q", i, got[i], w)
				}
			}
		})
	}
}

func TestCanonicalProblemsCapsAtFive(t *testing.T) {
	got := canonicalProblems([]byte(`{ "a" : 1 , "b" : 2 }`))
	if len(got) != 5 {
		t.Errorf("canonicalProblems reported %d problems, want at most 5: %q", len(got), got)
	}
}

func TestKeyProblems(t *testing.T) {
	want := []string{"a", "b", "c"}
	tests := []struct {
		name, json string
		problem    string // substring; "" = no problem
	}{
		{"exact", `{"a":1,"b":{"x":1,"y":2},"c":[1]}`, ""},
		{"nested keys do not count", `{"a":{"c":1},"b":2,"c":3}`, ""},
		{"order", `{"b":1,"a":2,"c":3}`, "keys are [b a c], want exactly [a b c] in that order"},
		{"missing", `{"a":1,"b":2}`, "keys are [a b]"},
		{"extra", `{"a":1,"b":2,"c":3,"d":4}`, "keys are [a b c d]"},
		{"empty object", `{}`, "keys are []"},
		{"array", `[1]`, "is not an object"},
		{"string", `"a"`, "is not an object"},
		{"empty input", ``, "is not an object"},
	}
	for _, tt := range tests {
		got := keyProblems([]byte(tt.json), want)
		switch {
		case tt.problem == "" && got != "":
			t.Errorf("%s: keyProblems(%s) = %q, want no problem", tt.name, tt.json, got)
		case tt.problem != "" && !strings.Contains(got, tt.problem):
			t.Errorf("%s: keyProblems(%s) = %q, want it to contain %q", tt.name, tt.json, got, tt.problem)
		}
	}
}

func TestLdParamsPrecedence(t *testing.T) {
	tests := []struct {
		name, args, config string
		want               ldParams
	}{
		{"built-in defaults", `{"path":"x"}`, ``,
			ldParams{path: "x", maxEntries: 200, maxDepth: 1, files: true, dirs: true, symlinks: true}},
		{"recursive uses the default depth", `{"path":"x","recursive":true}`, ``,
			ldParams{path: "x", recursive: true, maxEntries: 200, maxDepth: 4, files: true, dirs: true, symlinks: true}},
		{"config defaults", `{"path":"x","recursive":true}`,
			`{"tools":{"list_directory":{"max_entries":7,"max_depth":2,"include_hidden_default":true,"include_files_default":false,"include_dirs_default":false,"include_symlinks_default":false,"include_other_default":true}}}`,
			ldParams{path: "x", recursive: true, maxEntries: 7, maxDepth: 2, hidden: true, other: true}},
		{"args beat config", `{"path":"x","recursive":true,"max_entries":3,"max_depth":3,"include_hidden":false,"include_files":true,"include_other":false}`,
			`{"tools":{"list_directory":{"max_entries":7,"max_depth":2,"include_hidden_default":true,"include_files_default":false,"include_other_default":true}}}`,
			ldParams{path: "x", recursive: true, maxEntries: 3, maxDepth: 3, files: true, dirs: true, symlinks: true}},
		{"max_depth ignored without recursive", `{"path":"x","max_depth":3}`, `{"tools":{"list_directory":{"max_depth":2}}}`,
			ldParams{path: "x", maxEntries: 200, maxDepth: 1, files: true, dirs: true, symlinks: true}},
		{"other tools' config is ignored", `{"path":"x"}`, `{"tools":{"list_dir":{"max_entries":1}}}`,
			ldParams{path: "x", maxEntries: 200, maxDepth: 1, files: true, dirs: true, symlinks: true}},
	}
	for _, tt := range tests {
		in := ldInput(t, tt.args, tt.config, ldGood)
		got := ldParamsOf(in)
		if d := cmp.Diff(tt.want, got, cmp.AllowUnexported(ldParams{})); d != "" {
			t.Errorf("%s: ldParamsOf differs (-want +got):\n%s", tt.name, d)
		}
	}
}

func TestIntOfAndBoolOf(t *testing.T) {
	if got := intOf(9, nil, "3", json.Number("x"), json.Number("4")); got != 4 {
		t.Errorf("intOf skipped to %d, want 4 (the first integer)", got)
	}
	if got := intOf(9, float64(2), 3); got != 2 {
		t.Errorf("intOf(float64 2) = %d, want 2", got)
	}
	if got := intOf(9); got != 9 {
		t.Errorf("intOf() = %d, want the default 9", got)
	}
	if got := boolOf(true, nil, "false", false); got != false {
		t.Errorf("boolOf = %v, want false (the first boolean)", got)
	}
	if got := boolOf(true, nil); !got {
		t.Errorf("boolOf(nil) = false, want the default true")
	}
	if !slices.Equal([]string{"dirs", "files", "symlinks", "other"}, []string{pluralOf("dir"), pluralOf("file"), pluralOf("symlink"), pluralOf("other")}) {
		t.Errorf("pluralOf does not name the include_* arguments")
	}
}

// null where §3.5 gives a non-nullable type (boolean, integer, array) must
// fail LD-ENT-06 like any other wrong type.
func TestListDirInvariantsRejectNull(t *testing.T) {
	tests := []struct{ name, content string }{
		{"entries null", replaceOnce(ldResult(".", 200), `"entries":[]`, `"entries":null`)},
		{"returned null", replaceOnce(ldResult(".", 200), `"returned":0`, `"returned":null`)},
		{"truncated null", replaceOnce(ldGood, `"truncated":false`, `"truncated":null`)},
		{"is_hidden null", replaceOnce(ldGood, `"is_hidden":false`, `"is_hidden":null`)},
	}
	for _, tt := range tests {
		got := failedIDs(t, Invariants(ldInput(t, `{"path":"."}`, ``, tt.content)))
		if !slices.Contains(got, "LD-ENT-06") {
			t.Errorf("%s: invariants %v, want LD-ENT-06 for %s", tt.name, got, tt.content)
		}
	}
}

// TestLDSymlinkOracle checks the invariants that compare a listing's
// symlinks with the disk: a symlink must be listed as one, even when
// dangling, and filters act on the symlink type, not the target's.
func TestLDSymlinkOracle(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"l-file": "a", "l-gone": "missing"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	entry := func(name, typ, code string) string {
		size, errs := "null", `"error_code":null,"error":null`
		if typ == "file" {
			size = "0"
		}
		if code != "" {
			errs = `"error_code":"` + code + `","error":"x"`
		}
		return `{"name":"` + name + `","path":"` + name + `","depth":1,"type":"` + typ + `","size_bytes":` + size + `,"modified_epoch_ms":0,"is_hidden":false,` + errs + `}`
	}
	listing := func(max int, truncated bool, entries ...string) string {
		tail := `"truncated":false,"truncated_reason":null}`
		if truncated {
			tail = `"truncated":true,"truncated_reason":"max_entries"}`
		}
		return `{"path":".","entries":[` + strings.Join(entries, ",") + `],"returned":` + itoa(int64(len(entries))) + `,"max_entries":` + itoa(int64(max)) + `,` + tail
	}
	tests := []struct {
		name, args, content string
		want                []string
	}{
		{"conforming", `{"path":"."}`, listing(200, false, entry("a", "file", ""), entry("l-file", "symlink", ""), entry("l-gone", "symlink", "")), nil},
		{"link filtered as its target", `{"path":".","include_files":false}`, listing(200, false, entry("l-gone", "symlink", "")), []string{"LD-ENT-01"}},
		{"dangling link typed unknown", `{"path":"."}`, listing(200, false, entry("a", "file", ""), entry("l-file", "symlink", ""), entry("l-gone", "unknown", "metadata_unavailable")), []string{"LD-ENT-01"}},
		{"cut before the link", `{"path":".","max_entries":1}`, listing(1, true, entry("a", "file", "")), nil},
		{"cut after the missing link", `{"path":".","max_entries":1,"include_files":false}`, listing(1, true, entry("l-gone", "symlink", "")), []string{"LD-ENT-01"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := ldInput(t, tc.args, `{}`, tc.content)
			in.Root = root
			if got := failedIDs(t, listDirInvariants(in)); !slices.Equal(got, tc.want) {
				t.Errorf("IDs %v, want %v", got, tc.want)
			}
		})
	}
}
