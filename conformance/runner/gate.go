package runner

import (
	"context"

	"golang.org/x/sync/semaphore"
)

// Gate lets a scaling case measure alone. A scaling case judges a call by
// the growth of its CPU time from n to 16n entries, and a call that
// shares the machine's caches and memory bandwidth with other cases'
// processes grows differently: the large call touches megabytes that the
// small one does not, so load from other cases inflates it more (an
// O(n log n) implementation may then look quadratic), or the small call's
// fixed costs grow (a quadratic one may then look fine). So every other
// case holds the gate shared while it runs, and a scaling case takes it
// alone for its measurement: it waits for the cases in flight to end, and
// cases that start later wait for it (first come, first served, so a
// scaling case is not starved by a stream of short ones).
//
// A runner makes its own gate; runners that run at once in one process
// (the mutants of the conformance suite beside the reference, several
// implementations side by side) share one through Options.Gate. Other
// processes on the machine are beyond it: a measurement that their load
// makes too noisy to judge is an errored case, never a verdict.
type Gate struct {
	sem *semaphore.Weighted
}

// gateAll is the gate's capacity: a case holds one unit, a scaling case
// all of them.
const gateAll = 1 << 30

// NewGate returns an open gate.
func NewGate() *Gate { return &Gate{sem: semaphore.NewWeighted(gateAll)} }

// shared waits until no scaling case measures (or ctx ends) and holds the
// gate beside other cases; release lets it go.
func (g *Gate) shared(ctx context.Context) (release func(), err error) {
	return g.take(ctx, 1)
}

// alone waits until no other case runs (or ctx ends) and holds the gate
// alone; release lets it go.
func (g *Gate) alone(ctx context.Context) (release func(), err error) {
	return g.take(ctx, gateAll)
}

func (g *Gate) take(ctx context.Context, n int64) (func(), error) {
	if err := g.sem.Acquire(ctx, n); err != nil {
		return nil, err
	}
	return func() { g.sem.Release(n) }, nil
}
