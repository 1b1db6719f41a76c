package codexlistdir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// Argument defaults of ListDirArgs.
const (
	defaultOffset = 1
	defaultLimit  = 25
	defaultDepth  = 2
)

// args is ListDirArgs: serde's usize fields become uint64.
type args struct {
	DirPath string
	Offset  uint64
	Limit   uint64
	Depth   uint64
}

// parseArgs mirrors serde_json::from_str::<ListDirArgs>: fields are read in
// document order and the first bad one is reported; a repeated field is an
// error; unknown fields are ignored; missing ones take their defaults, and
// dir_path is required. Messages follow serde's wording without serde_json's
// " at line L column C" suffix (the position in the model's original
// argument string is not known here).
func parseArgs(raw json.RawMessage) (args, error) {
	a := args{Offset: defaultOffset, Limit: defaultLimit, Depth: defaultDepth}
	fail := func(format string, v ...any) (args, error) {
		return a, toolerr.New(toolerr.BadArgs, "failed to parse function arguments: "+format, v...)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return fail("EOF while parsing a value")
	}
	if raw[0] != '{' {
		var v json.RawMessage
		if err := json.Unmarshal(raw, &v); err != nil {
			return fail("%v", err)
		}
		return fail("invalid type: %s, expected struct ListDirArgs", unexpected(v))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return fail("%v", err)
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fail("%v", err)
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return fail("%v", err)
		}
		var dst *uint64
		switch key {
		case "dir_path":
		case "offset":
			dst = &a.Offset
		case "limit":
			dst = &a.Limit
		case "depth":
			dst = &a.Depth
		default:
			continue
		}
		if seen[key] {
			return fail("duplicate field `%s`", key)
		}
		seen[key] = true
		if dst == nil {
			if v[0] != '"' {
				return fail("invalid type: %s, expected a string", unexpected(v))
			}
			if err := json.Unmarshal(v, &a.DirPath); err != nil {
				return fail("%v", err)
			}
			continue
		}
		n, err := parseUsize(v)
		if err != nil {
			return fail("%v", err)
		}
		*dst = n
	}
	if _, err := dec.Token(); err != nil {
		return fail("%v", err)
	}
	if !seen["dir_path"] {
		return fail("missing field `dir_path`")
	}
	return a, nil
}

// validate applies the handler's checks in its order (offset, limit,
// depth, then dir_path absolute), with Codex's exact messages.
func validate(a args) error {
	switch {
	case a.Offset == 0:
		return toolerr.New(toolerr.BadArgs, "offset must be a 1-indexed entry number")
	case a.Limit == 0:
		return toolerr.New(toolerr.BadArgs, "limit must be greater than zero")
	case a.Depth == 0:
		return toolerr.New(toolerr.BadArgs, "depth must be greater than zero")
	case !strings.HasPrefix(a.DirPath, "/"): // Path::is_absolute on Unix
		return toolerr.New(toolerr.BadArgs, "dir_path must be an absolute path")
	}
	return nil
}

// number is a JSON number classified the way serde_json's parser does.
type number struct {
	kind byte // 'u' (u64), 'i' (negative i64) or 'f' (f64)
	u    uint64
	i    int64
	f    float64
}

// parseNumber classifies a JSON number literal: integers without fraction
// or exponent that fit u64 (or, negative, i64) stay integers; "-0", larger
// magnitudes and everything else become f64.
func parseNumber(lit string) (number, error) {
	if !strings.ContainsAny(lit, ".eE") {
		neg := strings.HasPrefix(lit, "-")
		if mag, err := strconv.ParseUint(strings.TrimPrefix(lit, "-"), 10, 64); err == nil {
			switch {
			case !neg:
				return number{kind: 'u', u: mag}, nil
			case mag != 0 && mag <= 1<<63:
				return number{kind: 'i', i: int64(-mag)}, nil
			}
		}
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return number{}, fmt.Errorf("invalid number")
	}
	if math.IsInf(f, 0) {
		return number{}, fmt.Errorf("number out of range")
	}
	return number{kind: 'f', f: f}, nil
}

// parseUsize deserializes a usize the way serde does.
func parseUsize(v json.RawMessage) (uint64, error) {
	if c := v[0]; c != '-' && (c < '0' || c > '9') {
		return 0, fmt.Errorf("invalid type: %s, expected usize", unexpected(v))
	}
	n, err := parseNumber(string(v))
	if err != nil {
		return 0, err
	}
	switch n.kind {
	case 'u':
		return n.u, nil
	case 'i':
		return 0, fmt.Errorf("invalid value: integer `%d`, expected usize", n.i)
	}
	return 0, fmt.Errorf("invalid type: floating point `%s`, expected usize", rustFloat(n.f))
}

// unexpected describes a JSON value as serde's Unexpected does.
func unexpected(v json.RawMessage) string {
	switch c := v[0]; {
	case c == 'n':
		return "null"
	case c == 't' || c == 'f':
		return fmt.Sprintf("boolean `%s`", v)
	case c == '"':
		var s string
		_ = json.Unmarshal(v, &s)
		return "string " + rustDebug(s)
	case c == '[':
		return "sequence"
	case c == '{':
		return "map"
	}
	n, err := parseNumber(string(v))
	switch {
	case err != nil:
		return string(v)
	case n.kind == 'u':
		return fmt.Sprintf("integer `%d`", n.u)
	case n.kind == 'i':
		return fmt.Sprintf("integer `%d`", n.i)
	}
	return fmt.Sprintf("floating point `%s`", rustFloat(n.f))
}

// rustFloat formats f like Rust's Display for f64 (shortest round-trip
// digits, never an exponent) with serde's guaranteed decimal point.
func rustFloat(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// rustDebug approximates Rust's Debug for str: quoted, with \", \\, \t,
// \r, \n, \0 and \u{..} for other non-printable characters.
func rustDebug(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == 0:
			b.WriteString(`\0`)
		case !unicode.IsPrint(r):
			fmt.Fprintf(&b, `\u{%x}`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
