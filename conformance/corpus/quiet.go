package corpus

import (
	"fmt"
	"time"
)

// Quiet is what the runner observes of the fixture's filesystem once a
// call has been aborted (quiet_after_abort; spec/INTERPRETATIONS.md
// I-EXE-35): the call is one the case makes outlive its limit (FR-EXE-03),
// so its tool is aborted, and a tool that checks its abort (FR-EXE-04)
// stops working on the filesystem soon after. The runner counts the
// operations the fixture's fault layer serves (in-process
// fsys.FaultFs.Ops, or a fusefault mount's Ops for a --binary
// implementation): AfterMS after it sends the call (the call's limit, and
// then time for the tool to notice its abort and finish what it was in
// the middle of) it takes the count, and WithinMS later again; the
// difference must be at most MaxOps. The window is timed from the request,
// not from the result, so that a result the implementation holds back
// until its tool is done hides nothing; a tool that has returned performs
// no operation at all.
//
// The case runs on a layout and a mount of its own (Private), so that no
// other case's operations are counted; a failure names the case's primary
// ID.
type Quiet struct {
	AfterMS  int `json:"after_ms"`
	WithinMS int `json:"within_ms"`
	MaxOps   int `json:"max_ops"`
}

// After is when the window opens, from the request.
func (q *Quiet) After() time.Duration { return time.Duration(q.AfterMS) * time.Millisecond }

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
