package report_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/forge-conform/forge-conform/conformance/check"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/diff"
	"github.com/forge-conform/forge-conform/conformance/report"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/conformance/turnlog"
	"github.com/forge-conform/forge-conform/internal/scratch"
	"github.com/forge-conform/forge-conform/spec/fcp"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

const unsupported = `unsupported: the implementation does not declare op "definitions"`

// TestMain keeps the tests' files on tmpfs where it can (internal/scratch).
func TestMain(m *testing.M) { os.Exit(scratch.Wrap(m).Run()) }

func kase(spec, name string, ids ...string) *corpus.Case {
	return &corpus.Case{Spec: spec, Name: name, IDs: ids, Op: "call", File: spec + "/cases.json", Line: 3}
}

func strp(s string) *string { return &s }

// sampleRun is a run with every case and ID status, built by hand. README's
// sample report is its text rendering (TestReadmeSample).
func sampleRun() *runner.Run {
	failCase := kase("list_directory", "dfs-truncation-4", "T-LD-05", "FR-LD-LST-07")
	failCase.Interpretations = []string{"I-LD-04"}
	failCase.Doc = "max_entries 4 keeps the first four entries of the depth-first order."
	failCase.Line = 176
	failCase.Expect = corpus.Expect{JSON: json.RawMessage(`{"entries":[{"path":"a"},{"path":"a/x"},{"path":"b"},{"path":"c"}],"returned":4,"truncated":true}`)}
	content := `{"path":".","entries":[{"path":"a"},{"path":"b"},{"path":"c"},{"path":"a/x"}],"returned":4,"truncated":true}`
	maxOut := int64(4096)
	return &runner.Run{
		Quotes:         sampleQuotes(),
		Implementation: fcp.Implementation{Name: "my-impl", Version: "1.2.3", Language: "rust"},
		Notes:          []string{"no golden files: exact-bytes checks are skipped"},
		Elapsed:        1234 * time.Millisecond,
		Conflicts:      []runner.Conflict{{ID: "I-LD-99", Title: "Two sentences disagree."}},
		Results: []*runner.Result{
			{Case: kase("list_directory", "default-args", "T-LD-01"), Status: runner.Passed, Duration: 3 * time.Millisecond,
				Notes: []check.Failure{{IDs: []string{"T-LD-01"}, Kind: check.KindGolden, Message: "differs from the reference", Severity: check.SeverityNote}}},
			{Case: failCase, Status: runner.Failed, Duration: 5 * time.Millisecond,
				Message: "expect [T-LD-05, FR-LD-LST-07]: result differs from the expectation",
				Request: &fcp.Request{FCP: 1, Op: "call", Case: "list_directory/dfs-truncation-4",
					Call: &fcp.Call{ID: "call_2", Name: "list_directory", Args: json.RawMessage(`{"path":".","recursive":true,"max_entries":4}`)},
					Ctx:  &fcp.Ctx{WorkingDir: "$ROOT", MaxOutputBytes: &maxOut}},
				Response: &fcp.Response{Seq: 2, OK: fcp.Bool(true), Content: &content, AllowTruncation: fcp.Bool(false)},
				Failures: []check.Failure{{IDs: []string{"T-LD-05", "FR-LD-LST-07"}, Kind: check.KindExpect,
					Message: "result differs from the expectation (only the fields the case lists are compared)",
					Diff:    "--- want\n+++ got\n@@ -4,13 +4,13 @@\n       \"path\": \"a\"\n     },\n     {\n-      \"path\": \"a/x\"\n+      \"path\": \"b\"\n     },\n     {\n-      \"path\": \"b\"\n+      \"path\": \"c\"\n     },\n     {\n-      \"path\": \"c\"\n+      \"path\": \"a/x\"\n     }\n   ],\n   \"returned\": 4,\n"}},
				Warnings: []check.Failure{{IDs: []string{"FR-LD-OUT-09"}, Kind: check.KindInvariant, Message: "entries SHOULD be sorted", Severity: check.SeverityWarn}}},
			{Case: kase("list_directory", "not-a-dir", "T-LD-02"), Status: runner.Errored,
				Message: "fcp protocol error (timeout): timed out after 10s waiting for the response to seq 3 (op call)", Stderr: "panic: boom\n\tgoroutine 1\x00\x1b[0m"},
			sampleTurn(),
			{Case: kase("list_directory", "definitions", "FR-LD-DEF-01"), Status: runner.Skipped, Message: unsupported},
			{Case: kase("list_directory", "definitions-2", "FR-LD-DEF-01"), Status: runner.Skipped, Message: unsupported},
			{Case: kase("list_directory", "unselected", "FR-LD-DEF-01"), Status: runner.Skipped, Message: "not selected by --run/--skip", Unselected: true},
			{Case: kase("codex_list_dir", "non-utf8", "CX-LD-FMT-01"), Status: runner.Skipped, Message: "expected failure (skip file line 2: WTF-8): boom"},
			{Case: kase("codex_list_dir", "ctrl", "CX-LD-FMT-02"), Status: runner.Failed,
				Message:  "invariant [CX-LD-FMT-02]: line \x1b[31m\x07 bad\x00",
				Failures: []check.Failure{{IDs: []string{"CX-LD-FMT-02"}, Kind: check.KindInvariant, Message: "line \"\x1b[31m\x07\" is indented\x0b"}}},
		},
		IDs: []runner.IDResult{
			{Spec: "list_directory", ID: "T-LD-01", Status: runner.Passed, Cases: []string{"list_directory/default-args"}, Testable: true, Level: "MUST", Summary: "Default arguments list the root."},
			{Spec: "list_directory", ID: "T-LD-05", Status: runner.Failed, Cases: []string{"list_directory/dfs-truncation-4"}, Testable: true, Level: "MUST", Summary: "max_entries truncates."},
			{Spec: "list_directory", ID: "FR-LD-LST-07", Status: runner.Failed, Cases: []string{"list_directory/dfs-truncation-4"}, Testable: true, Level: "MUST", Summary: "Stop at max_entries."},
			{Spec: "list_directory", ID: "T-LD-02", Status: runner.Errored, Cases: []string{"list_directory/not-a-dir"}, Testable: true, Level: "MUST", Summary: "A file is not a directory."},
			{Spec: "list_directory", ID: "FR-LD-DEF-01", Status: runner.Skipped, Cases: []string{"list_directory/definitions", "list_directory/definitions-2"}, Testable: true, Level: "MUST", Summary: "Named list_directory."},
			{Spec: "list_directory", ID: "T-LD-14", Status: runner.Uncovered, Testable: true, Level: "MUST", Summary: "Output truncation overrides."},
			{Spec: "list_directory", ID: "C-01", Status: runner.Untestable, Testable: false, Level: "MUST", Summary: "Cross-platform."},
			{Spec: "codex_list_dir", ID: "CX-LD-FMT-01", Status: runner.Skipped, Cases: []string{"codex_list_dir/non-utf8"}, Testable: true, Level: "MUST", Summary: "Header line."},
			{Spec: "tool_executor", ID: "T-CAN-01", Status: runner.Failed, Cases: []string{"tool_executor/turn-cancel"}, Testable: true, Level: "MUST", Summary: "Cancelling marks the remaining calls cancelled."},
			{Spec: "codex_list_dir", ID: "CX-LD-FMT-02", Status: runner.Failed, Cases: []string{"codex_list_dir/ctrl"}, Testable: true, Level: "MUST", Summary: "Indentation."},
		},
	}
}

