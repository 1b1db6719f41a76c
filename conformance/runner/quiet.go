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

// observeQuiet waits until q.After from sent (when the call was sent),
// then counts the operations ops reports during q.Within: more than
// q.MaxOps is a failure naming the case's primary ID. A message is an
// error of the runner (the count is unavailable, the case's deadline
// came). It runs beside the exchange, whose result may come at any time.
func observeQuiet(ctx context.Context, c *corpus.Case, q *corpus.Quiet, sent time.Time, ops func() (int64, bool)) (*check.Failure, string) {
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
	if !sleep(time.Until(sent.Add(q.After()))) {
		return nil, "quiet_after_abort: the case's deadline came before the counting began: raise --timeout"
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
			Message: fmt.Sprintf("the implementation went on working on the fixture after its call was aborted: %d filesystem operations from %d ms to %d ms after the request, at most %d allowed (a tool checks its abort periodically, and stops once aborted)",
				n, q.AfterMS, q.AfterMS+q.WithinMS, q.MaxOps)}, ""
	}
	return nil, ""
}

// quietRun is observeQuiet running beside the call's exchange.
type quietRun struct {
	done    chan struct{}
	failure *check.Failure
	msg     string
}

// startQuiet starts observeQuiet for c's call, sent now; nil when c has
// no quiet_after_abort.
func startQuiet(ctx context.Context, c *corpus.Case, ops func() (int64, bool)) *quietRun {
	q := c.QuietAfterAbort
	if q == nil {
		return nil
	}
	qr := &quietRun{done: make(chan struct{})}
	sent := time.Now()
	go func() {
		defer close(qr.done)
		qr.failure, qr.msg = observeQuiet(ctx, c, q, sent, ops)
	}()
	return qr
}

// wait returns observeQuiet's outcome once it has one.
func (qr *quietRun) wait() (*check.Failure, string) {
	if qr == nil {
		return nil, ""
	}
	<-qr.done
	return qr.failure, qr.msg
}
