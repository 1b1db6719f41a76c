package corpus

import (
	"fmt"
	"time"
)

// Quiet is what the runner observes of the fixture's filesystem after a
// call's result (quiet_after_abort; spec/INTERPRETATIONS.md I-EXE-35): the
// call is one the case makes outlive its limit (FR-EXE-03), so its tool is
// aborted, and a tool that checks its abort (FR-EXE-04) stops working on
// the filesystem soon after. The runner counts the operations the
// fixture's fault layer serves (in-process fsys.FaultFs.Ops, or a fusefault
// mount's Ops for a --binary implementation): SettleMS after the result
// arrives (what the tool was in the middle of may finish meanwhile) it
// takes the count, and WithinMS later again; the difference must be at
// most MaxOps. Whatever the result was, a tool that has returned performs
// no operation at all.
//
// The case runs on a layout and a mount of its own (Private), so that no
// other case's operations are counted; a failure names the case's primary
// ID.
type Quiet struct {
	SettleMS int `json:"settle_ms"`
	WithinMS int `json:"within_ms"`
	MaxOps   int `json:"max_ops"`
}

// Settle and Within are the two waits as durations.
func (q *Quiet) Settle() time.Duration { return time.Duration(q.SettleMS) * time.Millisecond }

// Within is the window in which the operations are counted.
func (q *Quiet) Within() time.Duration { return time.Duration(q.WithinMS) * time.Millisecond }

// check reports what is wrong with a case's quiet_after_abort.
func (q *Quiet) check(c *Case) error {
	switch {
	case c.Op != "call":
		return fmt.Errorf("quiet_after_abort observes a call: the case must be op call")
	case c.Fixture == "":
		return fmt.Errorf("quiet_after_abort counts the operations on the case's fixture: give the case a fixture with a fault or slow line")
	case c.Primary == "":
		return fmt.Errorf("quiet_after_abort needs a primary ID: its failure names it (FR-EXE-04)")
	case c.Expect.HasTree():
		return fmt.Errorf("quiet_after_abort and an expected tree do not mix: the tree is read while the operations are counted")
	}
	return nil
}

// Private reports whether c needs a layout of its fixture (and a mount of
// it) of its own: it mutates it (Mutates), or it counts the operations on
// it (Quiet).
func (c *Case) Private(mutating map[string]bool) bool {
	return c.QuietAfterAbort != nil || c.Mutates(mutating)
}
