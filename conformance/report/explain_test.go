package report_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/conformance/report"
	"github.com/forge-conform/forge-conform/conformance/runner"
)

// A run that stopped early is the cause, once, and how to reproduce it: no
// case blocks, no ID table, no counts; the JSON report says it too.
func TestTextStopped(t *testing.T) {
	cause := "fcp protocol error (crash): implementation exited (exit status 0) before answering seq 0"
	run := &runner.Run{
		Notes: []string{"hello failed (" + cause + "): treating the implementation as declaring every tool and only the op call", "other note"},
		Results: []*runner.Result{
			{Case: kase("list_directory", "a", "T-LD-01"), Status: runner.Errored, Message: cause},
			{Case: kase("list_directory", "b", "T-LD-01"), Status: runner.Skipped, Message: "not run: the run stopped early (see the cause above)"},
		},
		Stopped: &runner.Stop{Cause: cause, Hello: cause, Cases: []string{"list_directory/a"},
			Reproduce: []string{`printf '%s\n' '{"fcp":1,"seq":0,"op":"hello"}' | true`}},
	}
	var buf bytes.Buffer
	report.Text(&buf, run, report.TextOptions{})
	out := buf.String()
	if n := strings.Count(out, "exit status 0"); n != 1 {
		t.Errorf("the cause appears %d times, want once:\n%s", n, out)
	}
	for _, want := range []string{"note: other note\n", "stopped: no requirement was checked",
		"  hello and the first case (list_directory/a) failed alike: " + cause + "\n",
		"reproduce by hand", `  printf '%s\n' '{"fcp":1,"seq":0,"op":"hello"}' | true` + "\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"ERRORED", "IDs needing attention", "cases:"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("the report has %q:\n%s", unwanted, out)
		}
	}
	if lines := strings.Count(out, "\n"); lines > 10 {
		t.Errorf("%d lines, want a few:\n%s", lines, out)
	}
	buf.Reset()
	if err := report.JSON(&buf, run); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"stopped": {`) || !strings.Contains(buf.String(), `"hello": "`+cause) {
		t.Errorf("JSON report lacks the stop:\n%s", buf.String())
	}
}

// Errored cases with one cause are one block, naming the others; -v shows
// each.
func TestTextGroupsErrors(t *testing.T) {
	var results []*runner.Result
	for i := range 12 {
		results = append(results, &runner.Result{Case: kase("list_directory", fmt.Sprintf("c%02d", i), "T-LD-01"), Status: runner.Errored,
			Message: fmt.Sprintf("fcp protocol error (timeout): timed out after 1s waiting for the response to seq %d (op call)", i)})
	}
	results = append(results, &runner.Result{Case: kase("list_directory", "other", "T-LD-02"), Status: runner.Errored,
		Message: "fcp protocol error (garbage): response to seq 1 is not a JSON object"})
	run := &runner.Run{Results: results}
	var buf bytes.Buffer
	report.Text(&buf, run, report.TextOptions{})
	out := buf.String()
	if n := strings.Count(out, "\nERRORED "); n != 2 {
		t.Errorf("%d ERRORED blocks, want 2 (one per cause):\n%s", n, out)
	}
	want := "  the same error in 11 more case(s): list_directory/c01, list_directory/c02, list_directory/c03, list_directory/c04, list_directory/c05, ... (-v shows each)\n"
	if !strings.Contains(out, want) {
		t.Errorf("the report lacks %q:\n%s", want, out)
	}
	buf.Reset()
	report.Text(&buf, run, report.TextOptions{Verbose: true})
	if n := strings.Count(buf.String(), "\n  IDs: "); n != 13 {
		t.Errorf("verbose: %d ERRORED blocks, want 13", n)
	}
}
