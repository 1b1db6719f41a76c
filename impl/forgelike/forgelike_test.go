package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/forge-conform/forge-conform/conformance/cases"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/fixtures"
	"github.com/forge-conform/forge-conform/golden"
	"github.com/forge-conform/forge-conform/spec"
)

// wantFailed are the cases an implementation behaving as Forge does must
// fail, with the ID each failure names: the grammar deviations this
// emulation reproduces (Forge accepts what LP1's EBNF forbids). Every other
// case must pass: what Forge does where the SRDs leave room is accepted.
var wantFailed = map[string]string{
	"lp1/after-footer-blank-line":   "LP1-STR-06",
	"lp1/after-footer-comment":      "LP1-STR-06",
	"lp1/after-footer-second-patch": "LP1-STR-06",
	"lp1/after-footer-spaces":       "LP1-STR-06",
	"lp1/header-after-blank-line":   "LP1-STR-02",
	"lp1/header-after-comment":      "LP1-STR-02",
}

// TestForgeLikePassesEverythingButItsDeviations builds the emulation, runs
// the whole corpus against it through FCP/1, and asserts that exactly the
// cases of wantFailed fail, each naming its ID.
func TestForgeLikePassesEverythingButItsDeviations(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary and runs the whole corpus")
	}
	// A directory every user can reach: as root the runner runs the
	// implementation as nobody.
	dir, err := os.MkdirTemp("", "forgelike-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "forgelike")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building the emulation: %v\n%s", err, out)
	}
	c, err := corpus.Load(cases.FS)
	if err != nil {
		t.Fatal(err)
	}
	specs, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	fx, err := fixture.LoadFS(fixtures.FS)
	if err != nil {
		t.Fatal(err)
	}
	r, err := runner.New(context.Background(), runner.Options{Corpus: c, Specs: specs, Fixtures: fx, Golden: golden.FS,
		Binary: []string{bin}, Jobs: 2, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	run := r.RunAll(context.Background())

	failed := map[string]string{}
	skippedForPolicy := 0
	for _, res := range run.Results {
		switch res.Status {
		case runner.Failed, runner.Errored:
			ids := ""
			for _, f := range res.Failures {
				for _, id := range f.IDs {
					if id == wantFailed[res.Case.FullName()] {
						ids = id
					}
				}
			}
			failed[res.Case.FullName()] = ids
			if _, want := wantFailed[res.Case.FullName()]; !want {
				t.Errorf("%s %s: %s", res.Case.FullName(), res.Status, res.Message)
				for _, f := range res.Failures {
					t.Logf("  %s %v: %s\n%s", f.Kind, f.IDs, f.Message, f.Diff)
				}
			}
		case runner.Skipped:
			if res.Case.Policy != nil {
				skippedForPolicy++
			}
		}
	}
	if d := cmp.Diff(wantFailed, failed); d != "" {
		t.Errorf("failed cases and the IDs they name (-want +got):\n%s", d)
	}
	if skippedForPolicy == 0 {
		t.Error("no case was skipped for its policy: the emulation declares lp1_missing_file=refuse, so the create cases must be skipped")
	}
	var notes, warnings int
	for _, res := range run.Results {
		notes += len(res.Notes)
		warnings += len(res.Warnings)
	}
	if warnings == 0 {
		t.Error("no warnings: Forge's LP1 messages carry no line numbers, so the advice checks must warn")
	}
	var conflicts []string
	for _, c := range run.Conflicts {
		conflicts = append(conflicts, c.ID)
	}
	sort.Strings(conflicts)
	if d := cmp.Diff([]string{"I-LD-04", "I-LP-01", "I-LP-11", "I-SF-04"}, conflicts); d != "" {
		t.Errorf("conflicts touched (-want +got):\n%s", d)
	}
	t.Logf("%d cases, %d failed, %d warnings, %d golden notes", len(run.Results), len(failed), warnings, notes)
}
