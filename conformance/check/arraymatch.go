package check

import (
	"encoding/json"
	"reflect"
	"strconv"
)

// arrayKey marks an array expectation stated by its properties instead of
// element by element: {"$array": {"length": N, "each": X, "at": {"0": X,
// "-1": X}, "subsequence": [X, ...]}}, every key optional. It lets a case
// say what the SRD demands of a long listing (how many, what every entry
// is, which entries come first, last, or in which order) without copying
// the listing.
const arrayKey = "$array"

// arraySpec returns the properties of an array expectation, when want is
// one (an object whose only key is "$array").
func arraySpec(want map[string]any) (map[string]any, bool) {
	if len(want) != 1 {
		return nil, false
	}
	s, ok := want[arrayKey].(map[string]any)
	return s, ok
}

// projectArray is Project for an array expectation. The result mirrors
// want: each property the array meets is copied from want, each one it
// misses is replaced by what the array has, so cmp.Diff(want, result)
// shows only the unmet properties:
//   - length: the array's length;
//   - each: the projection of the first element that does not match;
//   - at: the projection of the element at each index (negative indexes
//     count from the end), left out when the index is out of range;
//   - subsequence: the wanted elements found in order, up to the first one
//     missing.
//
// got that is not an array is returned as it is.
func projectArray(spec map[string]any, got any) any {
	g, ok := got.([]any)
	if !ok {
		return got
	}
	out := make(map[string]any, len(spec))
	for k, v := range spec {
		switch k {
		case "length":
			out[k] = projectLength(v, len(g))
		case "each":
			out[k] = projectEach(v, g)
		case "at":
			if at, ok := projectAt(v, g); ok {
				out[k] = at
			}
		case "subsequence":
			if sub, ok := projectSubsequence(v, g); ok {
				out[k] = sub
			}
		}
		// An unknown property is left out, so the diff names it.
	}
	return map[string]any{arrayKey: out}
}

// matches reports whether got partially matches want.
func matches(want, got any) bool { return reflect.DeepEqual(want, Project(want, got)) }

func projectLength(want any, n int) any {
	if w, ok := toInt(want); ok && w == n {
		return want
	}
	return json.Number(strconv.Itoa(n))
}

func projectEach(want any, g []any) any {
	for _, e := range g {
		if p := Project(want, e); !reflect.DeepEqual(want, p) {
			return p
		}
	}
	return want
}

func projectAt(want any, g []any) (map[string]any, bool) {
	w, ok := want.(map[string]any)
	if !ok {
		return nil, false
	}
	out := make(map[string]any, len(w))
	for k, x := range w {
		i, err := strconv.Atoi(k)
		if err != nil {
			continue
		}
		if i < 0 {
			i += len(g)
		}
		if i < 0 || i >= len(g) {
			continue
		}
		out[k] = Project(x, g[i])
	}
	return out, true
}

// projectSubsequence matches the wanted elements in order, each against
// the earliest element after the previous match (greedy matching finds a
// subsequence whenever one exists).
func projectSubsequence(want any, g []any) ([]any, bool) {
	w, ok := want.([]any)
	if !ok {
		return nil, false
	}
	out := make([]any, 0, len(w))
	j := 0
	for _, x := range w {
		for j < len(g) && !matches(x, g[j]) {
			j++
		}
		if j == len(g) {
			break
		}
		out = append(out, x)
		j++
	}
	return out, true
}

// toInt reads an integer decoded from JSON (json.Number or float64).
func toInt(v any) (int, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := strconv.Atoi(n.String())
		return i, err == nil
	case float64:
		return int(n), n == float64(int(n))
	case int:
		return n, true
	}
	return 0, false
}

// anyKey marks a value the SRD leaves open among readings: {"$any": [X, Y,
// ...]} matches a value that partially matches one of the alternatives. It
// states the allowed readings of one field where a top-level any_of would
// have to multiply them out (the context lines of each match, say).
const anyKey = "$any"

// anySpec returns the alternatives of an alternatives expectation, when
// want is one (an object whose only key is "$any").
func anySpec(want map[string]any) ([]any, bool) {
	if len(want) != 1 {
		return nil, false
	}
	alts, ok := want[anyKey].([]any)
	return alts, ok
}

// projectAny is Project for an alternatives expectation: want itself when
// got matches one of alts, else got as it is, so the diff shows the value
// beside the readings it missed.
func projectAny(want map[string]any, alts []any, got any) any {
	for _, a := range alts {
		if matches(a, got) {
			return want
		}
	}
	return got
}
