// Package diff renders differences for reports in a neutral form any
// implementer can read: a unified diff ("--- want", "+++ got", "@@" hunks
// with three lines of context) of two texts, or of two JSON values
// pretty-printed with their object keys in a stated order (the order the
// expectation or the SRD lists them, then the rest alphabetically).
//
// The line diff is Go's anchored diff (github.com/rogpeppe/go-internal/diff,
// the algorithm of the go command), which runs in O(n log n).
package diff

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	godiff "github.com/rogpeppe/go-internal/diff"
)

// Text returns a unified diff of want and got, "" when they are equal. A
// last line without a newline is marked "\ No newline at end of file".
func Text(want, got string) string {
	d := godiff.Diff("want", []byte(want), "got", []byte(got))
	if d == nil {
		return ""
	}
	// Drop the "diff want got" line; "--- want" and "+++ got" follow.
	_, rest, _ := bytes.Cut(d, []byte("\n"))
	return string(rest)
}

// JSON returns a unified diff of two JSON values pretty-printed by Pretty,
// "" when the renderings are equal. Each value is what encoding/json
// decodes (maps, slices, json.Number, ...) or anything it can encode. The
// hints are JSON documents whose object keys set the order (see Pretty).
func JSON(want, got any, hints ...[]byte) string {
	return Text(Pretty(want, hints...), Pretty(got, hints...))
}

// Pretty renders v as JSON indented by two spaces, ending in a newline,
// without HTML escaping. An object's keys come in the order the first hint
// holding an object at the same place lists them (places are key paths;
// all elements of an array share one place), then the other keys in
// alphabetical order.
func Pretty(v any, hints ...[]byte) string {
	ord := order{}
	for _, h := range hints {
		ord.learn(h)
	}
	nv, raw := normalize(v)
	if raw != nil {
		ord.learn(raw) // a struct's fields in declaration order
	}
	var b strings.Builder
	ord.write(&b, nv, "", "")
	b.WriteString("\n")
	return b.String()
}

// order maps a place ("" for the top, then "/key" and "/[]" steps) to the
// keys of the object there, in the order first seen.
type order map[string][]string

func (o order) learn(doc []byte) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	_ = o.walk(dec, "")
}

// walk reads one value from dec, recording the keys of its objects.
func (o order) walk(dec *json.Decoder, place string) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	switch t {
	case json.Delim('{'):
		seen := map[string]bool{}
		for _, k := range o[place] {
			seen[k] = true
		}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			k, _ := kt.(string)
			if !seen[k] {
				seen[k] = true
				o[place] = append(o[place], k)
			}
			if err := o.walk(dec, place+"/"+k); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	case json.Delim('['):
		for dec.More() {
			if err := o.walk(dec, place+"/[]"); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	}
	return err
}

func (o order) keys(place string, m map[string]any) []string {
	out := make([]string, 0, len(m))
	used := map[string]bool{}
	for _, k := range o[place] {
		if _, ok := m[k]; ok {
			out = append(out, k)
			used[k] = true
		}
	}
	var rest []string
	for k := range m {
		if !used[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

func (o order) write(b *strings.Builder, v any, place, ind string) {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		keys := o.keys(place, x)
		for i, k := range keys {
			b.WriteString(ind + "  ")
			b.WriteString(scalar(k))
			b.WriteString(": ")
			o.write(b, x[k], place+"/"+k, ind+"  ")
			if i < len(keys)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString(ind + "}")
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, e := range x {
			b.WriteString(ind + "  ")
			o.write(b, e, place+"/[]", ind+"  ")
			if i < len(x)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString(ind + "]")
	default:
		b.WriteString(scalar(x))
	}
}

// scalar encodes a string, number, bool or null without HTML escaping.
func scalar(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "<" + err.Error() + ">"
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// normalize turns any encodable value into the shapes encoding/json
// decodes to (maps, slices, json.Number, string, bool, nil), so structs
// and typed slices render like the JSON they stand for; raw is their
// encoding (nil for values already in those shapes), whose key order is
// the fields' order.
func normalize(v any) (out any, raw []byte) {
	if plain(v) {
		return v, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return "<" + err.Error() + ">", nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		return "<" + err.Error() + ">", nil
	}
	return out, raw
}

// plain reports whether v holds only decoded-JSON shapes.
func plain(v any) bool {
	switch x := v.(type) {
	case nil, string, bool, json.Number, float64:
		return true
	case map[string]any:
		for _, e := range x {
			if !plain(e) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range x {
			if !plain(e) {
				return false
			}
		}
		return true
	}
	return false
}

// Content diffs two tool outputs: when both are one-line JSON values whose
// pretty renderings differ, the renderings (keys in the order want writes
// them); otherwise the texts themselves.
func Content(want, got string) string {
	if want == got {
		return ""
	}
	if oneLineJSON(want) && oneLineJSON(got) {
		w, g := decoded(want), decoded(got)
		if d := JSON(w, g, []byte(want), []byte(got)); d != "" {
			return d
		}
	}
	return Text(want, got)
}

func oneLineJSON(s string) bool {
	return !strings.Contains(strings.TrimSuffix(s, "\n"), "\n") && json.Valid([]byte(s))
}

func decoded(s string) any {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	_ = dec.Decode(&v)
	return v
}
