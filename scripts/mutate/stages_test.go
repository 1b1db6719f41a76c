//go:build unix

package main

import "testing"

func TestStageJudges(t *testing.T) {
	scoped := stage{pkg: "impl/tools/searchfiles"}
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
			t.Errorf("stage %q judges %s = %v, want %v", tc.st.pkg, tc.rel, got, tc.want)
		}
	}
}

func TestScopedStagesNeedAPackage(t *testing.T) {
	for _, st := range scopedStages() {
		if st.pkg == "" || len(st.globs) == 0 {
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
