package report_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/forge-conform/forge-conform/conformance/check"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/report"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

const unsupported = `unsupported: the implementation does not declare op "definitions"`

func kase(spec, name string, ids ...string) *corpus.Case {
	return &corpus.Case{Spec: spec, Name: name, IDs: ids, Op: "call"}
}

// sampleRun is a run with every case and ID status, built by hand.
func sampleRun() *runner.Run {
	failCase := kase("list_directory", "dfs-truncation-4", "T-LD-05", "FR-LD-LST-07")
	failCase.Interpretations = []string{"I-LD-04"}
	return &runner.Run{
		Implementation: fcp.Implementation{Name: "my-impl", Version: "1.2.3", Language: "rust"},
		Notes:          []string{"no golden files: exact-bytes checks are skipped"},
		Elapsed:        1234 * time.Millisecond,
		Results: []*runner.Result{
			{Case: kase("list_directory", "default-args", "T-LD-01"), Status: runner.Passed, Duration: 3 * time.Millisecond},
			{Case: failCase, Status: runner.Failed, Duration: 5 * time.Millisecond,
				Message: "expect [T-LD-05, FR-LD-LST-07]: result differs from the expectation",
				Failures: []check.Failure{{IDs: []string{"T-LD-05", "FR-LD-LST-07"}, Kind: check.KindExpect,
					Message: "result differs from the expectation (only the fields the case lists are compared)",
					Diff:    "  map[string]any{\n-  \"returned\": 4,\n+  \"returned\": 3,\n  }\n"}}},
			{Case: kase("list_directory", "not-a-dir", "T-LD-02"), Status: runner.Errored,
				Message: "timeout after 10s", Stderr: "panic: boom\n\tgoroutine 1\x00\x1b[0m"},
			{Case: kase("list_directory", "definitions", "FR-LD-DEF-01"), Status: runner.Skipped, Message: unsupported},
			{Case: kase("list_directory", "definitions-2", "FR-LD-DEF-01"), Status: runner.Skipped, Message: unsupported},
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
			{Spec: "codex_list_dir", ID: "CX-LD-FMT-02", Status: runner.Failed, Cases: []string{"codex_list_dir/ctrl"}, Testable: true, Level: "MUST", Summary: "Indentation."},
		},
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
		{"per-spec line", "\nlist_directory: 1 passed, 2 failed, 1 errored, 1 skipped, 1 uncovered, 1 untestable\n"},
		{"per-spec line of the second spec", "\ncodex_list_dir: 0 passed, 1 failed, 1 skipped\n"},
		{"failed ID", "  FAILED     T-LD-05          max_entries truncates.\n"},
		{"failed case under the ID", "  FAILED     T-LD-05          max_entries truncates.\n             FAILED list_directory/dfs-truncation-4\n               expect: result differs from the expectation (only the fields the case lists are compared)\n"},
		{"diff", "               diff (-want +got):\n                 map[string]any{\n               -  \"returned\": 4,\n               +  \"returned\": 3,\n                 }\n"},
		{"interpretation", "               relies on I-LD-04 (spec/INTERPRETATIONS.md)\n"},
		{"errored ID and case", "  ERRORED    T-LD-02          A file is not a directory.\n             ERRORED list_directory/not-a-dir\n               timeout after 10s\n               stderr: panic: boom\n               \tgoroutine 1"},
		{"uncovered ID", "  UNCOVERED  T-LD-14          Output truncation overrides.\n"},
		{"skip reasons grouped", "skipped 2 case(s): " + unsupported + "\n"},
		{"other skip reason", "skipped 1 case(s): expected failure (skip file line 2: WTF-8): boom\n"},
		{"ID counts", "IDs: 1 passed, 3 failed, 1 errored, 2 skipped, 1 uncovered, 1 untestable\n"},
		{"case counts", "cases: 1 passed, 2 failed, 3 skipped, 1 errored in 1.234s\n"},
	}
	for _, tt := range tests {
		if !strings.Contains(out, tt.want) {
			t.Errorf("%s: the report lacks %q\nreport:\n%s", tt.name, tt.want, out)
		}
	}
	for _, absent := range []string{"PASSED", "T-LD-01", "C-01", "SKIPPED     FR-LD-DEF-01", "PASSED   list_directory/default-args"} {
		if strings.Contains(out, absent) {
			t.Errorf("a non-verbose report shows only what needs attention, but it contains %q:\n%s", absent, out)
		}
	}
	if i, j := strings.Index(out, "skipped 1 case(s): expected"), strings.Index(out, "skipped 2 case(s)"); i > j {
		t.Errorf("skip reasons are not sorted:\n%s", out)
	}
}

func TestTextVerbose(t *testing.T) {
	var buf bytes.Buffer
	report.Text(&buf, sampleRun(), report.TextOptions{Verbose: true})
	out := buf.String()
	for _, want := range []string{
		"  PASSED     T-LD-01          Default arguments list the root.\n",
		"  UNTESTABLE C-01             Cross-platform.\n",
		"  SKIPPED    FR-LD-DEF-01     Named list_directory.\n",
		"PASSED   list_directory/default-args (",
		"FAILED   list_directory/dfs-truncation-4 (",
		"ERRORED  list_directory/not-a-dir (",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("verbose report lacks %q:\n%s", want, out)
		}
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
	if out := buf.String(); !strings.Contains(out, "insignificant whitespace at byte 8") || !strings.Contains(out, "list_directory/default-args") {
		t.Errorf("the report does not say which case broke FR-LD-OUT-02a and how:\n%s", out)
	}
}

