package runner_test

import (
	"context"
	"sync"
	"testing"

	"github.com/forge-conform/forge-conform/conformance/runner"
)

// TestTestToolCallOnAnyProcess: a call case of a test tool (PROTOCOL.md
// §9.6) passes on whichever process of the pool it lands, though only the
// first got hello with test_tools when the runner started: the runner
// greets a process before such a call. Four at once start four processes.
func TestTestToolCallOnAnyProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds forge-ref")
	}
	const name = "tool_executor/call-panic-is-an-error"
	opts := refOptions(t, name)
	opts.Target.Close() // refOptions' in-process reference: a binary instead
	opts.Target = nil
	opts.Binary = []string{buildRef(t)}
	opts.Jobs = 4
	opts.RunAs = "root" // a test's temp dir is not reachable by nobody
	ctx := context.Background()
	r, err := runner.New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := opts.Corpus.Find(name)
	if c == nil {
		t.Fatalf("no case %s", name)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if res := r.RunCase(ctx, c); res.Status != runner.Passed {
				t.Errorf("%s: %s", res.Status, res.Message)
			}
		}()
	}
	wg.Wait()
}