// sampleTurn is a failed turn case: the user cancels during c2, and the
// implementation runs c3 anyway.
func sampleTurn() *runner.Result {
	c := kase("tool_executor", "turn-cancel", "T-CAN-01")
	c.Op, c.Line = "turn", 237
	c.Doc = "Cancel during c2: c2 and c3 become 'Cancelled by user'."
	ok, yes := true, true
	line := func(l fcp.TurnLine) turnlog.Entry { return turnlog.Entry{Kind: turnlog.Event, Line: &l} }
	msg := func(m fcp.Message) turnlog.Entry { return line(fcp.TurnLine{Event: fcp.EventMessage, Message: &m}) }
	turn := int64(1)
	log := &turnlog.Log{Entries: []turnlog.Entry{
		msg(fcp.Message{Type: fcp.MessageUser, Text: "do it"}),
		line(fcp.TurnLine{Event: fcp.EventModelRequest, Iteration: fcp.Int(0), Tools: &[]fcp.ToolDescription{{Name: "run_command"}}, Messages: &[]fcp.Message{{Type: "user"}}}),
		msg(fcp.Message{Type: fcp.MessageToolUse, ID: "c1", Name: "run_command", Args: json.RawMessage(`{"command":"echo one"}`)}),
		msg(fcp.Message{Type: fcp.MessageToolUse, ID: "c2", Name: "run_command", Args: json.RawMessage(`{"command":"sleep 30"}`)}),
		msg(fcp.Message{Type: fcp.MessageToolUse, ID: "c3", Name: "run_command", Args: json.RawMessage(`{"command":"echo three"}`)}),
		line(fcp.TurnLine{Event: fcp.EventStarted, ID: "c1", Name: "run_command"}),
		line(fcp.TurnLine{Event: fcp.EventStdout, ID: "c1", Chunk: "one\n"}),
		line(fcp.TurnLine{Event: fcp.EventCompleted, ID: "c1", Name: "run_command"}),
		msg(fcp.Message{Type: fcp.MessageToolResult, ID: "c1", Content: strp("one\n"), IsError: fcp.Bool(false)}),
		line(fcp.TurnLine{Event: fcp.EventStarted, ID: "c2", Name: "run_command"}),
		{Kind: turnlog.Sent, Req: &fcp.TurnRequest{Op: fcp.OpCancel, Turn: &turn}},
		line(fcp.TurnLine{Event: fcp.EventCompleted, ID: "c2", Name: "run_command"}),
		msg(fcp.Message{Type: fcp.MessageToolResult, ID: "c2", Content: strp("Cancelled by user"), IsError: &yes}),
		line(fcp.TurnLine{Event: fcp.EventStarted, ID: "c3", Name: "run_command"}),
		line(fcp.TurnLine{Event: fcp.EventStdout, ID: "c3", Chunk: "three\n"}),
		line(fcp.TurnLine{Event: fcp.EventCompleted, ID: "c3", Name: "run_command"}),
		msg(fcp.Message{Type: fcp.MessageToolResult, ID: "c3", Content: strp("three\n"), IsError: fcp.Bool(false)}),
		{Kind: turnlog.Final, Line: &fcp.TurnLine{OK: &ok, End: fcp.EndCancelled}},
	}}
	content := "(the turn's golden rendering)"
	return &runner.Result{Case: c, Status: runner.Failed, Duration: 40 * time.Millisecond,
		Message:  "expect [T-CAN-01]: result of call c3 differs from the expected content",
		Request:  &fcp.Request{FCP: 1, Op: fcp.OpTurn, Case: "tool_executor/turn-cancel", Ctx: &fcp.Ctx{WorkingDir: "$ROOT"}},
		Response: &fcp.Response{OK: &ok, Content: &content}, Turn: log,
		Failures: []check.Failure{{IDs: []string{"T-CAN-01"}, Kind: check.KindExpect, Message: "result of call c3 differs from the expected content",
			Diff: "--- want\n+++ got\n@@ -1,1 +1,1 @@\n-Cancelled by user\n+three\n"}}}
}

