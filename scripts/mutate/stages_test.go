//go:build unix

package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/conformance/cases"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/impl/readings"
)

func TestStageJudges(t *testing.T) {
	scoped := stage{pkgs: []string{"impl/tools/searchfiles"}}
	for _, tc := range []struct {
		st   stage
		rel  string
		want bool
	}{
		{stage{}, "impl/tool", true},
		{scoped, "impl/tools/searchfiles", true},
		{scoped, "impl/tools/searchfiles/internal", true},
		{scoped, "impl/tools/searchfilesx", false},
		{scoped, "impl/tools/writefile", false},
	} {
		if got := tc.st.judges(tc.rel); got != tc.want {
			t.Errorf("stage %q judges %s = %v, want %v", tc.st.pkgs, tc.rel, got, tc.want)
		}
	}
}

func TestScopedStagesNeedAPackage(t *testing.T) {
	for _, st := range scopedStages() {
		if len(st.pkgs) == 0 || len(st.globs) == 0 {
			t.Errorf("scoped stage %q: give it a package and the cases it runs", st.name)
		}
	}
	h := &harness{pkgs: map[string]bool{"impl/tools/writefile": true}}
	var got []string
	for _, st := range scopedStages() {
		if h.scoped(st) {
			got = append(got, st.name)
		}
	}
	if len(got) != 1 || got[0] != "reading I-WR-03=create-new" {
		t.Errorf("scoped stages of impl/tools/writefile: %q, want the create-new reading only", got)
	}
}

// The complexity stage runs exactly the corpus's scaling cases, which the
// fcp run skips: a scaling case added later is not lost to both.
func TestComplexityCasesAreTheScalingCases(t *testing.T) {
	c, err := corpus.Load(cases.FS)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, k := range c.Cases {
		if k.Scaling != nil {
			want = append(want, k.FullName())
		}
	}
	got := complexityCases()
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("complexityCases() = %q; the corpus's scaling cases are %q", got, want)
	}
}

// Every reading has a run over its catalogs, each a catalog of the corpus:
// a reading whose catalog was renamed would run no case and judge nothing.
func TestReadingStagesRunTheirCatalogs(t *testing.T) {
	c, err := corpus.Load(cases.FS)
	if err != nil {
		t.Fatal(err)
	}
	specs := map[string]bool{}
	for _, k := range c.Cases {
		specs[strings.SplitN(k.FullName(), "/", 2)[0]] = true
	}
	runs := readingStages()
	if len(runs) != len(readings.All()) {
		t.Fatalf("%d reading runs for %d readings", len(runs), len(readings.All()))
	}
	for _, st := range runs {
		if len(st.globs) == 0 {
			t.Errorf("%s runs no catalog", st.name)
		}
		for _, g := range st.globs {
			if !specs[strings.TrimSuffix(g, "/*")] {
				t.Errorf("%s runs %q, no catalog of the corpus", st.name, g)
			}
		}
		if args := st.args("bin"); !slices.Contains(args, strings.TrimPrefix(st.name, "reading ")) {
			t.Errorf("%s: args %q do not take the reading", st.name, args)
		}
	}
}