func TestBuildJSON(t *testing.T) {
	rep := report.BuildJSON(sampleRun())
	if d := cmp.Diff(report.JSONSummary{Passed: 1, Failed: 2, Skipped: 3, Errored: 1}, rep.Summary); d != "" {
		t.Errorf("summary differs (-want +got):\n%s", d)
	}
	if rep.ElapsedMs != 1234 || rep.Implementation.Name != "my-impl" || len(rep.Notes) != 1 {
		t.Errorf("implementation %+v, notes %v, elapsed %d", rep.Implementation, rep.Notes, rep.ElapsedMs)
	}
	if len(rep.Cases) != 7 || len(rep.IDs) != 9 {
		t.Fatalf("%d cases and %d ids, want 7 and 9", len(rep.Cases), len(rep.IDs))
	}
	fail := rep.Cases[1]
	wantFail := report.JSONCase{Name: "list_directory/dfs-truncation-4", Spec: "list_directory", IDs: []string{"T-LD-05", "FR-LD-LST-07"},
		Interpretations: []string{"I-LD-04"}, Status: runner.Failed, Message: "expect [T-LD-05, FR-LD-LST-07]: result differs from the expectation",
		Failures: []report.JSONFailure{{IDs: []string{"T-LD-05", "FR-LD-LST-07"}, Kind: "expect",
			Message: "result differs from the expectation (only the fields the case lists are compared)",
			Diff:    "  map[string]any{\n-  \"returned\": 4,\n+  \"returned\": 3,\n  }\n"}},
		DurationUs: 5000}
	if d := cmp.Diff(wantFail, fail); d != "" {
		t.Errorf("failed case differs (-want +got):\n%s", d)
	}
	var statuses []runner.Status
	for _, c := range rep.Cases {
		statuses = append(statuses, c.Status)
	}
	if d := cmp.Diff([]runner.Status{"passed", "failed", "errored", "skipped", "skipped", "skipped", "failed"}, statuses); d != "" {
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
		"":               {"cases", "elapsed_ms", "ids", "implementation", "notes", "summary"},
		"implementation": {"language", "name", "version"},
		"summary":        {"errored", "failed", "passed", "skipped"},
		"cases[1]":       {"duration_us", "failures", "ids", "interpretations", "message", "name", "spec", "status"},
		"cases[2]":       {"duration_us", "ids", "message", "name", "spec", "status", "stderr"},
		"ids[0]":         {"cases", "id", "level", "spec", "status", "testable"},
		"failure":        {"diff", "ids", "kind", "message"},
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
		Cases    []struct {
			Name      string     `xml:"name,attr"`
			Classname string     `xml:"classname,attr"`
			Failure   *junitText `xml:"failure"`
			Error     *junitText `xml:"error"`
			Skipped   *junitText `xml:"skipped"`
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
	if doc.Tests != 7 || doc.Failures != 2 || doc.Errors != 1 || doc.Skipped != 3 {
		t.Errorf("testsuites counts tests=%d failures=%d errors=%d skipped=%d, want 7 2 1 3", doc.Tests, doc.Failures, doc.Errors, doc.Skipped)
	}
	if len(doc.Suites) != 2 || doc.Suites[0].Name != "list_directory" || doc.Suites[1].Name != "codex_list_dir" {
		t.Fatalf("want one suite per spec in order of first appearance, got %+v", doc.Suites)
	}
	ld, cx := doc.Suites[0], doc.Suites[1]
	if ld.Tests != 5 || ld.Failures != 1 || ld.Errors != 1 || ld.Skipped != 2 || cx.Tests != 2 || cx.Failures != 1 || cx.Skipped != 1 {
		t.Errorf("suite counts: %s %d/%d/%d/%d, %s %d/%d/%d", ld.Name, ld.Tests, ld.Failures, ld.Errors, ld.Skipped, cx.Name, cx.Tests, cx.Failures, cx.Skipped)
	}
	fail := ld.Cases[1]
	if fail.Name != "dfs-truncation-4 [T-LD-05 FR-LD-LST-07]" || fail.Classname != "list_directory" || fail.Failure == nil {
		t.Fatalf("failed testcase = %+v", fail)
	}
	if !strings.Contains(fail.Failure.Body, "expect [T-LD-05, FR-LD-LST-07]: result differs") || !strings.Contains(fail.Failure.Body, `+  "returned": 3,`) {
		t.Errorf("failure body lacks the check and its diff:\n%s", fail.Failure.Body)
	}
	if ld.Cases[0].Failure != nil || ld.Cases[0].Error != nil || ld.Cases[0].Skipped != nil {
		t.Errorf("a passed testcase carries a verdict element: %+v", ld.Cases[0])
	}
	errCase := ld.Cases[2]
	if errCase.Error == nil || errCase.Error.Message != "timeout after 10s" || errCase.SystemErr != "panic: boom\n\tgoroutine 1??[0m" {
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
