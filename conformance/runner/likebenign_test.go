package runner_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/conformance/suite"
	"github.com/forge-conform/forge-conform/impl/inproc"
	"github.com/forge-conform/forge-conform/impl/mutants"
	"github.com/forge-conform/forge-conform/impl/reference"
)

// TestLikeBenign: tui-hostile's screens are compared with a benign run of
// the same turn (I-TUI-09). Without goldens (as for any implementation but
// the reference), the reference passes, and a TUI whose sanitized summary
// still takes the colour of its escape sequence passes every single-run
// screen check and fails only the comparison, charged to FR-OUT-02 and
// NFR-SEC-05.
func TestLikeBenign(t *testing.T) {
	d, err := suite.Load()
	if err != nil {
		t.Fatal(err)
	}
	c, s, fx := d.Corpus, d.Specs, d.Fixtures
	m, ok := mutants.Lookup("tui-summary-colour")
	if !ok {
		t.Fatal("no mutant tui-summary-colour")
	}
	for _, tt := range []struct {
		name string
		opts reference.Options
		fail bool
	}{
		{"reference", reference.Options{}, false},
		{m.Name, m.Options, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			target, err := inproc.New(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			r, err := runner.New(context.Background(), runner.Options{Target: target, Corpus: c, Specs: s, Fixtures: fx,
				Select: &runner.Selector{Run: []string{"tool_executor/tui-hostile"}}, Timeout: 30 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var res *runner.Result
			for _, x := range r.RunAll(context.Background()).Results {
				if !x.Unselected {
					res = x
				}
			}
			if res == nil {
				t.Fatal("tui-hostile did not run")
			}
			if !tt.fail {
				if res.Status != runner.Passed {
					t.Fatalf("%s: %s", res.Status, res.Message)
				}
				return
			}
			if res.Status != runner.Failed || len(res.Failures) != 1 {
				t.Fatalf("%s with %d failures (%s); want one failure, the comparison's", res.Status, len(res.Failures), res.Message)
			}
			f := res.Failures[0]
			if !strings.Contains(f.Message, "against the benign run of the same turn (I-TUI-09)") ||
				!strings.Contains(f.Message, "risk.high") || strings.Join(f.IDs, " ") != "FR-OUT-02 NFR-SEC-05" {
				t.Errorf("failure %v: %s\n%s", f.IDs, f.Message, f.Diff)
			}
		})
	}
}
