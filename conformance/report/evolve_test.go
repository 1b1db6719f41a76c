package report_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/forge-conform/forge-conform/conformance/report"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/spec"
)

// reviewRun has a case marked for review and the versions it checked.
func reviewRun() *runner.Run {
	mark := &spec.ReviewMark{Case: "sample_list/default-cap", Version: "1.1", Document: "S.md", IDs: []string{"CFG-SL-01"}}
	return &runner.Run{
		Results: []*runner.Result{
			{Case: kase("sample_list", "default-cap", "CFG-SL-01"), Status: runner.Passed, Review: mark},
			{Case: kase("sample_list", "explicit-cap", "FR-SL-01"), Status: runner.Passed},
			{Case: kase("other", "x", "FR-O-01"), Status: runner.Skipped, Unselected: true},
		},
		Versions: []runner.Version{{Spec: "other", Catalog: "2.0"}, {Spec: "sample_list", Catalog: "1.1", Declared: "1.0"}},
	}
}

func TestTextReviewAndVersions(t *testing.T) {
	var buf bytes.Buffer
	report.Text(&buf, reviewRun(), report.TextOptions{})
	out := buf.String()
	for _, want := range []string{
		"\nto review (`forge-conform spec review --clear CASE` once the case matches the SRD again):\n" +
			"  PASSED   sample_list/default-cap: unreviewed since SRD v1.1 (CFG-SL-01 changed)\n",
		"\nSRD versions: sample_list v1.1 (implementation: v1.0)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the text report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "other v2.0") {
		t.Error("the versions name a spec no selected case is of")
	}
}

func TestJSONReviewAndVersions(t *testing.T) {
	rep := report.BuildJSON(reviewRun())
	if r := rep.Cases[0].Review; r == nil || r.Label != "unreviewed since SRD v1.1 (CFG-SL-01 changed)" || r.SRDVersion != "1.1" {
		t.Errorf("review of the marked case: %+v", r)
	}
	if rep.Cases[1].Review != nil {
		t.Errorf("an unmarked case has a review: %+v", rep.Cases[1].Review)
	}
	if len(rep.Versions) != 1 || rep.Versions[0].Declared != "1.0" {
		t.Errorf("versions: %+v", rep.Versions)
	}
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
	var buf bytes.Buffer
	if err := report.JSON(&buf, reviewRun()); err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Errorf("the JSON report does not match spec/report.schema.json: %v", err)
	}
}

func TestJUnitReview(t *testing.T) {
	var buf bytes.Buffer
	if err := report.JUnit(&buf, reviewRun()); err != nil {
		t.Fatal(err)
	}
	if want := `<property name="review" value="unreviewed since SRD v1.1 (CFG-SL-01 changed)"></property>`; !strings.Contains(buf.String(), want) {
		t.Errorf("the JUnit report lacks %s:\n%s", want, buf.String())
	}
}
