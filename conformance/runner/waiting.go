package runner

import (
	"sync"

	"github.com/forge-conform/forge-conform/conformance/corpus"
)

// A case whose fixture delays a fault (fixture.Fault.Delay: a slow disk,
// for a timeout case) spends its seconds waiting, not computing: it runs
// beside the Jobs workers, started with the run, so that the rest of the
// run goes on meanwhile instead of one worker idling for it.

// waits reports whether c is selected and its fixture delays a fault.
func (r *Runner) waits(c *corpus.Case) bool {
	if r.opts.Select != nil && !r.opts.Select.Match(c) {
		return false
	}
	fx, ok := r.opts.Fixtures[c.Fixture]
	if !ok {
		return false
	}
	for _, f := range fx.Faults {
		if f.Delay > 0 {
			return true
		}
	}
	return false
}

// startWaiting starts run for each case that waits, each on its own
// goroutine counted in wg, and returns which indexes it started.
func (r *Runner) startWaiting(cases []*corpus.Case, run func(int), wg *sync.WaitGroup) map[int]bool {
	started := map[int]bool{}
	for i, c := range cases {
		if !r.waits(c) {
			continue
		}
		started[i] = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(i)
		}()
	}
	return started
}
