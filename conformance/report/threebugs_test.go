package report_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/conformance/cases"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/conformance/report"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/fixtures"
	"github.com/forge-conform/forge-conform/golden"
	"github.com/forge-conform/forge-conform/impl/inproc"
	"github.com/forge-conform/forge-conform/impl/mutants"
	"github.com/forge-conform/forge-conform/spec"
)

// The report a new user gets for an implementation with three realistic
// bugs (traversal order, a budget one byte too generous, following
// symlinks), run on the list_directory and read_file cases, must be short
// and show every bug on its first screen: a full block for each, the
// cases failing like them one line each after.
func TestThreeBugReport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the list_directory and read_file cases")
	}
	c, err := corpus.Load(cases.FS)
	if err != nil {
		t.Fatal(err)
	}
	s, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	fx, err := fixture.LoadFS(fixtures.FS)
	if err != nil {
		t.Fatal(err)
	}
	bugs, err := mutants.Combine("breadth-first", "budget-off-by-one", "follow-symlinks")
	if err != nil {
		t.Fatal(err)
	}
	tgt, err := inproc.New(bugs)
	if err != nil {
		t.Fatal(err)
	}
	opts := runner.Options{Corpus: c, Specs: s, Fixtures: fx, Golden: golden.FS, Jobs: 2, Target: tgt,
		Select: &runner.Selector{Run: []string{"list_directory/*", "tool_executor/read-*", "tool_executor/scan-bound-*"}}}
	r, err := runner.New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	run := r.RunAll(context.Background())
	var buf bytes.Buffer
	report.Text(&buf, run, report.TextOptions{})
	out := buf.String()
	lines := strings.Split(out, "\n")
	if len(lines) >= 200 {
		t.Errorf("the default report has %d lines, want under 200:\n%s", len(lines), out)
	}
	const screen = 60
	first := strings.Join(lines[:min(screen, len(lines))], "\n")
	for _, bug := range []struct{ name, evidence string }{
		{"budget off by one", "invariant [FR-LD-OUT-03, FR-LD-OUT-06]: output is 829 bytes, over effective_max 828"},
		{"budget request", `ctx: {"working_dir":"$ROOT","max_output_bytes":100000,"available_capacity_bytes":828}`},
		{"following symlinks", `has type file, but lstat (which does not follow symlinks) says symlink`},
		{"breadth-first order", "FR-LD-LST-05"},
	} {
		if !strings.Contains(first, bug.evidence) {
			t.Errorf("%s: the first %d lines lack %q:\n%s", bug.name, screen, bug.evidence, first)
		}
	}
	for _, goCmp := range []string{"map[string]any{", "strings.Join(", "[]string{"} {
		if strings.Contains(out, goCmp) {
			t.Errorf("the report holds go-cmp syntax %q:\n%s", goCmp, out)
		}
	}
}
