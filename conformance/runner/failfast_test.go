package runner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/conformance/suite"
	"github.com/forge-conform/forge-conform/impl/inproc"
	"github.com/forge-conform/forge-conform/impl/mutants"
)

// TestFailFast runs the list_directory cases, one at a time, against a
// mutant that fails some of them: with FailFast the cases before the first
// failure pass, it fails, and every later one is skipped as not run,
// naming it.
func TestFailFast(t *testing.T) {
	d, err := suite.Load()
	if err != nil {
		t.Fatal(err)
	}
	opts, err := mutants.Combine("dotdot-after-clean")
	if err != nil {
		t.Fatal(err)
	}
	ref, err := inproc.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	sel := &runner.Selector{Run: []string{"list_directory/*"}}
	r, err := runner.New(context.Background(), runner.Options{Target: ref, Corpus: d.Corpus, Specs: d.Specs,
		Fixtures: d.Fixtures, Jobs: 1, Select: sel, FailFast: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var first string
	var passed, notRun int
	for _, res := range r.RunAll(context.Background()).Results {
		switch {
		case res.Unselected:
		case first == "" && res.Status == runner.Passed:
			passed++
		case first == "" && res.Status == runner.Skipped:
		case first == "":
			if res.Status != runner.Failed {
				t.Fatalf("%s: %s (%s); want the first non-passing case to fail", res.Case.FullName(), res.Status, res.Message)
			}
			first = res.Case.FullName()
		default:
			want := "not run: --failfast stopped the run after " + first + " failed"
			if res.Status != runner.Skipped || !strings.Contains(res.Message, want) {
				t.Errorf("%s after the first failure: %s (%q); want skipped, %q", res.Case.FullName(), res.Status, res.Message, want)
			}
			notRun++
		}
	}
	if first == "" || passed == 0 || notRun == 0 {
		t.Fatalf("first failure %q after %d passed, %d not run: the mutant should fail a list_directory case in the middle", first, passed, notRun)
	}
}
