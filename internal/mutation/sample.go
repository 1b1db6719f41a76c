package mutation

import (
	"fmt"
	"hash/fnv"
	"sort"
)

// Sample returns up to n of sites that accept takes, chosen by seed: the
// sites in the order of a hash of (seed, key), the first n accepted. A
// site's place depends on its key and the seed alone, so the same seed
// over the same source picks the same mutants, and an edit elsewhere
// changes the sample only where it adds or removes sites.
func Sample(sites []Site, seed int64, n int, accept func(Site) bool) []Site {
	type ranked struct {
		h uint64
		s Site
	}
	r := make([]ranked, len(sites))
	for i, s := range sites {
		h := fnv.New64a()
		fmt.Fprintf(h, "%d\x00%s", seed, s.Key())
		r[i] = ranked{h.Sum64(), s}
	}
	sort.SliceStable(r, func(i, j int) bool { return r[i].h < r[j].h })
	var out []Site
	for _, x := range r {
		if len(out) == n {
			break
		}
		if accept == nil || accept(x.s) {
			out = append(out, x.s)
		}
	}
	return out
}

// Verdict classes.
const (
	// Equivalent: the mutant behaves as the original does.
	Equivalent = "equivalent"
	// SRDFree: the mutant changes only what the SRD leaves free.
	SRDFree = "srd-free"
)

// FormatVerdict is the verdicts-file line for a site.
func FormatVerdict(s Site, class, reason string) string {
	return s.Key() + "  " + class + "  " + reason
}
