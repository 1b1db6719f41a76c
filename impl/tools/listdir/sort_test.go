package listdir

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortEntries checks sortEntries against slices.SortFunc on runs of
// every shape: sorted, reversed, random, nearly sorted, with lossy ties.
func TestSortEntries(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	paths := []string{"a", "a-b", "a/x", "a/x/y", "a.go", "b", "\uFFFD", "\uFFFD/z", "c", "c/d", "c-", "a/y"}
	for n := range 40 {
		for trial := range 20 {
			es := make([]*entry, n)
			for i := range es {
				p := paths[rng.IntN(len(paths))] + fmt.Sprint(rng.IntN(5))
				es[i] = &entry{path: p, rawPath: fmt.Sprint(i)} // distinct raw paths: ties on path only
			}
			switch trial % 4 {
			case 0:
				slices.SortFunc(es, compareEntries)
			case 1:
				slices.SortFunc(es, compareEntries)
				slices.Reverse(es)
			case 2:
				slices.SortFunc(es, compareEntries)
				if n > 1 {
					i, j := rng.IntN(n), rng.IntN(n)
					es[i], es[j] = es[j], es[i]
				}
			}
			want := slices.Clone(es)
			slices.SortFunc(want, compareEntries)
			got := slices.Clone(es)
			sortEntries(got)
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d trial=%d: sortEntries differs from slices.SortFunc", n, trial)
			}
		}
	}
}
