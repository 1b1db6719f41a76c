package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/forge-conform/forge-conform/conformance/check"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/fusefault"
)

// A case with quiet_after_abort (corpus.Quiet) counts the filesystem
// operations its implementation performs on the fixture after the call's
// result: the fault layer that serves the fixture counts them, the case's
// own FUSE mount for an external implementation, or the in-process
// target's fault filesystem (OpCounter).

// OpCounter is a Conversation whose own fault layer serves the case's
// fixture (a target with Caps.Faults) and counts the operations it serves
// (fsys.FaultFs.Ops): how many so far, false if it has none yet.
type OpCounter interface {
	FixtureOps() (int64, bool)
}

// fixtureOps returns how to count the operations on the case's fixture:
// through its own mount m when the runner injects the faults, else the
// conversation's own count; nil when neither counts.
func fixtureOps(m *fusefault.Mount, conv Conversation) func() (int64, bool) {
	if m != nil {
		return func() (int64, bool) { return m.Ops(), true }
	}
	if oc, ok := conv.(OpCounter); ok {
		return oc.FixtureOps
	}
	return nil
}

// observeQuiet waits q.Settle after arrived (when the call's result came),
// then counts the operations ops reports during q.Within: more than
// q.MaxOps is a failure naming the case's primary ID. A message is an
// error of the runner (the count is unavailable, the case's deadline came).
func observeQuiet(ctx context.Context, c *corpus.Case, q *corpus.Quiet, arrived time.Time, ops func() (int64, bool)) (*check.Failure, string) {
	if ops == nil {
		return nil, "quiet_after_abort: this target's fault layer does not count the operations it serves (runner.OpCounter)"
	}
	sleep := func(d time.Duration) bool {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return true
		case <-ctx.Done():
			return false
		}
	}
	if !sleep(time.Until(arrived.Add(q.Settle()))) {
		return nil, "quiet_after_abort: the case's deadline came while waiting for the implementation to settle: raise --timeout"
	}
	first, ok := ops()
	if !ok {
		return nil, "quiet_after_abort: the fixture's fault layer counted nothing: does the case's fixture have a fault or slow line?"
	}
	if !sleep(q.Within()) {
		return nil, "quiet_after_abort: the case's deadline came while counting: raise --timeout"
	}
	last, _ := ops()
	if n := last - first; n > int64(q.MaxOps) {
		return &check.Failure{IDs: []string{c.PrimaryID()}, Kind: check.KindExpect,
			Message: fmt.Sprintf("the implementation went on working on the fixture after the call's result: %d filesystem operations from %d ms to %d ms after the result, at most %d allowed (a tool checks its abort periodically, and stops once aborted)",
				n, q.SettleMS, q.SettleMS+q.WithinMS, q.MaxOps)}, ""
	}
	return nil, ""
}
