package listdir

// sortEntries sorts entries by compareEntries (FR-LD-OUT-01, I-LD-02).
//
// The walk yields entries nearly in that order: each directory's names in
// order, each subtree right after its directory. Only a directory whose
// name is a prefix of a later sibling's, followed by a byte below '/'
// ("a" with "a-b" or "a.go"), puts its subtree ("a/x") before entries that
// sort ahead of it, and each such case starts a new ascending run. So
// this is a natural merge sort: it finds the maximal ascending runs and
// merges neighbours until one is left, O(n log runs) comparisons where a
// general sort makes O(n log n).
func sortEntries(entries []*entry) {
	bounds := []int{0} // starts of the runs, then len(entries)
	for i := 1; i < len(entries); i++ {
		if compareEntries(entries[i-1], entries[i]) > 0 {
			bounds = append(bounds, i)
		}
	}
	if len(bounds) == 1 {
		return
	}
	bounds = append(bounds, len(entries))
	src, dst := entries, make([]*entry, len(entries))
	for len(bounds) > 2 {
		next := bounds[:1]
		for i := 0; i+1 < len(bounds); i += 2 {
			lo, mid := bounds[i], bounds[i+1]
			if i+2 == len(bounds) { // an odd run out: carried over
				copy(dst[lo:mid], src[lo:mid])
				next = append(next, mid)
				continue
			}
			hi := bounds[i+2]
			mergeRuns(dst[lo:hi], src[lo:mid], src[mid:hi])
			next = append(next, hi)
		}
		bounds = next
		src, dst = dst, src
	}
	if &src[0] != &entries[0] {
		copy(entries, src)
	}
}

// mergeRuns merges the sorted a and b into dst, len(a)+len(b) long.
func mergeRuns(dst, a, b []*entry) {
	i, j := 0, 0
	for k := range dst {
		if j == len(b) || (i < len(a) && compareEntries(a[i], b[j]) <= 0) {
			dst[k] = a[i]
			i++
		} else {
			dst[k] = b[j]
			j++
		}
	}
}
