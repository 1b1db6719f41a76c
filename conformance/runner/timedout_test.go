package runner_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/conformance/suite"
	"github.com/forge-conform/forge-conform/impl/inproc"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// elapsedTimeouts is the reference, except that its Timeout messages name
// the time each call took, different every time, as an implementation
// printing ToolError::Timeout's elapsed field does.
type elapsedTimeouts struct {
	*inproc.Target
	calls *atomic.Int64
}

func (e elapsedTimeouts) Open(ctx context.Context) (runner.Conversation, error) {
	c, err := e.Target.Open(ctx)
	return elapsedConv{c, e.calls}, err
}

type elapsedConv struct {
	runner.Conversation
	calls *atomic.Int64
}

func (c elapsedConv) Do(ctx context.Context, req fcp.Request, faults []fixture.Fault) (runner.Reply, error) {
	rep, err := c.Conversation.Do(ctx, req, faults)
	if e := rep.Response.Error; e != nil && e.Kind == "Timeout" {
		n := c.calls.Add(1)
		e.Message = fmt.Sprintf("timed out after 1.%03ds", n)
	}
	return rep, err
}

// TestTimeoutNotRepeated: a list_directory call that timed out is not
// repeated for the determinism check (FR-LD-OUT-02): its result depends on
// time, and a Timeout message naming the elapsed time fails nothing.
func TestTimeoutNotRepeated(t *testing.T) {
	d, err := suite.Load()
	if err != nil {
		t.Fatal(err)
	}
	ref, err := inproc.New(reference.Options{})
	if err != nil {
		t.Fatal(err)
	}
	target := elapsedTimeouts{ref, new(atomic.Int64)}
	r, err := runner.New(context.Background(), runner.Options{Target: target, Corpus: d.Corpus, Specs: d.Specs, Fixtures: d.Fixtures,
		Select: &runner.Selector{Run: []string{"list_directory/list-outlives-any-timeout"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	run := r.RunAll(context.Background())
	ran := 0
	for _, res := range run.Results {
		if res.Status == runner.Skipped {
			continue
		}
		ran++
		if res.Status != runner.Passed {
			t.Errorf("%s: %s: %s", res.Case.FullName(), res.Status, res.Message)
		}
	}
	if ran != 1 {
		t.Fatalf("ran %d cases, want list_directory/list-outlives-any-timeout", ran)
	}
	if n := target.calls.Load(); n != 1 {
		t.Errorf("%d calls timed out, want 1 (the call is not repeated)", n)
	}
}
