package report

import (
	"strings"

	"github.com/forge-conform/forge-conform/conformance/runner"
)

// JSONReview is a case's review mark in the JSON report.
type JSONReview struct {
	// Label is what the text report says: "unreviewed since SRD v1.1
	// (CFG-X-01 changed)".
	Label      string   `json:"label"`
	SRDVersion string   `json:"srd_version"`
	Document   string   `json:"document"`
	IDs        []string `json:"ids"`
}

func jsonReview(r *runner.Result) *JSONReview {
	m := r.Review
	if m == nil {
		return nil
	}
	ids := m.IDs
	if ids == nil {
		ids = []string{}
	}
	return &JSONReview{Label: m.Label(), SRDVersion: m.Version, Document: m.Document, IDs: ids}
}

// checkedVersions are the versions of the specs the run selected a case
// of.
func checkedVersions(run *runner.Run) []runner.Version {
	ran := map[string]bool{}
	for _, r := range run.Results {
		if !r.Unselected {
			ran[r.Case.Spec] = true
		}
	}
	var out []runner.Version
	for _, v := range run.Versions {
		if ran[v.Spec] {
			out = append(out, v)
		}
	}
	return out
}

// reviews lists the selected cases marked for review: they ran as usual,
// but rest on a requirement whose SRD sentence changed since they were
// written.
func (t *textWriter) reviews(run *runner.Run) {
	first := true
	for _, r := range run.Results {
		if r.Unselected || r.Review == nil {
			continue
		}
		if first {
			t.printf("\nto review (`forge-conform spec review --clear CASE` once the case matches the SRD again):\n")
			first = false
		}
		t.printf("  %-8s %s: %s\n", strings.ToUpper(string(r.Status)), r.Case.FullName(), r.Review.Label())
	}
}

// versions names the SRD versions the run checked, with the version the
// implementation states where it states one.
func (t *textWriter) versions(run *runner.Run) {
	vs := checkedVersions(run)
	if len(vs) == 0 {
		return
	}
	parts := make([]string, 0, len(vs))
	for _, v := range vs {
		p := v.Spec + " "
		if v.Catalog == "" {
			p += "(unversioned)"
		} else {
			p += "v" + v.Catalog
		}
		if v.Declared != "" && v.Declared != v.Catalog {
			p += " (implementation: v" + v.Declared + ")"
		}
		parts = append(parts, p)
	}
	t.printf("SRD versions: %s\n", strings.Join(parts, ", "))
}

// withReview adds a marked case's review mark to its JUnit properties
// ("review": the label).
func withReview(p *junitProperties, r *runner.Result) *junitProperties {
	if r.Review != nil {
		p.Props = append(p.Props, junitProperty{Name: "review", Value: r.Review.Label()})
	}
	return p
}
