package searchfiles

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/internal/tooltest"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

func TestMetadata(t *testing.T) {
	var tl tool.Tool = Tool{}
	if tl.Name() != "search_files" || tl.Description() != "Search file contents" {
		t.Errorf("name/description %q/%q", tl.Name(), tl.Description())
	}
	if tl.SideEffecting() || tl.RequiresApproval() || tl.RiskLevel() != tool.Low {
		t.Errorf("side effecting %v, requires approval %v, risk %v", tl.SideEffecting(), tl.RequiresApproval(), tl.RiskLevel())
	}
	// §3.2's schema, verbatim, plus the draft.
	want := `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{
		"path":{"type":"string"},"query":{"type":"string"},
		"mode":{"type":"string","enum":["exact","regex","fuzzy"],"default":"exact"},
		"case":{"type":"string","enum":["sensitive","insensitive","smart"],"default":"smart"},
		"recursive":{"type":"boolean","default":true},
		"max_depth":{"type":"integer","minimum":1},"max_results":{"type":"integer","minimum":1},
		"max_matches_per_file":{"type":"integer","minimum":1},"max_file_size_bytes":{"type":"integer","minimum":1},
		"max_files":{"type":"integer","minimum":1},"context_lines":{"type":"integer","minimum":0,"default":0},
		"include_hidden":{"type":"boolean","default":false},"follow_symlinks":{"type":"boolean","default":false},
		"respect_gitignore":{"type":"boolean","default":true},
		"include_globs":{"type":"array","items":{"type":"string"}},"exclude_globs":{"type":"array","items":{"type":"string"}}},
		"required":["path","query"]}`
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
	if d := (Tool{}).Timeout(tooltest.Config(t, `{"timeouts":{"file_operations_seconds":7}}`)); d != 7*time.Second {
		t.Errorf("timeout %v", d)
	}
	if _, err := tool.NewRegistry(Tool{}); err != nil {
		t.Errorf("schema does not compile: %v", err)
	}
}