var update = flag.Bool("update", false, "rewrite testdata/text.golden and README's sample report")

// The default report of the sample run, byte for byte.
func TestTextGolden(t *testing.T) {
	var buf bytes.Buffer
	report.Text(&buf, sampleRun(), report.TextOptions{})
	const path = "testdata/text.golden"
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if d := diff.Text(string(want), buf.String()); d != "" {
		t.Errorf("the report differs from %s (go test -update rewrites it after review):\n%s", path, d)
	}
}

func TestText(t *testing.T) {
	var buf bytes.Buffer
	report.Text(&buf, sampleRun(), report.TextOptions{})
	out := buf.String()
	tests := []struct {
		name, want string
	}{
		{"header", "forge-conform: checking my-impl 1.2.3 (rust)\n"},
		{"notes", "note: no golden files: exact-bytes checks are skipped\n"},
		{"failed case first, where defined", "\nFAILED list_directory/dfs-truncation-4  (conformance/cases/list_directory/cases.json:176)\n"},
		{"IDs and interpretations", "  IDs: T-LD-05 FR-LD-LST-07; relies on I-LD-04 (spec/INTERPRETATIONS.md)\n"},
		{"doc", "  doc: max_entries 4 keeps"},
		{"request with $ROOT", "  request: list_directory {\"path\":\".\",\"recursive\":true,\"max_entries\":4}\n    ctx: {\"working_dir\":\"$ROOT\",\"max_output_bytes\":4096}\n"},
		{"response", "  response: ok, 108 bytes: {\"path\":\".\""},
		{"wanted", "  wanted: ok, content matching (listed fields only) {\"entries\":"},
		{"unified diff", "    --- want\n    +++ got\n    @@ -4,13 +4,13 @@\n"},
		{"errored case", "\nERRORED list_directory/not-a-dir  (conformance/cases/list_directory/cases.json:3)\n  IDs: T-LD-02\n  error: fcp protocol error (timeout): timed out after 10s waiting for the response to seq 3 (op call)\n  hint: no answer to op call within the timeout: the implementation may hang on this case, or buffer its output (flush after each line)\n  stderr:\n    panic: boom\n    \tgoroutine 1\\x00\\x1b[0m\n"},
		{"warnings after failures", "\nwarnings: 1 "},
		{"warning block", "  WARN list_directory/dfs-truncation-4  invariant [FR-LD-OUT-09]: entries SHOULD be sorted\n"},
		{"notes counted", "\nnotes: 1 differences from the reference where the spec leaves the bytes open (-v lists them)\n"},
		{"conflicts", "\nspec conflict touched: I-LD-99 "},
		{"ID table", "\nIDs needing attention:\n  FAILED     T-LD-05          list_directory  max_entries truncates."},
		{"uncovered ID", "  UNCOVERED  T-LD-14          list_directory  Output truncation overrides.\n"},
		{"skip reasons grouped", "skipped 2 case(s): " + unsupported + "\n"},
		{"turn transcript, an event a line", "  turn (18 events):\n      1 message user \"do it\"\n      2 model_request #0 1 tools, 1 messages\n"},
		{"tool calls with their args", "      3 message tool_use c1 run_command {\"command\":\"echo one\"}\n"},
		{"what the runner sent", "     11 → cancel\n"},
		{"results with is_error", "     13 message tool_result c2 is_error=true \"Cancelled by user\"\n"},
		{"the final response", "     18 final ok end=cancelled\n"},
		{"ID counts", "IDs: 1 passed, 4 failed, 1 errored, 2 skipped, 1 uncovered, 1 untestable\n"},
		{"case counts", "cases: 1 passed, 3 failed, 3 skipped, 1 errored (1 not selected) in 1.234s\n"},
	}
	for _, tt := range tests {
		if !strings.Contains(out, tt.want) {
			t.Errorf("%s: the report lacks %q\nreport:\n%s", tt.name, tt.want, out)
		}
	}
	for _, absent := range []string{"PASSED", "C-01", "not selected by", "NOTE ", "\x1b", "\x07"} {
		if strings.Contains(out, absent) {
			t.Errorf("a non-verbose report shows only what needs attention, but it contains %q:\n%s", absent, out)
		}
	}
	if i, j := strings.Index(out, "FAILED list_directory/dfs"), strings.Index(out, "IDs needing attention"); i > j {
		t.Errorf("failing cases must come before the ID table:\n%s", out)
	}
}

