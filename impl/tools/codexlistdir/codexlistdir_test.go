package codexlistdir

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/internal/tooltest"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// run calls the tool as c says on the tree at root, where "$R" in c.Args
// stands for root.
func run(t *testing.T, root string, c tooltest.Call) (string, error) {
	t.Helper()
	c.Args = strings.ReplaceAll(c.Args, "$R", root)
	c.Capacity = 1 << 20
	out, _, err := tooltest.Run(t, Tool{}, root, c)
	return out, err
}

// wantErr checks that err is a *toolerr.Error of kind with exactly msg.
func wantErr(t *testing.T, err error, kind toolerr.Kind, msg string) {
	t.Helper()
	if te := tooltest.AsError(t, err); te.Kind != kind || te.Message != msg {
		t.Errorf("got %s %q, want %s %q", te.Kind, te.Message, kind, msg)
	}
}

func TestMetadata(t *testing.T) {
	var tl tool.Tool = Tool{}
	if tl.Name() != "list_dir" ||
		tl.Description() != "Lists entries in a local directory with 1-indexed entry numbers and simple type labels." {
		t.Errorf("name/description %q/%q", tl.Name(), tl.Description())
	}
	if tl.SideEffecting() || tl.RequiresApproval() || tl.RiskLevel() != tool.Low {
		t.Errorf("metadata: %v %v %v", tl.SideEffecting(), tl.RequiresApproval(), tl.RiskLevel())
	}
	var s struct {
		Schema     string                       `json:"$schema"`
		Type       string                       `json:"type"`
		Properties map[string]map[string]string `json:"properties"`
		Required   []string                     `json:"required"`
		Additional *bool                        `json:"additionalProperties"`
	}
	if err := json.Unmarshal(tl.Schema(), &s); err != nil {
		t.Fatal(err)
	}
	types := map[string]string{}
	for k, v := range s.Properties {
		types[k] = v["type"]
	}
	want := map[string]string{"dir_path": "string", "offset": "number", "limit": "number", "depth": "number"}
	if s.Schema != "https://json-schema.org/draft/2020-12/schema" || s.Type != "object" ||
		!reflect.DeepEqual(types, want) || !reflect.DeepEqual(s.Required, []string{"dir_path"}) ||
		s.Additional == nil || *s.Additional {
		t.Errorf("schema %s", tl.Schema())
	}
}