// TestExactOutput pins the whole output object (§3.5), byte for byte.
func TestExactOutput(t *testing.T) {
	root := tooltest.Build(t,
		tooltest.File("b.txt", "one\nTwo two\r\nthree\n"), tooltest.Dir("a"), tooltest.File("a/x.go", "two\n"),
		tooltest.File("a-b", "none"), tooltest.File(".hidden", "two"),
	)
	tests := []struct{ name, args, want string }{
		{"defaults, smart case (T-SF-01)", `{"path":".","query":"two"}`,
			`{"path":".","query":"two","mode":"exact","case":"smart","matches":[` +
				`{"path":"a/x.go","line":1,"column":1,"match_text":"two","line_text":"two","before":[],"after":[],"score":null},` +
				`{"path":"b.txt","line":2,"column":1,"match_text":"Two","line_text":"Two two","before":[],"after":[],"score":null},` +
				`{"path":"b.txt","line":2,"column":5,"match_text":"two","line_text":"Two two","before":[],"after":[],"score":null}],` +
				`"returned":3,"max_results":200,"truncated":false,"truncated_reason":null,` +
				`"stats":{"files_scanned":3,"files_matched":2,"matches_total":3,"elapsed_ms":0},"errors":[]}`},
		{"context, sensitive, subdirectory path", `{"path":" ./ ","query":"Two","context_lines":5,"case":"sensitive"}`,
			`{"path":".","query":"Two","mode":"exact","case":"sensitive","matches":[` +
				`{"path":"b.txt","line":2,"column":1,"match_text":"Two","line_text":"Two two","before":["one"],"after":["three"],"score":null}],` +
				`"returned":1,"max_results":200,"truncated":false,"truncated_reason":null,` +
				`"stats":{"files_scanned":3,"files_matched":1,"matches_total":1,"elapsed_ms":0},"errors":[]}`},
		{"fuzzy", `{"path":"a","query":"twx","mode":"fuzzy","max_results":7}`,
			`{"path":"a","query":"twx","mode":"fuzzy","case":"smart","matches":[],` +
				`"returned":0,"max_results":7,"truncated":false,"truncated_reason":null,` +
				`"stats":{"files_scanned":1,"files_matched":0,"matches_total":0,"elapsed_ms":0},"errors":[]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if out := mustRun(t, root, tooltest.Call{Args: tc.args}); out != tc.want {
				t.Errorf("got\n%s\nwant\n%s", out, tc.want)
			}
		})
	}
	out := mustRun(t, root, tooltest.Call{Args: `{"path":"a","query":"twx","mode":"fuzzy"}`,
		Config: `{"search_files":{"fuzzy_threshold":0.6}}`})
	if !strings.Contains(out, `"match_text":"tw","line_text":"two","before":[],"after":[],"score":0.6666666666666666}`) {
		t.Errorf("fuzzy score: %s", out)
	}
}

func TestValidation(t *testing.T) {
	root := tooltest.Build(t,
		tooltest.Dir("src"), tooltest.File("f", "x"), tooltest.Dir(".ssh"), tooltest.Link("loop", "loop"),
	)
	tests := []struct {
		name, args, config string
		kind               toolerr.Kind
		words              []string
	}{
		{"not an object", `[1]`, "", toolerr.BadArgs, []string{"object"}},
		{"missing path", `{"query":"x"}`, "", toolerr.BadArgs, []string{"path"}},
		{"missing query", `{"path":"."}`, "", toolerr.BadArgs, []string{"query"}},
		{"query not a string", `{"path":".","query":1}`, "", toolerr.BadArgs, []string{"query", "string"}},
		{"path null", `{"path":null,"query":"x"}`, "", toolerr.BadArgs, []string{"path"}},
		{"bad mode", `{"path":".","query":"x","mode":"glob"}`, "", toolerr.BadArgs, []string{"mode", "exact"}},
		{"bad case", `{"path":".","query":"x","case":"upper"}`, "", toolerr.BadArgs, []string{"case", "smart"}},
		{"recursive not bool", `{"path":".","query":"x","recursive":1}`, "", toolerr.BadArgs, []string{"recursive"}},
		{"max_results zero", `{"path":".","query":"x","max_results":0}`, "", toolerr.BadArgs, []string{"max_results"}},
		{"max_results 1.0", `{"path":".","query":"x","max_results":1.0}`, "", toolerr.BadArgs, []string{"max_results"}},
		{"context_lines negative", `{"path":".","query":"x","context_lines":-1}`, "", toolerr.BadArgs, []string{"context_lines"}},
		{"globs not an array", `{"path":".","query":"x","include_globs":"*.go"}`, "", toolerr.BadArgs, []string{"include_globs"}},
		{"glob null element", `{"path":".","query":"x","exclude_globs":[null]}`, "", toolerr.BadArgs, []string{"exclude_globs"}},
		{"VAL-01 blank path", `{"path":" \t","query":"x"}`, "", toolerr.BadArgs, []string{"path", "empty"}},
		{"VAL-02 empty query", `{"path":".","query":""}`, "", toolerr.BadArgs, []string{"query"}},
		{"VAL-02 blank query", `{"path":".","query":" \n\u3000"}`, "", toolerr.BadArgs, []string{"query"}},
		{"VAL-03", `{"path":".","query":"x","recursive":false,"max_depth":2}`, "", toolerr.BadArgs, []string{"recursive"}},
		{"VAL-04 max_results", `{"path":".","query":"x","max_results":201}`, "", toolerr.BadArgs, []string{"max_results", "200"}},
		{"VAL-04 per file", `{"path":".","query":"x","max_matches_per_file":21}`, "", toolerr.BadArgs, []string{"max_matches_per_file", "20"}},
		{"VAL-04 size", `{"path":".","query":"x","max_file_size_bytes":2000001}`, "", toolerr.BadArgs, []string{"max_file_size_bytes"}},
		{"VAL-04 files", `{"path":".","query":"x","max_files":5001}`, "", toolerr.BadArgs, []string{"max_files", "5000"}},
		{"VAL-04 config cap", `{"path":".","query":"x","max_results":11}`, `{"search_files":{"max_results":10}}`, toolerr.BadArgs, []string{"10"}},
		{"CFG-SF-02 max_depth", `{"path":".","query":"x","max_depth":13}`, "", toolerr.BadArgs, []string{"max_depth", "12"}},
		{"VAL-05 rg (T-SF-10)", `{"path":".","query":"x","mode":"fuzzy"}`, `{"search_files":{"backend":"rg"}}`, toolerr.BadArgs, []string{"fuzzy", "rg"}},
		{"VAL-05 ugrep", `{"path":".","query":"x","mode":"fuzzy"}`, `{"search_files":{"backend":"ugrep"}}`, toolerr.BadArgs, []string{"fuzzy", "ugrep"}},
		{"VAL-05 from mode_default", `{"path":".","query":"x"}`, `{"search_files":{"backend":"rg","mode_default":"fuzzy"}}`, toolerr.BadArgs, []string{"fuzzy"}},
		{"invalid regex (T-SF-02)", `{"path":".","query":"a(b","mode":"regex"}`, "", toolerr.BadArgs, []string{"regular expression", "missing closing )"}},
		{"regex backreference", `{"path":".","query":"(a)\\1","mode":"regex"}`, "", toolerr.BadArgs, []string{"regular expression", "escape"}},
		{"regex not checked in exact mode", `{"path":"nope","query":"a(b"}`, "", toolerr.ExecutionFailed, []string{"does not exist"}},
		{"invalid glob", `{"path":".","query":"x","include_globs":["a[b"]}`, "", toolerr.BadArgs, []string{"include_globs", "a[b"}},
		// I-SF-02: the first fault in order is reported.
		{"order 01 before 02", `{"path":"","query":""}`, "", toolerr.BadArgs, []string{"path"}},
		{"order 02 before 03", `{"path":".","query":" ","recursive":false,"max_depth":3}`, "", toolerr.BadArgs, []string{"query"}},
		{"order 03 before 04", `{"path":".","query":"x","recursive":false,"max_depth":3,"max_results":999}`, "", toolerr.BadArgs, []string{"recursive"}},
		{"order 04 before 05", `{"path":".","query":"x","mode":"fuzzy","max_results":999}`, `{"search_files":{"backend":"rg"}}`, toolerr.BadArgs, []string{"max_results"}},
		{"order regex before globs", `{"path":".","query":"(","mode":"regex","include_globs":["["]}`, "", toolerr.BadArgs, []string{"regular expression"}},
		{"args before sandbox", `{"path":"../x","query":"x","max_files":99999}`, "", toolerr.BadArgs, []string{"max_files"}},
		{"sandbox (T-SF-03)", `{"path":"../x","query":"x"}`, "", toolerr.SandboxViolation, nil},
		{"absolute", `{"path":"/etc","query":"x"}`, "", toolerr.SandboxViolation, nil},
		{"denied pattern", `{"path":".ssh","query":"x"}`, "", toolerr.SandboxViolation, nil},
		{"missing (T-SF-04)", `{"path":"nope","query":"x"}`, "", toolerr.ExecutionFailed, []string{"does not exist", "nope"}},
		{"below a file", `{"path":"f/x","query":"x"}`, "", toolerr.ExecutionFailed, []string{"does not exist"}},
		{"symlink loop", `{"path":"loop","query":"x"}`, "", toolerr.ExecutionFailed, []string{"does not exist"}},
		{"a file (FR-SF-VAL-07)", `{"path":"f","query":"x"}`, "", toolerr.ExecutionFailed, []string{"not a directory", "f"}},
		{"bad config type", `{"path":".","query":"x"}`, `{"search_files":{"max_results":"many"}}`, toolerr.ExecutionFailed, []string{"configuration"}},
		{"zero cap", `{"path":".","query":"x"}`, `{"search_files":{"max_files":0}}`, toolerr.ExecutionFailed, []string{"max_files"}},
		{"bad backend", `{"path":".","query":"x"}`, `{"search_files":{"backend":"grep"}}`, toolerr.ExecutionFailed, []string{"backend"}},
		{"bad threshold", `{"path":".","query":"x"}`, `{"search_files":{"fuzzy_threshold":1.5}}`, toolerr.ExecutionFailed, []string{"fuzzy_threshold"}},
		{"bad mode_default", `{"path":".","query":"x"}`, `{"search_files":{"mode_default":"glob"}}`, toolerr.ExecutionFailed, []string{"mode_default"}},
		{"bad case_default", `{"path":".","query":"x"}`, `{"search_files":{"case_default":"x"}}`, toolerr.ExecutionFailed, []string{"case_default"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := run(t, root, tooltest.Call{Args: tc.args, Config: tc.config})
			tooltest.ErrorKind(t, err, tc.kind, tc.words...)
		})
	}
	valid := []string{
		`{"path":".","query":"x","recursive":false,"max_depth":1}`,
		`{"path":".","query":"x","max_results":200,"max_matches_per_file":20,"max_file_size_bytes":2000000,"max_files":5000,"max_depth":12}`,
		`{"path":".","query":"x","mode":null,"case":null,"include_globs":null,"unknown":1}`,
		`{"path":"src","query":" x "}`,
		`{"path":".","query":"x","mode":"fuzzy"}`,
		`{"path":".","query":"x","include_globs":[],"exclude_globs":["**/*.go"]}`,
	}
	for _, args := range valid {
		if _, _, err := run(t, root, tooltest.Call{Args: args}); err != nil {
			t.Errorf("%s: %v", args, err)
		}
	}
}

func TestConfigDefaults(t *testing.T) {
	root := tooltest.Build(t, tooltest.File("a", "Foo foo\n"), tooltest.File(".h", "foo\n"), tooltest.Link("ln", "a"))
	tests := []struct {
		name, args, config string
		want               []string
		mode, caseMode     string
	}{
		{"built-in defaults", `{"path":".","query":"foo"}`, "", []string{"a:1:1:Foo", "a:1:5:foo"}, "exact", "smart"},
		{"mode and case defaults", `{"path":".","query":"f.o"}`, `{"search_files":{"mode_default":"regex","case_default":"sensitive"}}`,
			[]string{"a:1:5:foo"}, "regex", "sensitive"},
		{"hidden and symlink defaults", `{"path":".","query":"foo","case":"sensitive"}`,
			`{"search_files":{"include_hidden_default":true,"follow_symlinks_default":true}}`,
			[]string{".h:1:1:foo", "a:1:5:foo", "ln:1:5:foo"}, "exact", "sensitive"},
		{"explicit arguments win", `{"path":".","query":"foo","case":"sensitive","include_hidden":false,"follow_symlinks":false,"mode":"exact"}`,
			`{"search_files":{"include_hidden_default":true,"follow_symlinks_default":true,"mode_default":"regex"}}`,
			[]string{"a:1:5:foo"}, "exact", "sensitive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := mustRun(t, root, tooltest.Call{Args: tc.args, Config: tc.config})
			if got := hits(t, out); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if o := decode(t, out); o.Mode != tc.mode || o.Case != tc.caseMode {
				t.Errorf("mode/case %s/%s", o.Mode, o.Case)
			}
		})
	}
}

func TestApprovalSummary(t *testing.T) {
	tests := []struct {
		args, want string
		kind       toolerr.Kind
	}{
		{args: `{"path":" ./src//lib ","query":"TODO"}`, want: `Search src/lib for "TODO"`},
		{args: `{"path":".","query":"password=hunter2"}`, want: `Search . for "password=[REDACTED]"`},
		{args: `{"path":".","query":"` + strings.Repeat("q", 300) + `"}`, want: `Search . for "` + strings.Repeat("q", 185) + "…"},
		{args: `{"path":".","query":"("` + `,"mode":"regex"}`, kind: toolerr.BadArgs},
		{args: `{"path":".","query":" "}`, kind: toolerr.BadArgs},
	}
	for _, tc := range tests {
		got, err := Tool{}.ApprovalSummary(json.RawMessage(tc.args), tooltest.Config(t, ""))
		if tc.kind != "" {
			tooltest.ErrorKind(t, err, tc.kind)
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.args, got, err, tc.want)
		}
		if utf8.RuneCountInString(got) > tool.MaxSummaryChars {
			t.Errorf("summary too long")
		}
	}
}

