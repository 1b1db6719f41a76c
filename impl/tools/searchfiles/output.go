package searchfiles

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/forge-conform/forge-conform/impl/canonjson"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// Truncation reasons (§3.5 truncated_reason).
const (
	reasonMaxResults     = "max_results"
	reasonMaxOutputBytes = "max_output_bytes"
	reasonMaxFiles       = "max_files"
)

// render serializes the outcome as the canonical JSON object of §3.5 (keys
// in the table's order, serde_json escaping, I-LD-03) and fits it into
// budget bytes by keeping the longest prefix of the sorted matches
// (FR-SF-OUT-03..05, I-SF-16). Each match is serialized once; the prefix
// is chosen from the running byte offsets.
func render(req *request, o *outcome, elapsedMs, budget int64) (string, error) {
	head := canonjson.AppendKey(append(make([]byte, 0, 128), '{'), "path", true)
	head = canonjson.AppendString(head, req.display)
	head = canonjson.AppendKey(head, "query", false)
	head = canonjson.AppendString(head, req.query)
	head = canonjson.AppendKey(head, "mode", false)
	head = canonjson.AppendString(head, req.mode)
	head = canonjson.AppendKey(head, "case", false)
	head = canonjson.AppendString(head, req.caseMode)
	head = canonjson.AppendKey(head, "matches", false)
	head = append(head, '[')

	var elems canonjson.Elements
	for i := range o.matches {
		elems.Add(func(dst []byte) []byte { return appendMatch(dst, &o.matches[i]) })
	}

	// The errors array and the stats do not change with k.
	errs := append(make([]byte, 0, 64), '[')
	for i, e := range o.errors {
		if i > 0 {
			errs = append(errs, ',')
		}
		errs = canonjson.AppendKey(append(errs, '{'), "path", true)
		errs = canonjson.AppendString(errs, e.path)
		errs = canonjson.AppendKey(errs, "error", false)
		errs = canonjson.AppendString(errs, e.msg)
		errs = append(errs, '}')
	}
	errs = append(errs, ']')
	tail := func(dst []byte, k int, reason string) []byte {
		dst = append(dst, ']')
		dst = canonjson.AppendKey(dst, "returned", false)
		dst = canonjson.AppendInt(dst, int64(k))
		dst = canonjson.AppendKey(dst, "max_results", false)
		dst = canonjson.AppendInt(dst, req.maxResults)
		dst = canonjson.AppendKey(dst, "truncated", false)
		dst = canonjson.AppendBool(dst, reason != "")
		dst = canonjson.AppendKey(dst, "truncated_reason", false)
		if reason == "" {
			dst = canonjson.AppendNull(dst)
		} else {
			dst = canonjson.AppendString(dst, reason)
		}
		dst = canonjson.AppendKey(dst, "stats", false)
		dst = canonjson.AppendKey(append(dst, '{'), "files_scanned", true)
		dst = canonjson.AppendInt(dst, o.filesScanned)
		dst = canonjson.AppendKey(dst, "files_matched", false)
		dst = canonjson.AppendInt(dst, o.filesMatched)
		dst = canonjson.AppendKey(dst, "matches_total", false)
		dst = canonjson.AppendInt(dst, int64(len(o.matches)))
		dst = canonjson.AppendKey(dst, "elapsed_ms", false)
		dst = canonjson.AppendInt(dst, elapsedMs)
		dst = append(dst, '}')
		dst = canonjson.AppendKey(dst, "errors", false)
		dst = append(dst, errs...)
		return append(dst, '}')
	}
	n := len(o.matches)
	// FR-SF-OUT-05: drop matches from the end until the output fits.
	fit := func(dst []byte, k int) []byte {
		if k == n {
			return tail(dst, k, o.reason)
		}
		return tail(dst, k, reasonMaxOutputBytes)
	}
	if out, ok := elems.FitPrefix(head, fit, budget); ok {
		return out, nil
	}
	need := len(head) + len(tail(nil, 0, reasonMaxOutputBytes))
	if n == 0 {
		need = len(head) + len(tail(nil, 0, o.reason))
	}
	return "", toolerr.Failed(Name,
		"output budget too small: even a result without matches needs %d bytes but only %d are available; free context, raise max_output_bytes or narrow the search",
		need, max(budget, 0))
}

// appendMatch appends one match object, keys in the order of §3.5.
func appendMatch(dst []byte, m *match) []byte {
	dst = canonjson.AppendKey(append(dst, '{'), "path", true)
	dst = canonjson.AppendString(dst, m.path)
	dst = canonjson.AppendKey(dst, "line", false)
	dst = canonjson.AppendInt(dst, m.line)
	dst = canonjson.AppendKey(dst, "column", false)
	dst = canonjson.AppendInt(dst, m.column)
	dst = canonjson.AppendKey(dst, "match_text", false)
	dst = canonjson.AppendString(dst, m.text)
	dst = canonjson.AppendKey(dst, "line_text", false)
	dst = canonjson.AppendString(dst, m.lineText)
	dst = canonjson.AppendKey(dst, "before", false)
	dst = appendStrings(dst, m.before)
	dst = canonjson.AppendKey(dst, "after", false)
	dst = appendStrings(dst, m.after)
	dst = canonjson.AppendKey(dst, "score", false)
	if m.fuzzy {
		dst = appendFloat(dst, m.score)
	} else {
		dst = canonjson.AppendNull(dst)
	}
	return append(dst, '}')
}

func appendStrings(dst []byte, list []string) []byte {
	dst = append(dst, '[')
	for i, s := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = canonjson.AppendString(dst, s)
	}
	return append(dst, ']')
}

// appendFloat appends a finite f64 as serde_json writes it (the ryu
// crate's format, I-SF-08): the shortest digits that read back as f; in
// positional notation with at least one digit after the point ("1.0",
// "0.8", "0.0001") when 1e-5 <= |f| < 1e16, otherwise as d.ddde±x
// without a "+" or leading zeros in the exponent ("1e-7", "1.5e16").
func appendFloat(dst []byte, f float64) []byte {
	if f == 0 {
		if math.Signbit(f) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	sci := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±xx, shortest round-trip digits
	mant, exp, _ := strings.Cut(sci, "e")
	digits := strings.Replace(mant, ".", "", 1)
	e, _ := strconv.Atoi(exp)
	length := len(digits)
	kk := e + 1 // f = 0.digits × 10^kk
	k := kk - length
	switch {
	case k >= 0 && kk <= 16:
		dst = append(dst, digits...)
		dst = append(dst, strings.Repeat("0", k)...)
		return append(dst, ".0"...)
	case kk > 0 && kk <= 16:
		dst = append(dst, digits[:kk]...)
		dst = append(dst, '.')
		return append(dst, digits[kk:]...)
	case kk > -5 && kk <= 0:
		dst = append(dst, "0."...)
		dst = append(dst, strings.Repeat("0", -kk)...)
		return append(dst, digits...)
	case length == 1:
		dst = append(dst, digits...)
	default:
		dst = append(dst, digits[0], '.')
		dst = append(dst, digits[1:]...)
	}
	dst = append(dst, 'e')
	return strconv.AppendInt(dst, int64(kk-1), 10)
}

// charColumns rewrites byte columns as character columns: 1 + the number
// of characters before the match in its line (Options.CharColumns).
func charColumns(ms []match) {
	for i := range ms {
		if off := int(ms[i].column - 1); off > 0 && off <= len(ms[i].lineText) {
			ms[i].column = int64(utf8.RuneCountInString(ms[i].lineText[:off])) + 1
		}
	}
}