func TestListing(t *testing.T) {
	root := tooltest.Build(t,
		tooltest.Dir("a"), tooltest.File("a/x", ""), tooltest.Dir("a/y"), tooltest.File("a/y/z", ""),
		tooltest.File("a-b", ""), tooltest.File("a0", ""), tooltest.Link("ln", "a"),
		tooltest.Fifo("p"), tooltest.File(".hidden", ""), tooltest.File(`a\b`, ""), tooltest.Dir("e"),
	)
	lines := func(l ...string) string { return strings.Join(append([]string{"Absolute path: " + root}, l...), "\n") }
	tests := []struct {
		name, args, want string
	}{
		{"depth 1", `{"dir_path":"$R","depth":1}`,
			lines(".hidden", "a/", "a-b", `a\b`, "a0", "e/", "ln@", "p?")},
		{"default depth 2: a-b sorts among a's children", `{"dir_path":"$R"}`,
			lines(".hidden", "a/", "a-b", `a\b`, "  x", "  y/", "a0", "e/", "ln@", "p?")},
		{"depth 3; symlinks never descended", `{"dir_path":"$R","depth":3}`,
			lines(".hidden", "a/", "a-b", `a\b`, "  x", "  y/", "    z", "a0", "e/", "ln@", "p?")},
		{"huge depth", `{"dir_path":"$R","depth":18446744073709551615}`,
			lines(".hidden", "a/", "a-b", `a\b`, "  x", "  y/", "    z", "a0", "e/", "ln@", "p?")},
		{"limit", `{"dir_path":"$R","limit":2}`,
			lines(".hidden", "a/", "More than 2 entries found")},
		{"offset and limit", `{"dir_path":"$R","offset":5,"limit":2}`,
			lines("  x", "  y/", "More than 2 entries found")},
		{"last entry", `{"dir_path":"$R","offset":10}`, lines("p?")},
		{"limit reaches the end exactly", `{"dir_path":"$R","offset":9,"limit":2}`, lines("ln@", "p?")},
		{"limit beyond the end", `{"dir_path":"$R","offset":9,"limit":18446744073709551615}`, lines("ln@", "p?")},
		{"one before the end", `{"dir_path":"$R","offset":8,"limit":2}`,
			lines("e/", "ln@", "More than 2 entries found")},
		{"empty directory ignores offset (I-CX-04)", `{"dir_path":"$R/e","offset":99}`,
			"Absolute path: " + root + "/e"},
		{"dir_path shown as given", `{"dir_path":"$R/./a//","depth":1}`,
			"Absolute path: " + root + "/./a//\nx\ny/"},
		{"symlinked directory", `{"dir_path":"$R/ln"}`,
			"Absolute path: " + root + "/ln\nx\ny/\n  z"},
		{"unknown fields ignored", `{"dir_path":"$R","depth":1,"limit":1,"extra":[1]}`,
			lines(".hidden", "More than 1 entries found")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := run(t, root, tooltest.Call{Args: tc.args})
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestLongNames(t *testing.T) {
	long := strings.Repeat("\xff", 255)
	dirA := strings.Repeat("a", 255)
	root := tooltest.Build(t,
		tooltest.File(long, ""),
		tooltest.Dir(dirA),
		tooltest.File(dirA+"/"+strings.Repeat("b", 250)+"2", ""),
		tooltest.File(dirA+"/"+strings.Repeat("b", 250)+"1", ""),
	)
	got, err := run(t, root, tooltest.Call{Args: `{"dir_path":"$R"}`})
	if err != nil {
		t.Fatal(err)
	}
	capped := strings.Repeat("\ufffd", 166) // 765 lossy bytes capped to 498
	if len(capped) != 498 {
		t.Fatal(len(capped))
	}
	// The children's sort keys (507 bytes) are capped to 500 and tie; they
	// keep their raw-name order.
	want := strings.Join([]string{"Absolute path: " + root, dirA + "/",
		"  " + strings.Repeat("b", 250) + "1", "  " + strings.Repeat("b", 250) + "2", capped}, "\n")
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

func TestArgumentErrors(t *testing.T) {
	const p = "failed to parse function arguments: "
	tests := []struct{ args, msg string }{
		{`{"dir_path":"$R","offset":0}`, "offset must be a 1-indexed entry number"},
		{`{"dir_path":"$R","limit":0}`, "limit must be greater than zero"},
		{`{"dir_path":"$R","depth":0}`, "depth must be greater than zero"},
		{`{"dir_path":"relative"}`, "dir_path must be an absolute path"},
		{`{"dir_path":""}`, "dir_path must be an absolute path"},
		{`{"dir_path":" /x"}`, "dir_path must be an absolute path"},
		{`{"dir_path":"rel","depth":0,"limit":0,"offset":0}`, "offset must be a 1-indexed entry number"},
		{`{"dir_path":"rel","depth":0,"limit":0}`, "limit must be greater than zero"},
		{`{"dir_path":"rel","depth":0}`, "depth must be greater than zero"},
		{`{"dir_path":"$R","offset":-1}`, p + "invalid value: integer `-1`, expected usize"},
		{`{"dir_path":"$R","offset":-0}`, p + "invalid type: floating point `-0.0`, expected usize"},
		{`{"dir_path":"$R","offset":1.5}`, p + "invalid type: floating point `1.5`, expected usize"},
		{`{"dir_path":"$R","limit":1.0}`, p + "invalid type: floating point `1.0`, expected usize"},
		{`{"dir_path":"$R","limit":1e2}`, p + "invalid type: floating point `100.0`, expected usize"},
		{`{"dir_path":"$R","depth":18446744073709551616}`, p + "invalid type: floating point `18446744073709552000.0`, expected usize"},
		{`{"dir_path":"$R","depth":-9223372036854775808}`, p + "invalid value: integer `-9223372036854775808`, expected usize"},
		{`{"dir_path":"$R","depth":"2"}`, p + `invalid type: string "2", expected usize`},
		{`{"dir_path":"$R","offset":null}`, p + "invalid type: null, expected usize"},
		{`{"dir_path":"$R","offset":true}`, p + "invalid type: boolean `true`, expected usize"},
		{`{"dir_path":"$R","offset":[]}`, p + "invalid type: sequence, expected usize"},
		{`{"dir_path":5}`, p + "invalid type: integer `5`, expected a string"},
		{`{"dir_path":null}`, p + "invalid type: null, expected a string"},
		{`{"dir_path":{}}`, p + "invalid type: map, expected a string"},
		{`{"offset":1}`, p + "missing field `dir_path`"},
		{`{"offset":-1}`, p + "invalid value: integer `-1`, expected usize"},
		{`{"dir_path":"$R","offset":1,"offset":2}`, p + "duplicate field `offset`"},
		{`[]`, p + "invalid type: sequence, expected struct ListDirArgs"},
		{``, p + "EOF while parsing a value"},
	}
	for _, tc := range tests {
		_, err := run(t, "/tmp", tooltest.Call{Args: tc.args})
		wantErr(t, err, toolerr.BadArgs, tc.msg)
	}
}

func TestFilesystemErrors(t *testing.T) {
	root := tooltest.Build(t,
		tooltest.File("f", ""), tooltest.Dir("d"), tooltest.Dir("d/s"), tooltest.File("d/s/x", ""),
		tooltest.Dir("e"),
	)
	abs := func(p string) string { return filepath.Join(root, p) }
	tests := []struct {
		name   string
		faults []fsys.Fault
		args   string
		kind   toolerr.Kind
		msg    string
	}{
		{"missing", nil, `{"dir_path":"$R/nope"}`, toolerr.ExecutionFailed,
			"failed to read directory: No such file or directory (os error 2)"},
		{"a file", nil, `{"dir_path":"$R/f"}`, toolerr.ExecutionFailed,
			"failed to read directory: Not a directory (os error 20)"},
		{"NUL byte", nil, `{"dir_path":"$R/\u0000"}`, toolerr.ExecutionFailed,
			"failed to read directory: file name contained an unexpected NUL byte"},
		{"offset beyond entries", nil, `{"dir_path":"$R","offset":5}`, toolerr.ExecutionFailed,
			"offset exceeds directory entry count"},
		{"unreadable subdirectory", []fsys.Fault{{Op: fsys.OpReaddir, Path: abs("d/s"), Err: syscall.EACCES}},
			`{"dir_path":"$R","depth":3}`, toolerr.ExecutionFailed,
			"failed to read directory: Permission denied (os error 13)"},
		{"unopenable subdirectory", []fsys.Fault{{Op: fsys.OpOpen, Path: abs("d"), Err: syscall.EIO}},
			`{"dir_path":"$R"}`, toolerr.ExecutionFailed,
			"failed to read directory: Input/output error (os error 5)"},
		{"entry type unavailable", []fsys.Fault{{Op: fsys.OpLstat, Path: abs("e"), Err: syscall.EIO}},
			`{"dir_path":"$R"}`, toolerr.ExecutionFailed,
			"failed to inspect entry: Input/output error (os error 5)"},
		{"a later unreadable directory wins over an entry type", []fsys.Fault{
			{Op: fsys.OpLstat, Path: abs("d/s"), Err: syscall.EACCES}, // read before e
			{Op: fsys.OpReaddir, Path: abs("e"), Err: syscall.EACCES}},
			`{"dir_path":"$R","depth":3}`, toolerr.ExecutionFailed,
			"failed to read directory: Permission denied (os error 13)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := run(t, root, tooltest.Call{Args: tc.args, Faults: tc.faults})
			wantErr(t, err, tc.kind, tc.msg)
		})
	}
	// A directory below the depth limit is never read.
	faulty := []fsys.Fault{{Op: fsys.OpReaddir, Path: abs("d/s"), Err: syscall.EACCES}}
	got, err := run(t, root, tooltest.Call{Args: `{"dir_path":"$R"}`, Faults: faulty})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Absolute path: " + root + "\nd/\n  s/\ne/\nf"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestApprovalSummary(t *testing.T) {
	tests := []struct{ args, want string }{
		{`{"dir_path":"/src/"}`, "List /src/"},
		{`{"dir_path":"/` + strings.Repeat("x", 300) + `","depth":4}`, "List /" + strings.Repeat("x", 193) + "…"},
	}
	for _, tc := range tests {
		got, err := Tool{}.ApprovalSummary(json.RawMessage(tc.args), config.Config{})
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.args, got, err, tc.want)
		}
	}
	_, err := Tool{}.ApprovalSummary(json.RawMessage(`{"dir_path":"rel"}`), config.Config{})
	wantErr(t, err, toolerr.BadArgs, "dir_path must be an absolute path")
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := &tool.Ctx{FS: afero.NewOsFs()}
	_, err := Tool{}.Execute(ctx, json.RawMessage(`{"dir_path":"/"}`), c)
	var te *toolerr.Error
	if !errors.As(err, &te) || te.Kind != toolerr.Cancelled {
		t.Errorf("got %v, want Cancelled", err)
	}
}

// TestPermissions mirrors Codex on real modes seen through fsys.PermFs: a
// directory with read but not search permission can still be read, and an
// unreadable directory fails the call once BFS reaches it.
func TestPermissions(t *testing.T) {
	root := tooltest.Build(t,
		tooltest.Dir("noexec"), tooltest.File("noexec/a.txt", ""), tooltest.Dir("noexec/sub"),
		tooltest.Dir("unreadable"), tooltest.File("unreadable/s", ""), tooltest.File("top.txt", ""),
	)
	tooltest.OpenToOthers(t, root, 0o755)
	for name, mode := range map[string]os.FileMode{"noexec": 0o444, "unreadable": 0o000} {
		if err := os.Chmod(filepath.Join(root, name), mode); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(filepath.Join(root, name), 0o755) })
	}
	got, err := run(t, root, tooltest.Call{Args: `{"dir_path":"$R","depth":1}`, Perm: true})
	if want := "Absolute path: " + root + "\nnoexec/\ntop.txt\nunreadable/"; err != nil || got != want {
		t.Errorf("depth 1: got %q, %v; want %q", got, err, want)
	}
	_, err = run(t, root, tooltest.Call{Args: `{"dir_path":"$R"}`, Perm: true})
	wantErr(t, err, toolerr.ExecutionFailed, "failed to read directory: Permission denied (os error 13)")
}

