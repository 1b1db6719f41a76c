package corpus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// RepeatKey marks an object of a turn's model script that stands for a
// long string: {"$repeat": "x", "times": 300000} is "x" repeated 300,000
// times. It goes wherever the script holds a string (a text, a raw_args,
// any string inside args), so that a case about a size limit (FR-LIM-03's
// default of max_tool_args_bytes) states its argument in one line instead
// of copying hundreds of kilobytes. The corpus expands it when it loads a
// case, so the runner, `forge-conform show` and the golden writer all see
// the expanded script.
const RepeatKey = "$repeat"

// Bounds of a $repeat object: times from 1 to MaxRepeatTimes, and the
// expanded string at most MaxRepeatBytes (a case that needs more is a
// benchmark, not a case).
const (
	MaxRepeatTimes = 10_000_000
	MaxRepeatBytes = 64 << 20
)

// expandRepeats expands the $repeat objects of the turn's model scripts
// (the turn's and every recover step's). Errors name the place in the
// script and say what a $repeat object accepts.
func (t *TurnSpec) expandRepeats() error {
	var err error
	if t.Model, err = expandRepeats(t.Model, "turn.model"); err != nil {
		return err
	}
	for i := range t.Recover {
		if t.Recover[i].Model, err = expandRepeats(t.Recover[i].Model, fmt.Sprintf("turn.recover[%d].model", i)); err != nil {
			return err
		}
	}
	return nil
}

// expandRepeats returns raw with every $repeat object replaced by its
// string; raw that holds none is returned unchanged (byte for byte).
func expandRepeats(raw json.RawMessage, where string) (json.RawMessage, error) {
	if !bytes.Contains(raw, []byte(`"`+RepeatKey+`"`)) {
		return raw, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	v, err := expandValue(v, where)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return json.RawMessage(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}

func expandValue(v any, where string) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v[RepeatKey]; ok {
			return repeatOf(v, where)
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			e, err := expandValue(v[k], where+"."+k)
			if err != nil {
				return nil, err
			}
			v[k] = e
		}
	case []any:
		for i, e := range v {
			e, err := expandValue(e, fmt.Sprintf("%s[%d]", where, i))
			if err != nil {
				return nil, err
			}
			v[i] = e
		}
	}
	return v, nil
}

// repeatOf is the string a $repeat object stands for.
func repeatOf(m map[string]any, where string) (string, error) {
	const form = `write {"$repeat": "TEXT", "times": N}, TEXT not empty, N from 1 to 10000000`
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if k != RepeatKey && k != "times" {
			return "", fmt.Errorf("%s: a %s object has no key %q: %s", where, RepeatKey, k, form)
		}
	}
	text, ok := m[RepeatKey].(string)
	if !ok || text == "" {
		return "", fmt.Errorf("%s: %q must be a non-empty string: %s", where, RepeatKey, form)
	}
	num, ok := m["times"].(json.Number)
	if !ok {
		return "", fmt.Errorf("%s: a %s object needs \"times\", an integer: %s", where, RepeatKey, form)
	}
	n, err := num.Int64()
	if err != nil || n < 1 || n > MaxRepeatTimes {
		return "", fmt.Errorf("%s: \"times\" is %s: %s", where, num, form)
	}
	if int64(len(text))*n > MaxRepeatBytes {
		return "", fmt.Errorf("%s: %q repeated %d times is %d bytes, over the %d a case may state", where, text, n, int64(len(text))*n, MaxRepeatBytes)
	}
	return strings.Repeat(text, int(n)), nil
}
