package runner

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/forge-conform/forge-conform/conformance/check"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/spec"
)

// tinySet is a two-catalog spec.Set; "zz" sorts after "ld" so the output
// order (spec names sorted, then catalog order) is visible.
func tinySet() *spec.Set {
	req := func(id string, testable bool) spec.Requirement {
		r := spec.Requirement{ID: id, Level: "MUST", Summary: "summary of " + id, Testable: testable, Origin: "srd"}
		if !testable {
			r.Verified = "elsewhere"
		}
		return r
	}
	return &spec.Set{Catalogs: map[string]*spec.Catalog{
		"zz": {Spec: "zz", Requirements: []spec.Requirement{req("Z-PASS", true)}},
		"ld": {Spec: "ld", Requirements: []spec.Requirement{
			req("PASS", true),
			req("NAMED", true),
			req("OTHER", true),
			req("EXTERNAL", true),
			req("ERR", true),
			req("ERR-AND-PASS", true),
			req("FAIL-AND-PASS", true),
			req("SKIP", true),
			req("SKIP-AND-PASS", true),
			req("REGRESSED", true),
			req("UNCOVERED", true),
			req("UNTESTABLE", false),
			req("UNTESTABLE-COVERED", false),
		}},
	}}
}

func result(spec, name string, st Status, ids []string, failures ...check.Failure) *Result {
	return &Result{Case: &corpus.Case{Spec: spec, Name: name, IDs: ids}, Status: st, Failures: failures}
}

func TestAggregate(t *testing.T) {
	results := []*Result{
		result("ld", "pass", Passed, []string{"PASS", "ERR-AND-PASS", "FAIL-AND-PASS", "SKIP-AND-PASS"}),
		// An invariant failure names NAMED (covered) and EXTERNAL (not among
		// the case's IDs); OTHER, also covered, is not blamed.
		result("ld", "invariant", Failed, []string{"OTHER", "NAMED"},
			check.Failure{IDs: []string{"NAMED", "EXTERNAL"}, Kind: check.KindInvariant, Message: "m"}),
		result("ld", "errored", Errored, []string{"ERR", "ERR-AND-PASS"}),
		result("ld", "expect", Failed, []string{"FAIL-AND-PASS"},
			check.Failure{IDs: []string{"FAIL-AND-PASS"}, Kind: check.KindExpect, Message: "m"}),
		result("ld", "skipped", Skipped, []string{"SKIP", "SKIP-AND-PASS"}),
		// An expected failure that passes: Failed without failures blames
		// every ID of the case.
		result("ld", "regressed", Failed, []string{"REGRESSED"}),
		result("ld", "untestable", Passed, []string{"UNTESTABLE-COVERED"}),
		// A failure naming an ID in no catalog is not reported per ID.
		result("ld", "unknown-id", Failed, []string{"PASS"}, check.Failure{IDs: []string{"NOT-CATALOGUED"}, Kind: check.KindInvariant, Message: "m"}),
		result("zz", "z", Passed, []string{"Z-PASS"}),
		nil,
	}
	got := Aggregate(tinySet(), results)
	type row struct {
		Spec, ID string
		Status   Status
		Cases    []string
	}
	want := []row{
		{"ld", "PASS", Passed, []string{"ld/pass", "ld/unknown-id"}},
		{"ld", "NAMED", Failed, []string{"ld/invariant"}},
		{"ld", "OTHER", Passed, []string{"ld/invariant"}},
		{"ld", "EXTERNAL", Failed, nil},
		{"ld", "ERR", Errored, []string{"ld/errored"}},
		{"ld", "ERR-AND-PASS", Errored, []string{"ld/errored", "ld/pass"}},
		{"ld", "FAIL-AND-PASS", Failed, []string{"ld/expect", "ld/pass"}},
		{"ld", "SKIP", Skipped, []string{"ld/skipped"}},
		{"ld", "SKIP-AND-PASS", Passed, []string{"ld/pass", "ld/skipped"}},
		{"ld", "REGRESSED", Failed, []string{"ld/regressed"}},
		{"ld", "UNCOVERED", Uncovered, nil},
		{"ld", "UNTESTABLE", Untestable, nil},
		{"ld", "UNTESTABLE-COVERED", Passed, []string{"ld/untestable"}},
		{"zz", "Z-PASS", Passed, []string{"zz/z"}},
	}
	var rows []row
	for _, ir := range got {
		rows = append(rows, row{ir.Spec, ir.ID, ir.Status, ir.Cases})
	}
	if d := cmp.Diff(want, rows); d != "" {
		t.Errorf("Aggregate differs (-want +got):\n%s", d)
	}
	for _, ir := range got {
		if ir.Summary != "summary of "+ir.ID || ir.Level != "MUST" || ir.Testable != (ir.ID != "UNTESTABLE" && ir.ID != "UNTESTABLE-COVERED") {
			t.Errorf("%s: catalog fields not carried over: %+v", ir.ID, ir)
		}
	}
}

func TestAggregateFailureOrderDoesNotMatter(t *testing.T) {
	// A passing case after a failing one must not hide the failure.
	for _, order := range [][]*Result{
		{result("ld", "a", Failed, []string{"PASS"}, check.Failure{IDs: []string{"PASS"}}), result("ld", "b", Passed, []string{"PASS"})},
		{result("ld", "b", Passed, []string{"PASS"}), result("ld", "a", Failed, []string{"PASS"}, check.Failure{IDs: []string{"PASS"}})},
	} {
		for _, ir := range Aggregate(tinySet(), order) {
			if ir.ID == "PASS" && ir.Status != Failed {
				t.Errorf("PASS is %s, want failed whatever the order of results", ir.Status)
			}
		}
	}
}

func TestAggregateEmpty(t *testing.T) {
	got := Aggregate(tinySet(), nil)
	if len(got) != 14 {
		t.Fatalf("Aggregate gave %d IDs, want every catalogued ID (14)", len(got))
	}
	for _, ir := range got {
		want := Uncovered
		if !ir.Testable {
			want = Untestable
		}
		if ir.Status != want || ir.Cases != nil {
			t.Errorf("%s: status %s cases %v with no results, want %s and no cases", ir.ID, ir.Status, ir.Cases, want)
		}
	}
}

func TestRunSummaryAndOK(t *testing.T) {
	tests := []struct {
		name     string
		statuses []Status
		want     map[Status]int
		ok       bool
	}{
		{"empty", nil, map[Status]int{Passed: 0, Failed: 0, Skipped: 0, Errored: 0}, true},
		{"passed and skipped", []Status{Passed, Skipped, Passed}, map[Status]int{Passed: 2, Failed: 0, Skipped: 1, Errored: 0}, true},
		{"a failure", []Status{Passed, Failed}, map[Status]int{Passed: 1, Failed: 1, Skipped: 0, Errored: 0}, false},
		{"an error", []Status{Errored}, map[Status]int{Passed: 0, Failed: 0, Skipped: 0, Errored: 1}, false},
	}
	for _, tt := range tests {
		run := &Run{}
		for i, s := range tt.statuses {
			run.Results = append(run.Results, result("ld", string(rune('a'+i)), s, nil))
		}
		if d := cmp.Diff(tt.want, run.Summary()); d != "" {
			t.Errorf("%s: Summary differs (-want +got):\n%s", tt.name, d)
		}
		if got := run.OK(); got != tt.ok {
			t.Errorf("%s: OK() = %v, want %v", tt.name, got, tt.ok)
		}
	}
}