// TestOptions checks the readings of I-CX-01 the tool can take.
func TestOptions(t *testing.T) {
	t.Run("execution-failed", func(t *testing.T) {
		tl := Tool{Options: Options{ExecutionFailed: true}}
		for _, args := range []string{`{"dir_path":"/tmp","offset":0}`, `{"offset":1}`} {
			_, _, err := tooltest.Run(t, tl, "/tmp", tooltest.Call{Args: args, Capacity: 1 << 20})
			if te := tooltest.AsError(t, err); te.Kind != toolerr.ExecutionFailed {
				t.Errorf("%s: got %s %q, want ExecutionFailed", args, te.Kind, te.Message)
			}
		}
		if _, err := tl.ApprovalSummary(json.RawMessage(`{"dir_path":"rel"}`), config.Config{}); tooltest.AsError(t, err).Kind != toolerr.ExecutionFailed {
			t.Errorf("summary: got %v, want ExecutionFailed", err)
		}
	})
	t.Run("ignore-unknown", func(t *testing.T) {
		var def, lenient map[string]any
		if err := json.Unmarshal(Tool{}.Schema(), &def); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(Tool{Options: Options{IgnoreUnknown: true}}.Schema(), &lenient); err != nil {
			t.Fatal(err)
		}
		if def["additionalProperties"] != false {
			t.Errorf("default schema: additionalProperties = %v, want false", def["additionalProperties"])
		}
		if _, ok := lenient["additionalProperties"]; ok {
			t.Error("IgnoreUnknown schema still sets additionalProperties")
		}
		delete(def, "additionalProperties")
		if !reflect.DeepEqual(def, lenient) {
			t.Errorf("IgnoreUnknown changed more than additionalProperties: %v", lenient)
		}
	})
}
