package check

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/diff"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// Expectation compares the response (and, when the expectation states one,
// the tree after the call) with the case's hand-written expectation. A
// mismatch is attributed to every ID the case covers. Advice checks that
// fail are returned with SeverityWarn. An any_of expectation holds when
// one of its alternatives holds (its warnings are returned); otherwise one
// failure lists why each alternative does not.
func Expectation(in Input) []Failure {
	e := in.Case.Expect
	if len(e.AnyOf) == 0 {
		return expectOne(in, e)
	}
	var why []string
	for i, alt := range e.AnyOf {
		fs := expectOne(in, alt)
		if !failing(fs) {
			return fs
		}
		for _, f := range fs {
			if f.Severity != SeverityFail {
				continue
			}
			line := fmt.Sprintf("reading %d: %s", i+1, f.Message)
			if f.Diff != "" {
				line += "\n" + indent(f.Diff)
			}
			why = append(why, line)
		}
	}
	return []Failure{{IDs: in.Case.IDs, Kind: KindExpect,
		Message: fmt.Sprintf("none of the %d readings the SRD allows holds", len(e.AnyOf)),
		Diff:    strings.Join(why, "\n")}}
}

// failing reports whether fs holds a failure of severity fail.
func failing(fs []Failure) bool {
	for _, f := range fs {
		if f.Severity == SeverityFail {
			return true
		}
	}
	return false
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

// expectOne checks one expectation (no any_of): the response, then the tree
// when both the expectation and the input have one.
func expectOne(in Input, e corpus.Expect) []Failure {
	out := expectResponse(in, e)
	if a := e.Advice; a != nil && in.Resp.OK != nil && *in.Resp.OK {
		out = append(out, adviceOn(in, a)...)
	}
	if e.Tree != nil && in.Before != nil {
		out = append(out, Tree(in.Before, in.After, e.Tree, in.Case.IDs)...)
	}
	return out
}

// adviceOn checks a successful result against a text or JSON advice; a
// difference is a warning.
func adviceOn(in Input, a *corpus.TextAdvice) []Failure {
	why := ""
	if a.Why != "" {
		why = " (" + a.Why + ")"
	}
	warn := func(msg, d string) []Failure {
		return []Failure{{IDs: in.Case.IDs, Kind: KindExpect, Message: msg + why, Diff: d, Severity: SeverityWarn}}
	}
	if a.JSON == nil {
		if got := resultText(in); got != a.Text {
			return warn(fmt.Sprintf("advice: result %q differs from %q", clip(got, 300), a.Text), "")
		}
		return nil
	}
	var want any
	if err := decodeJSON(a.JSON, &want); err != nil {
		return []Failure{{IDs: in.Case.IDs, Kind: KindExpect, Message: "case advice is not valid JSON: " + err.Error()}}
	}
	got, err := actualJSON(in)
	if err != nil {
		return warn("advice: "+err.Error(), "")
	}
	proj := Project(want, got)
	if reflect.DeepEqual(want, proj) {
		return nil
	}
	return warn("advice: result differs from the reference's reading (only the fields the advice lists are compared)",
		diff.JSON(want, proj, a.JSON, []byte(contentOf(in.Resp))))
}

func expectResponse(in Input, e corpus.Expect) []Failure {
	ids := in.Case.IDs
	r := in.Resp
	ok := r.OK != nil && *r.OK
	switch {
	case e.Error != nil:
		if ok {
			return []Failure{{IDs: ids, Kind: KindExpect,
				Message: fmt.Sprintf("want %s, got a successful result", wantError(e.Error)),
				Diff:    clip(contentOf(r), 2000)}}
		}
		return expectError(in, e.Error, ids)
	case !ok:
		msg := "want a successful result, got an error"
		if r.Error != nil {
			msg = fmt.Sprintf("want a successful result, got %s: %s", r.Error.Kind, r.Error.Message)
		}
		return []Failure{{IDs: ids, Kind: KindExpect, Message: msg}}
	case e.Success:
		return nil
	case e.DefinitionsSorted:
		var names []string
		for _, d := range r.Definitions {
			names = append(names, d.Name)
		}
		if !slices.IsSorted(names) {
			return []Failure{{IDs: ids, Kind: KindExpect,
				Message: fmt.Sprintf("definitions are not sorted by name: %s", strings.Join(names, ", "))}}
		}
		return nil
	case len(e.Contains) > 0:
		var out []Failure
		got := resultText(in)
		for _, w := range e.Contains {
			if corpus.HasPaths(w) {
				if !textPattern(w, in.Root, false, true).MatchString(got) {
					out = append(out, Failure{IDs: ids, Kind: KindExpect,
						Message: fmt.Sprintf("content %q does not contain %q%s", clip(got, 300), corpus.AsWritten(w), pathNote)})
				}
				continue
			}
			if !strings.Contains(strings.ToLower(got), strings.ToLower(w)) {
				out = append(out, Failure{IDs: ids, Kind: KindExpect,
					Message: fmt.Sprintf("content %q does not contain %q", clip(got, 300), w)})
			}
		}
		return out
	case e.Text != nil:
		got := resultText(in)
		if got == *e.Text {
			return nil
		}
		if corpus.HasPaths(*e.Text) {
			if textPattern(*e.Text, in.Root, true, false).MatchString(got) {
				return nil
			}
			return []Failure{{IDs: ids, Kind: KindExpect, Message: "content differs from the expected text" + pathNote,
				Diff: diff.Content(corpus.AsWritten(*e.Text), got)}}
		}
		return []Failure{{IDs: ids, Kind: KindExpect, Message: "content differs from the expected text",
			Diff: diff.Content(*e.Text, got)}}
	case e.Sanitized != nil:
		got := resultText(in)
		if r, ok := firstControl(got); ok {
			return []Failure{{IDs: ids, Kind: KindExpect, Message: controlMessage(r)}}
		}
		if sanitizedPattern(*e.Sanitized).MatchString(got) {
			return nil
		}
		return []Failure{{IDs: ids, Kind: KindExpect,
			Message: "content differs from the expected text with its control characters removed or neutralized",
			Diff: diff.Content(strings.Map(func(r rune) rune {
				if isControl(r) {
					return -1
				}
				return r
			}, *e.Sanitized), got)}}
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
		if d := diff.JSON(want, proj, e.JSON, []byte(contentOf(r))); d != "" {
			return []Failure{{IDs: ids, Kind: KindExpect, Message: "result differs from the expectation (only the fields the case lists are compared)", Diff: d}}
		}
	}
	return nil
}

// resultText is the text a text, contains or advice expectation reads: the
// summary for op summary, else the content.
func resultText(in Input) string {
	if in.Case.Op == fcp.OpSummary && in.Resp.Summary != nil {
		return *in.Resp.Summary
	}
	return contentOf(in.Resp)
}

// wantError names the error an expectation wants: its kind, or any.
func wantError(e *corpus.ExpectError) string {
	if e.Kind == "" {
		return "an error (any kind)"
	}
	return "error " + e.Kind
}

func expectError(in Input, e *corpus.ExpectError, ids []string) []Failure {
	got := in.Resp.Error
	if got == nil {
		return []Failure{{IDs: ids, Kind: KindExpect, Message: "want " + wantError(e) + ", got a response with neither content nor error"}}
	}
	var out []Failure
	if slices.Contains(e.NotKinds, got.Kind) {
		out = append(out, Failure{IDs: ids, Kind: KindExpect,
			Message: fmt.Sprintf("want an error of any kind but %s, got %s (message: %q)", strings.Join(e.NotKinds, ", "), got.Kind, got.Message)})
	}
	if e.Kind != "" && got.Kind != e.Kind {
		out = append(out, Failure{IDs: ids, Kind: KindExpect,
			Message: fmt.Sprintf("want error kind %s, got %s (message: %q)", e.Kind, got.Kind, got.Message)})
	}
	if e.Message != nil && got.Message != *e.Message {
		out = append(out, Failure{IDs: ids, Kind: KindExpect, Message: "error message differs",
			Diff: diff.Text(*e.Message+"\n", got.Message+"\n")})
	}
	for _, w := range e.MessageContains {
		if !strings.Contains(strings.ToLower(got.Message), strings.ToLower(w)) {
			out = append(out, Failure{IDs: ids, Kind: KindExpect,
				Message: fmt.Sprintf("error message %q does not contain %q", got.Message, w)})
		}
	}
	if a := e.Advice; a != nil {
		if a.Kind != "" && got.Kind != a.Kind {
			msg := fmt.Sprintf("advice: error kind %s, the reference's (the SRD names no kind here), got %s", a.Kind, got.Kind)
			if a.Why != "" {
				msg += " (" + a.Why + ")"
			}
			out = append(out, Failure{IDs: ids, Kind: KindExpect, Message: msg, Severity: SeverityWarn})
		}
		for _, w := range a.MessageContains {
			if !strings.Contains(strings.ToLower(got.Message), strings.ToLower(w)) {
				msg := fmt.Sprintf("advice: error message %q does not contain %q", got.Message, w)
				if a.Why != "" {
					msg += " (" + a.Why + ")"
				}
				out = append(out, Failure{IDs: ids, Kind: KindExpect, Message: msg, Severity: SeverityWarn})
			}
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
			if d := diff.JSON(want, have); d != "" {
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
// element's shape), array expectations ({"$array": ...}, see projectArray)
// keep the properties want states, and alternatives ({"$any": [...]}, see
// projectAny) stay as they are when one of them matches. cmp.Diff(want,
// Project(want, got)) is then empty exactly when got partially matches want.
func Project(want, got any) any {
	switch w := want.(type) {
	case map[string]any:
		if spec, ok := arraySpec(w); ok {
			return projectArray(spec, got)
		}
		if alts, ok := anySpec(w); ok {
			return projectAny(w, alts, got)
		}
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