func TestTextVerbose(t *testing.T) {
	var buf bytes.Buffer
	report.Text(&buf, sampleRun(), report.TextOptions{Verbose: true})
	out := buf.String()
	for _, want := range []string{
		"  PASSED     T-LD-01          list_directory  Default arguments list the root.",
		"  UNTESTABLE C-01             list_directory  Cross-platform.",
		"  NOTE list_directory/default-args  golden [T-LD-01]: differs from the reference\n",
		"spec conflict touched: I-LD-99 Two sentences disagree. (",
		"PASSED   list_directory/default-args (",
		"FAILED   list_directory/dfs-truncation-4 (",
		"ERRORED  list_directory/not-a-dir (",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("verbose report lacks %q:\n%s", want, out)
		}
	}
}

// The first case of each cause (a charged ID with a kind of check) gets a
// full block, however many came before; later cases of a cause one line
// each, after the full blocks, with their first change.
func TestTextBriefBlocks(t *testing.T) {
	inv := func(name, msg string) *runner.Result {
		return &runner.Result{Case: kase("list_directory", name, "T-LD-06"), Status: runner.Failed,
			Failures: []check.Failure{{IDs: []string{"FR-LD-OUT-03"}, Kind: check.KindInvariant, Message: msg}}}
	}
	exp := func(name, d string) *runner.Result {
		return &runner.Result{Case: kase("list_directory", name, "T-LD-01"), Status: runner.Failed,
			Failures: []check.Failure{{IDs: []string{"T-LD-01"}, Kind: check.KindExpect, Message: "result differs (only listed fields)", Diff: d}}}
	}
	run := &runner.Run{Results: []*runner.Result{
		inv("budget-1", "output is 829 bytes, over effective_max 828"),
		inv("budget-2", "output is 111 bytes, over effective_max 110"),
		exp("symlink", "--- want\n+++ got\n@@ -1,3 +1,3 @@\n {\n-  \"type\": \"symlink\"\n+  \"type\": \"file\"\n }\n"),
		exp("order", "--- want\n+++ got\n@@ -1,3 +1,3 @@\n [\n-  \"b\"\n+  \"c\"\n ]\n"),
		exp("extra", "--- want\n+++ got\n@@ -1,3 +1,6 @@\n [\n+  {\n+    \"x\": 1\n+  }\n ]\n"),
		inv("budget-3", "output is 222 bytes, over effective_max 221"),
		{Case: kase("list_directory", "other-bug", "T-LD-07"), Status: runner.Failed,
			Failures: []check.Failure{{IDs: []string{"T-LD-07"}, Kind: check.KindExpect, Message: "a third bug"}}},
	}}
	var buf bytes.Buffer
	report.Text(&buf, run, report.TextOptions{})
	out := buf.String()
	for _, want := range []string{
		"FAILED list_directory/budget-2  (conformance/cases/list_directory/cases.json:3): like budget-1: invariant [FR-LD-OUT-03]: output is 111 bytes, over effective_max 110\n",
		"\nFAILED list_directory/symlink  (conformance/cases/list_directory/cases.json:3)\n  IDs: T-LD-01\n",
		"\nFAILED list_directory/other-bug  (conformance/cases/list_directory/cases.json:3)\n  IDs: T-LD-07\n",
		"\nfailing only like a case above (4):\n",
		"FAILED list_directory/order  (conformance/cases/list_directory/cases.json:3): like symlink: expect [T-LD-01]: result differs; want \"b\", got \"c\"\n",
		"FAILED list_directory/extra  (conformance/cases/list_directory/cases.json:3): like symlink: expect [T-LD-01]: result differs; extra \"x\": 1\n",
		"FAILED list_directory/budget-3  (conformance/cases/list_directory/cases.json:3): like budget-1: invariant [FR-LD-OUT-03]: output is 222 bytes, over effective_max 221\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
}

// A definitions response is shown as received, every definition, though
// the checks saw only the spec's own; a long response is cut in the middle
// with its size, and not shown twice.
func TestTextResponseAsReceived(t *testing.T) {
	defs := &fcp.Response{Seq: 1, OK: fcp.Bool(true), Definitions: []fcp.Definition{{Name: "list_directory"}, {Name: "read_file"}, {Name: "write_file"}}}
	c := kase("search_files", "definition", "FR-SF-DEF-01")
	c.Op = "definitions"
	big := `{"text":"` + strings.Repeat("x", 8000) + `"}`
	run := &runner.Run{Results: []*runner.Result{
		{Case: c, Status: runner.Failed, Response: &fcp.Response{Seq: 1, OK: fcp.Bool(true)}, Received: defs,
			Failures: []check.Failure{{IDs: []string{"FR-SF-DEF-01"}, Kind: check.KindExpect, Message: "no definition of search_files"}}},
		{Case: kase("search_files", "big", "FR-SF-OUT-01"), Status: runner.Failed, Response: &fcp.Response{OK: fcp.Bool(true), Content: &big},
			Failures: []check.Failure{{IDs: []string{"FR-SF-OUT-01"}, Kind: check.KindExpect, Message: "want an error, got a successful result\n" + big}}},
	}}
	var buf bytes.Buffer
	report.Text(&buf, run, report.TextOptions{})
	out := buf.String()
	for _, want := range []string{
		"  response: ok, 3 definitions: list_directory, read_file, write_file\n",
		"  response: ok, 8011 bytes: {\"text\":\"xxx",
		"… [8011 bytes] …",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if len(out) > 2000 {
		t.Errorf("the report is %d bytes: the 8 KB response is not cut", len(out))
	}
	if rep := report.BuildJSON(run); len(rep.Cases[0].Response.Definitions) != 3 {
		t.Errorf("the JSON report's response has %d definitions, want the 3 received", len(rep.Cases[0].Response.Definitions))
	}
}

func TestTextEmptyImplementation(t *testing.T) {
	var buf bytes.Buffer
	report.Text(&buf, &runner.Run{}, report.TextOptions{})
	out := buf.String()
	for _, want := range []string{"forge-conform: checking -  (-)\n", "IDs: 0 passed, 0 failed\n", "cases: 0 passed, 0 failed, 0 skipped, 0 errored in 0s\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("report of an empty run lacks %q:\n%s", want, out)
		}
	}
}

// An invariant tagged with an ID the failing case does not cover fails that
// ID (runner.Aggregate), so the report must show which case broke it.
func TestTextShowsInvariantFailureOutsideTheCaseIDs(t *testing.T) {
	run := &runner.Run{
		Results: []*runner.Result{{Case: kase("list_directory", "default-args", "T-LD-01"), Status: runner.Failed, Message: "invariant",
			Failures: []check.Failure{{IDs: []string{"FR-LD-OUT-02a"}, Kind: check.KindInvariant, Message: "insignificant whitespace at byte 8"}}}},
		IDs: []runner.IDResult{
			{Spec: "list_directory", ID: "T-LD-01", Status: runner.Passed, Cases: []string{"list_directory/default-args"}, Testable: true},
			{Spec: "list_directory", ID: "FR-LD-OUT-02a", Status: runner.Failed, Testable: true},
		},
	}
	var buf bytes.Buffer
	report.Text(&buf, run, report.TextOptions{})
	out := buf.String()
	if !strings.Contains(out, "invariant [FR-LD-OUT-02a]: insignificant whitespace at byte 8") || !strings.Contains(out, "FR-LD-OUT-02a    list_directory                                                            default-args") {
		t.Errorf("the report does not say which case broke FR-LD-OUT-02a and how:\n%s", out)
	}
}

func TestBuildJSON(t *testing.T) {
	rep := report.BuildJSON(sampleRun())
	if d := cmp.Diff(report.JSONSummary{Passed: 1, Failed: 3, Skipped: 3, Errored: 1, Warnings: 1, Notes: 1}, rep.Summary); d != "" {
		t.Errorf("summary differs (-want +got):\n%s", d)
	}
	if rep.ElapsedMs != 1234 || rep.Implementation.Name != "my-impl" || len(rep.Notes) != 1 {
		t.Errorf("implementation %+v, notes %v, elapsed %d", rep.Implementation, rep.Notes, rep.ElapsedMs)
	}
	if len(rep.Cases) != 8 || len(rep.IDs) != 10 {
		t.Fatalf("%d cases and %d ids, want 8 (the unselected case left out) and 10", len(rep.Cases), len(rep.IDs))
	}
	turn := rep.Cases[3]
	if turn.Name != "tool_executor/turn-cancel" || len(turn.Turn) != 18 || turn.Response == nil || turn.Response.Content != nil {
		t.Errorf("a turn case's transcript is turn, its response only ok: %+v", turn)
	} else if ev := turn.Turn[12]; ev.Event != "message" || ev.Type != "tool_result" || ev.ID != "c2" || ev.IsError == nil || !*ev.IsError || ev.Text != `"Cancelled by user"` {
		t.Errorf("event 13 is c2's result, got %+v", ev)
	} else if ev := turn.Turn[10]; ev.Event != "cancel" || !ev.Sent {
		t.Errorf("event 11 is the cancel the runner sent, got %+v", ev)
	}
	fail := rep.Cases[1]
	if fail.Name != "list_directory/dfs-truncation-4" || fail.File != "list_directory/cases.json" || fail.Line != 176 || fail.Doc == "" ||
		fail.Request == nil || fail.Request.Ctx.WorkingDir != "$ROOT" || fail.Response == nil || *fail.Response.Content == "" ||
		len(fail.Failures) != 1 || !strings.HasPrefix(fail.Failures[0].Diff, "--- want\n+++ got\n") || len(fail.Warnings) != 1 {
		t.Errorf("failed case lacks its evidence: %+v", fail)
	}
	if rep.Cases[0].Request != nil || rep.Cases[0].Response != nil || len(rep.Cases[0].Notes) != 1 {
		t.Errorf("a passed case carries no request or response, but its notes: %+v", rep.Cases[0])
	}
	if rep.Summary.Warnings != 1 || rep.Summary.Notes != 1 {
		t.Errorf("summary counts %d warnings and %d notes, want 1 and 1", rep.Summary.Warnings, rep.Summary.Notes)
	}
	if len(rep.Conflicts) != 1 || rep.Conflicts[0].ID != "I-LD-99" || len(rep.Conflicts[0].Cases) != 0 {
		t.Errorf("conflicts = %+v", rep.Conflicts)
	}
	var statuses []runner.Status
	for _, c := range rep.Cases {
		statuses = append(statuses, c.Status)
	}
	if d := cmp.Diff([]runner.Status{"passed", "failed", "errored", "failed", "skipped", "skipped", "skipped", "failed"}, statuses); d != "" {
		t.Errorf("case statuses differ (-want +got):\n%s", d)
	}
	uncovered := rep.IDs[5]
	if d := cmp.Diff(report.JSONID{ID: "T-LD-14", Spec: "list_directory", Level: "MUST", Status: "uncovered", Cases: []string{}, Testable: true}, uncovered); d != "" {
		t.Errorf("uncovered ID differs (-want +got):\n%s", d)
	}
	if got := report.BuildJSON(&runner.Run{}); got.Notes == nil {
		t.Error("notes must be [] rather than null")
	}
}

func TestJSONOutput(t *testing.T) {
	var buf bytes.Buffer
	if err := report.JSON(&buf, sampleRun()); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("the JSON report does not parse: %v\n%s", err, buf.String())
	}
	// The field names are a user-facing interface.
	wantKeys := map[string][]string{
		"":               {"cases", "conflicts", "elapsed_ms", "ids", "implementation", "notes", "summary"},
		"implementation": {"language", "name", "version"},
		"summary":        {"errored", "failed", "notes", "passed", "skipped", "warnings"},
		"cases[1]":       {"doc", "duration_us", "failures", "file", "ids", "interpretations", "line", "message", "name", "request", "response", "spec", "status", "warnings"},
		"cases[2]":       {"duration_us", "file", "hint", "ids", "line", "message", "name", "spec", "status", "stderr"},
		"ids[0]":         {"cases", "id", "level", "spec", "status", "testable"},
		"failure":        {"diff", "ids", "kind", "message", "requirements"},
	}
	cases := doc["cases"].([]any)
	objects := map[string]map[string]any{
		"":               doc,
		"implementation": doc["implementation"].(map[string]any),
		"summary":        doc["summary"].(map[string]any),
		"cases[1]":       cases[1].(map[string]any),
		"cases[2]":       cases[2].(map[string]any),
		"ids[0]":         doc["ids"].([]any)[0].(map[string]any),
		"failure":        cases[1].(map[string]any)["failures"].([]any)[0].(map[string]any),
	}
	for name, keys := range wantKeys {
		var got []string
		for k := range objects[name] {
			got = append(got, k)
		}
		if d := cmp.Diff(keys, sortedCopy(got)); d != "" {
			t.Errorf("keys of %q differ (-want +got):\n%s", name, d)
		}
	}
	if s := cases[2].(map[string]any)["status"]; s != "errored" {
		t.Errorf("status = %v, want errored", s)
	}
	if !strings.Contains(buf.String(), "\n  \"implementation\"") {
		t.Errorf("the JSON report is not indented:\n%s", buf.String())
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Props    []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Props     []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
			Failure   *junitText `xml:"failure"`
			Error     *junitText `xml:"error"`
			Skipped   *junitText `xml:"skipped"`
			SystemOut string     `xml:"system-out"`
			SystemErr string     `xml:"system-err"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

type junitText struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

func TestJUnit(t *testing.T) {
	run := sampleRun()
	run.Implementation.Name = "impl\x01name"
	var buf bytes.Buffer
	if err := report.JUnit(&buf, run); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.HasPrefix(out, xml.Header) {
		t.Errorf("JUnit output does not start with the XML header:\n%s", out)
	}
	var doc junitDoc
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("JUnit output is not well-formed XML: %v\n%s", err, out)
	}
	if doc.Tests != 8 || doc.Failures != 3 || doc.Errors != 1 || doc.Skipped != 3 {
		t.Errorf("testsuites counts tests=%d failures=%d errors=%d skipped=%d, want 8 3 1 3", doc.Tests, doc.Failures, doc.Errors, doc.Skipped)
	}
	if len(doc.Suites) != 3 || doc.Suites[0].Name != "list_directory" || doc.Suites[1].Name != "tool_executor" || doc.Suites[2].Name != "codex_list_dir" {
		t.Fatalf("want one suite per spec in order of first appearance, got %+v", doc.Suites)
	}
	if body := doc.Suites[1].Cases[0].Failure.Body; !strings.Contains(body, "turn (18 events):\n    1 message user \"do it\"\n") {
		t.Errorf("the turn case's failure lacks its transcript:\n%s", body)
	}
	ld, cx := doc.Suites[0], doc.Suites[2]
	if ld.Tests != 5 || ld.Failures != 1 || ld.Errors != 1 || ld.Skipped != 2 || cx.Tests != 2 || cx.Failures != 1 || cx.Skipped != 1 {
		t.Errorf("suite counts: %s %d/%d/%d/%d, %s %d/%d/%d", ld.Name, ld.Tests, ld.Failures, ld.Errors, ld.Skipped, cx.Name, cx.Tests, cx.Failures, cx.Skipped)
	}
	fail := ld.Cases[1]
	if fail.Name != "dfs-truncation-4" || fail.Classname != "list_directory" || fail.Failure == nil {
		t.Fatalf("failed testcase = %+v", fail)
	}
	var props []string
	for _, p := range fail.Props {
		props = append(props, p.Name+"="+p.Value)
	}
	if d := cmp.Diff([]string{"id=T-LD-05", "id=FR-LD-LST-07", "interpretation=I-LD-04", "file=conformance/cases/list_directory/cases.json:176"}, props); d != "" {
		t.Errorf("properties differ (-want +got):\n%s", d)
	}
	for _, want := range []string{"expect [T-LD-05, FR-LD-LST-07]: result differs", "+      \"path\": \"b\"", "request: {\"fcp\":1,", "response: {\"seq\":2,"} {
		if !strings.Contains(fail.Failure.Body, want) {
			t.Errorf("failure body lacks %q:\n%s", want, fail.Failure.Body)
		}
	}
	if ld.Cases[0].Failure != nil || ld.Cases[0].Error != nil || ld.Cases[0].Skipped != nil {
		t.Errorf("a passed testcase carries a verdict element: %+v", ld.Cases[0])
	}
	errCase := ld.Cases[2]
	if errCase.Error == nil || !strings.HasPrefix(errCase.Error.Message, "fcp protocol error (timeout)") || errCase.SystemErr != "panic: boom\n\tgoroutine 1??[0m" ||
		!strings.Contains(errCase.Error.Body, "hint: no answer to op call within the timeout") {
		t.Errorf("errored testcase = %+v (system-err %q)", errCase, errCase.SystemErr)
	}
	if s := ld.Cases[3].Skipped; s == nil || s.Message != unsupported {
		t.Errorf("skipped testcase = %+v", ld.Cases[3])
	}
	ctrl := cx.Cases[1]
	if ctrl.Failure == nil || ctrl.Failure.Message != "invariant [CX-LD-FMT-02]: line ?[31m? bad?" {
		t.Errorf("control characters in the failure message must be replaced by ?: %+v", ctrl.Failure)
	}
	if ctrl.Failure != nil && !strings.Contains(ctrl.Failure.Body, `line "?[31m?" is indented?`) {
		t.Errorf("control characters in the failure body must be replaced by ?: %q", ctrl.Failure.Body)
	}
	for _, c := range []string{"\x00", "\x01", "\x07", "\x0b", "\x1b"} {
		if strings.Contains(out, c) {
			t.Errorf("JUnit output contains the control character %q", c)
		}
	}
}

// Warnings, notes and the conflicts a case touches reach the JUnit report
// and the JSON report's conflicts name the cases.
func TestSoftFailuresAndConflicts(t *testing.T) {
	run := sampleRun()
	run.Results[0].Case.Interpretations = []string{"I-LD-99"}
	var buf bytes.Buffer
	if err := report.JUnit(&buf, run); err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("JUnit output is not well-formed XML: %v\n%s", err, buf.String())
	}
	ld := doc.Suites[0]
	var suiteProps, caseProps []string
	for _, p := range ld.Props {
		suiteProps = append(suiteProps, p.Name+"="+p.Value)
	}
	for _, p := range ld.Cases[0].Props {
		caseProps = append(caseProps, p.Name+"="+p.Value)
	}
	if d := cmp.Diff([]string{"warnings=1", "notes=1"}, suiteProps); d != "" {
		t.Errorf("suite properties differ (-want +got):\n%s", d)
	}
	if !slices.Contains(caseProps, "conflict=I-LD-99 Two sentences disagree.") {
		t.Errorf("the case that touches I-LD-99 lacks its conflict property: %v", caseProps)
	}
	if got := ld.Cases[0].SystemOut; !strings.Contains(got, "note golden [T-LD-01]: differs from the reference") {
		t.Errorf("passed case's system-out lacks its note: %q", got)
	}
	if got := ld.Cases[1].SystemOut; !strings.Contains(got, "warning invariant [FR-LD-OUT-09]: entries SHOULD be sorted") {
		t.Errorf("failed case's system-out lacks its warning: %q", got)
	}
	rep := report.BuildJSON(run)
	if d := cmp.Diff([]string{"list_directory/default-args"}, rep.Conflicts[0].Cases); d != "" {
		t.Errorf("conflict cases differ (-want +got):\n%s", d)
	}
}

func TestJUnitEmptyRun(t *testing.T) {
	var buf bytes.Buffer
	if err := report.JUnit(&buf, &runner.Run{}); err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil || doc.Tests != 0 || len(doc.Suites) != 0 {
		t.Errorf("empty run: %v, %+v\n%s", err, doc, buf.String())
	}
}

// The JSON report matches its documented shape, spec/report.schema.json.
func TestJSONMatchesSchema(t *testing.T) {
	comp := jsonschema.NewCompiler()
	comp.Draft = jsonschema.Draft2020
	raw, err := os.ReadFile("../../spec/report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := comp.AddResource("report.schema.json", bytes.NewReader(raw)); err != nil {
		t.Fatal(err)
	}
	sch, err := comp.Compile("report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, run := range map[string]*runner.Run{"sample": sampleRun(), "empty": {}} {
		var buf bytes.Buffer
		if err := report.JSON(&buf, run); err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(doc); err != nil {
			t.Errorf("%s: the JSON report does not match spec/report.schema.json: %v", name, err)
		}
	}
}

// README's sample report is the default rendering of sampleRun.
func TestReadmeSample(t *testing.T) {
	const path = "../../README.md"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- sample-report -->\n```\n", "```\n<!-- /sample-report -->"
	doc := string(raw)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the sample block %q ... %q", begin, end)
	}
	var buf bytes.Buffer
	report.Text(&buf, sampleRun(), report.TextOptions{})
	got := doc[i+len(begin) : j]
	if *update {
		doc = doc[:i+len(begin)] + buf.String() + doc[j:]
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if d := diff.Text(buf.String(), got); d != "" {
		t.Errorf("README's sample report is out of date (go test ./conformance/report -update rewrites it):\n%s", d)
	}
}

// An errored turn shows its last events and what they usually mean.
func TestTextErroredTurn(t *testing.T) {
	r := sampleTurn()
	r.Status, r.Failures = runner.Errored, nil
	r.Message = "fcp protocol error (timeout): timed out after 10s waiting for the end of turn seq 1 (last event read: started; 0 requests unanswered)"
	r.Turn.Entries = r.Turn.Entries[:10] // up to "started c2"
	var buf bytes.Buffer
	report.Text(&buf, &runner.Run{Results: []*runner.Result{r}}, report.TextOptions{})
	out := buf.String()
	for _, want := range []string{
		"  turn (10 events, the last 8):\n      3 message tool_use c1",
		"     10 started c2 run_command\n  hint: timed out after the `started` event of a run_command: the command may be waiting on stdin left open, or ignoring its timeout\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
}
