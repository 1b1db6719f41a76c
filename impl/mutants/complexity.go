package mutants

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"

	"github.com/forge-conform/forge-conform/impl/tools/searchfiles"
)

// complexityMutants sort their results in quadratic time (NFR-LD-PERF-02,
// NFR-SF-PERF-02): the reference's entries are put back in the order a
// depth-first walk meets them and sorted again by an insertion sort, the
// way a tool that inserts each entry into a sorted list as it walks would
// do it. The result is byte for byte the reference's (ties keep the
// reference's order), so only the cost differs: the scaling cases, which
// time the same call at n and 16n entries, must catch it, and no other
// case may. They run as a process (`forge-conform ref --mutant NAME`):
// complexity is judged on an implementation's own CPU time, which the
// in-process target has not.
func complexityMutants() []Mutant {
	return []Mutant{
		{
			Name: "quadratic-listing-sort", Doc: "list_directory sorts its entries by path with an insertion sort over the walk's order (O(n²))",
			Specs:   []string{"list_directory"},
			Breaks:  ids("list_directory", "NFR-LD-PERF-02"),
			Options: wrap(onListing(quadraticListingSort)),
			Process: true,
		},
		{
			Name: "quadratic-search-sort", Doc: "search_files sorts its matches by path, line and column with an insertion sort over the walk's order (O(n²))",
			Specs:   []string{searchfiles.Name},
			Breaks:  ids(searchfiles.Name, "NFR-SF-PERF-02"),
			Options: wrap(onSearchResult(quadraticSearchSort)),
			Process: true,
		},
	}
}

// sortItem is one entry or match with what the sort compares: its path
// (as the result spells it, lossy), line and column, and its rank in the
// reference's order, which breaks the ties the SRD leaves open.
type sortItem struct {
	path         string
	parts        []string
	line, column int64
	rank         int
	raw          json.RawMessage
}

// compareItems is the order FR-LD-OUT-01 and FR-SF-OUT-01 ask for.
func compareItems(a, b *sortItem) int {
	if c := strings.Compare(a.path, b.path); c != 0 {
		return c
	}
	if c := cmp.Compare(a.line, b.line); c != 0 {
		return c
	}
	if c := cmp.Compare(a.column, b.column); c != 0 {
		return c
	}
	return cmp.Compare(a.rank, b.rank)
}

// insertionSorted puts items in the order a depth-first walk that sorts
// each directory's names meets them, then sorts them again by
// compareItems, moving each item left one place at a time: n²/4 steps on
// average, and as many as there are pairs out of order.
func insertionSorted(items []sortItem) []json.RawMessage {
	slices.SortStableFunc(items, func(a, b sortItem) int { return slices.Compare(a.parts, b.parts) })
	for i := 1; i < len(items); i++ {
		for j := i; j > 0 && compareItems(&items[j-1], &items[j]) > 0; j-- {
			items[j-1], items[j] = items[j], items[j-1]
		}
	}
	out := make([]json.RawMessage, len(items))
	for i := range items {
		out[i] = items[i].raw
	}
	return out
}

// quadraticListingSort re-sorts a listing's entries in quadratic time.
func quadraticListingSort(l *listing) {
	items := make([]sortItem, len(l.Entries))
	for i, e := range l.Entries {
		p := key(e).Path
		items[i] = sortItem{path: p, parts: strings.Split(p, "/"), rank: i, raw: e}
	}
	l.Entries = insertionSorted(items)
}

// quadraticSearchSort re-sorts a search's matches in quadratic time.
func quadraticSearchSort(r *sfResult) {
	items := make([]sortItem, len(r.Matches))
	for i, m := range r.Matches {
		k := sfKey(m)
		items[i] = sortItem{path: k.Path, parts: strings.Split(k.Path, "/"), line: k.Line, column: k.Column, rank: i, raw: m}
	}
	r.Matches = insertionSorted(items)
}
