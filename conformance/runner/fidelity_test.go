package runner

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/forge-conform/forge-conform/conformance/check"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/spec"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

func TestPolicySkip(t *testing.T) {
	r := &Runner{hello: fcp.Response{Policies: map[string]string{"lp1_missing_file": "refuse"}}}
	tests := []struct {
		policy map[string]string
		want   string
	}{
		{nil, ""},
		{map[string]string{"lp1_missing_file": "refuse"}, ""},
		{map[string]string{"lp1_missing_file": "create"}, "implementation-defined: the case is for policies.lp1_missing_file=create, the implementation declares refuse"},
		{map[string]string{"other": "x"}, "implementation-defined: declare policies.other"},
	}
	for _, tt := range tests {
		if got := r.policySkip(&corpus.Case{Policy: tt.policy}); got != tt.want {
			t.Errorf("policySkip(%v) = %q, want %q", tt.policy, got, tt.want)
		}
	}
	none := &Runner{}
	if got := none.policySkip(&corpus.Case{Policy: map[string]string{"lp1_missing_file": "create"}}); got != "implementation-defined: declare policies.lp1_missing_file" {
		t.Errorf("no policies declared: %q", got)
	}
}

func TestLevelSeverity(t *testing.T) {
	set := tinySet()
	set.Catalogs["ld"].Requirements = append(set.Catalogs["ld"].Requirements,
		spec.Requirement{ID: "S-1", Level: "SHOULD", Summary: "s", Testable: true, Origin: "srd"},
		spec.Requirement{ID: "M-1", Level: "MAY", Summary: "m", Testable: true, Origin: "srd"})
	r := &Runner{opts: Options{Specs: set}}
	c := &corpus.Case{Spec: "ld"}
	fs := []check.Failure{
		{IDs: []string{"S-1"}, Kind: check.KindExpect, Message: "a"},
		{IDs: []string{"S-1", "M-1"}, Kind: check.KindInvariant, Message: "b"},
		{IDs: []string{"S-1", "LD-1"}, Kind: check.KindExpect, Message: "c"},
		{IDs: []string{"S-1"}, Kind: check.KindGolden, Message: "d", Severity: check.SeverityNote},
		{IDs: []string{"ld:NOPE"}, Kind: check.KindExpect, Message: "e"},
	}
	r.levelSeverity(c, fs)
	var got []string
	for _, f := range fs {
		got = append(got, f.Severity)
	}
	if d := cmp.Diff([]string{check.SeverityWarn, check.SeverityWarn, check.SeverityFail, check.SeverityNote, check.SeverityFail}, got); d != "" {
		t.Errorf("severities (-want +got):\n%s", d)
	}
	if !strings.HasPrefix(fs[0].Message, "(SHOULD/MAY)") {
		t.Errorf("a warning says why: %q", fs[0].Message)
	}
	fails, warns, notes := bySeverity(fs, false)
	if len(fails) != 2 || len(warns) != 2 || len(notes) != 1 {
		t.Errorf("bySeverity: %d fails, %d warnings, %d notes", len(fails), len(warns), len(notes))
	}
	if fails, _, _ := bySeverity(fs, true); len(fails) != 4 {
		t.Errorf("strict: %d fails, want 4 (warnings fail, notes never)", len(fails))
	}
}

func TestConflicts(t *testing.T) {
	set := &spec.Set{
		Interpretations: map[string]string{"I-X-01": "one", "I-X-02": "two", "I-X-03": "three"},
		Classes:         map[string]spec.Class{"I-X-01": spec.ClassConflict, "I-X-02": spec.ClassAllowed, "I-X-03": spec.ClassConflict},
	}
	res := func(st Status, interp ...string) *Result {
		return &Result{Case: &corpus.Case{Interpretations: interp}, Status: st}
	}
	got := Conflicts(set, []*Result{
		res(Passed, "I-X-02", "I-X-03"),
		res(Skipped, "I-X-01"),
		res(Failed, "I-X-03"),
	})
	if d := cmp.Diff([]Conflict{{ID: "I-X-03", Title: "three"}}, got); d != "" {
		t.Errorf("Conflicts (-want +got):\n%s", d)
	}
}
