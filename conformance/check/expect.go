package check

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/google/go-cmp/cmp"

	"github.com/forge-conform/forge-conform/spec/fcp"
)

// Expectation compares the response with the case's hand-written
// expectation. A mismatch is attributed to every ID the case covers.
func Expectation(in Input) []Failure {
	ids := in.Case.IDs
	e := in.Case.Expect
	r := in.Resp
	ok := r.OK != nil && *r.OK
	switch {
	case e.Error != nil:
		if ok {
			return []Failure{{IDs: ids, Kind: KindExpect,
				Message: fmt.Sprintf("want error %s, got a successful result", e.Error.Kind),
				Diff:    clip(contentOf(r), 2000)}}
		}
		return expectError(in, ids)
	case !ok:
		msg := "want a successful result, got an error"
		if r.Error != nil {
			msg = fmt.Sprintf("want a successful result, got %s: %s", r.Error.Kind, r.Error.Message)
		}
		return []Failure{{IDs: ids, Kind: KindExpect, Message: msg}}
	case e.Text != nil:
		got := contentOf(r)
		if in.Case.Op == fcp.OpSummary && r.Summary != nil {
			got = *r.Summary
		}
		if got == *e.Text {
			return nil
		}
		return []Failure{{IDs: ids, Kind: KindExpect, Message: "content differs from the expected text",
			Diff: cmp.Diff(strings.Split(*e.Text, "\n"), strings.Split(got, "\n"))}}
	case e.JSON != nil:
		var want any
		if err := decodeJSON(e.JSON, &want); err != nil {
			return []Failure{{IDs: ids, Kind: KindExpect, Message: "case expectation is not valid JSON: " + err.Error()}}
		}
		got, err := actualJSON(in)
		if err != nil {
			return []Failure{{IDs: ids, Kind: KindExpect, Message: err.Error()}}
		}
		proj := Project(want, got)
		if reflect.DeepEqual(want, proj) {
			return nil
		}
		if d := cmp.Diff(want, proj); d != "" {
			return []Failure{{IDs: ids, Kind: KindExpect, Message: "result differs from the expectation (only the fields the case lists are compared)", Diff: d}}
		}
	}
	return nil
}

func expectError(in Input, ids []string) []Failure {
	e, got := in.Case.Expect.Error, in.Resp.Error
	if got == nil {
		return []Failure{{IDs: ids, Kind: KindExpect, Message: "want error " + e.Kind + ", got a response with neither content nor error"}}
	}
	var out []Failure
	if got.Kind != e.Kind {
		out = append(out, Failure{IDs: ids, Kind: KindExpect,
			Message: fmt.Sprintf("want error kind %s, got %s (message: %q)", e.Kind, got.Kind, got.Message)})
	}
	if e.Message != nil && got.Message != *e.Message {
		out = append(out, Failure{IDs: ids, Kind: KindExpect, Message: "error message differs",
			Diff: cmp.Diff(*e.Message, got.Message)})
	}
	for _, w := range e.MessageContains {
		if !strings.Contains(strings.ToLower(got.Message), strings.ToLower(w)) {
			out = append(out, Failure{IDs: ids, Kind: KindExpect,
				Message: fmt.Sprintf("error message %q does not contain %q", got.Message, w)})
		}
	}
	if e.Denial != nil {
		if got.Denial == nil {
			out = append(out, Failure{IDs: ids, Kind: KindExpect, Message: "want denial reason " + e.Denial.Reason + ", got no denial"})
		} else {
			want := fcp.Denial{Reason: e.Denial.Reason, Pattern: e.Denial.Pattern, Attempted: e.Denial.Attempted, Resolved: e.Denial.Resolved}
			have := fcp.Denial{Reason: got.Denial.Reason}
			if want.Pattern != "" {
				have.Pattern = got.Denial.Pattern
			}
			if want.Attempted != "" {
				have.Attempted = got.Denial.Attempted
			}
			if want.Resolved != "" {
				have.Resolved = got.Denial.Resolved
			}
			if d := cmp.Diff(want, have); d != "" {
				out = append(out, Failure{IDs: ids, Kind: KindExpect, Message: "denial differs", Diff: d})
			}
		}
	}
	return out
}

// actualJSON is the value the json expectation is matched against: the
// parsed content for calls, the definitions keyed by name for definitions.
func actualJSON(in Input) (any, error) {
	if in.Case.Op == fcp.OpDefinitions {
		defs := map[string]any{}
		for _, d := range in.Resp.Definitions {
			raw, _ := json.Marshal(d)
			var v any
			if err := decodeJSON(raw, &v); err != nil {
				return nil, err
			}
			defs[d.Name] = v
		}
		return defs, nil
	}
	var got any
	if err := decodeJSON([]byte(contentOf(in.Resp)), &got); err != nil {
		return nil, fmt.Errorf("content is not JSON: %v", err)
	}
	return got, nil
}

// Project reduces got to the shape of want: objects keep only want's keys,
// arrays are projected element by element (extra elements on want's last
// element's shape). cmp.Diff(want, Project(want, got)) is then empty exactly
// when got partially matches want.
func Project(want, got any) any {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return got
		}
		out := make(map[string]any, len(w))
		for k := range w {
			if v, ok := g[k]; ok {
				out[k] = Project(w[k], v)
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok {
			return got
		}
		out := make([]any, len(g))
		for i := range g {
			if len(w) == 0 {
				out[i] = g[i]
				continue
			}
			out[i] = Project(w[min(i, len(w)-1)], g[i])
		}
		return out
	}
	return got
}

func contentOf(r fcp.Response) string {
	if r.Content == nil {
		return ""
	}
	return *r.Content
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("... (%d more bytes)", len(s)-n)
}

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
