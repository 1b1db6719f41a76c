package runner

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/fixture"
)

// TestWaitingCases: the selected cases whose fixture delays a fault start
// at once, each on its own goroutine; the others are left to the workers.
func TestWaitingCases(t *testing.T) {
	fixtures := map[string]*fixture.Fixture{
		"slow":    {Name: "slow", Faults: []fixture.Fault{{Op: "open", Path: "f", Errno: "EIO", Delay: 2 * time.Second}}},
		"failing": {Name: "failing", Faults: []fixture.Fault{{Op: "open", Path: "f", Errno: "EIO"}}},
		"plain":   {Name: "plain"},
	}
	cases := []*corpus.Case{
		{Spec: "s", Name: "plain", Fixture: "plain"},
		{Spec: "s", Name: "slow", Fixture: "slow"},
		{Spec: "s", Name: "failing", Fixture: "failing"},
		{Spec: "s", Name: "none"},
		{Spec: "s", Name: "slow-unselected", Fixture: "slow"},
	}
	r := &Runner{opts: Options{Fixtures: fixtures, Select: &Selector{Skip: []string{"s/slow-unselected"}}}}
	var wg sync.WaitGroup
	var ran [5]atomic.Bool
	started := r.startWaiting(cases, func(i int) { ran[i].Store(true) }, &wg)
	wg.Wait()
	for i, c := range cases {
		want := c.Name == "slow"
		if started[i] != want || ran[i].Load() != want {
			t.Errorf("%s: started %v, ran %v; want %v", c.Name, started[i], ran[i].Load(), want)
		}
	}
}