func TestCancelled(t *testing.T) {
	root := tooltest.Build(t, tooltest.File("f", "x"))
	sb := tooltest.Sandbox(t, root)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := &tool.Ctx{FS: afero.NewOsFs(), Sandbox: sb, WorkingDir: root, MaxOutputBytes: 1 << 20, AvailableCapacityBytes: 1 << 20}
	_, err := Tool{}.Execute(ctx, json.RawMessage(`{"path":".","query":"x"}`), c)
	tooltest.ErrorKind(t, err, toolerr.Cancelled)
	dctx, dcancel := context.WithDeadline(context.Background(), time.Unix(1, 0))
	defer dcancel()
	_, err = Tool{}.Execute(dctx, json.RawMessage(`{"path":".","query":"x"}`), c)
	tooltest.ErrorKind(t, err, toolerr.Timeout)
	c.Sandbox = nil
	_, err = Tool{}.Execute(context.Background(), json.RawMessage(`{"path":".","query":"x"}`), c)
	tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "sandbox")
}

// TestElapsed checks that elapsed_ms is the call's wall-clock time in whole
// milliseconds (truncated).
func TestElapsed(t *testing.T) {
	root := tooltest.Build(t, tooltest.File("f", "x"))
	saved := now
	t.Cleanup(func() { now = saved })
	base := time.Unix(1000, 0)
	calls := 0
	now = func() time.Time { // start, then end 1234.9 ms later
		calls++
		if calls == 1 {
			return base
		}
		return base.Add(1234*time.Millisecond + 900*time.Microsecond)
	}
	out := mustRun(t, root, tooltest.Call{Args: `{"path":".","query":"x"}`})
	if o := decode(t, out); o.Stats.ElapsedMs != 1234 {
		t.Errorf("elapsed_ms %d", o.Stats.ElapsedMs)
	}
}

// TestBackend covers CFG-SF-03 at call time: every backend whose binary
// is installed searches and gives the same output (backend_test.go has the
// full comparison and the binary checks).
func TestBackend(t *testing.T) {
	root := tooltest.Build(t, tooltest.File("a", "hello\n"))
	args := `{"path":".","query":"hello"}`
	want := mustRun(t, root, tooltest.Call{Args: args, Config: `{"search_files":{"backend":"native"}}`})
	for _, b := range externalBackends(t) {
		if got := mustRun(t, root, tooltest.Call{Args: args, Config: `{"search_files":{"backend":"` + b + `"}}`}); got != want {
			t.Errorf("backend %s: %s, want %s", b, got, want)
		}
	}
}
