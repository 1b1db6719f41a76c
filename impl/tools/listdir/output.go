package listdir

import (
	"strings"

	"github.com/forge-conform/forge-conform/impl/canonjson"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// Truncation reasons (FR-LD-OUT-02b).
const (
	reasonMaxEntries     = "max_entries"
	reasonMaxOutputBytes = "max_output_bytes"
)

// render serializes the sorted entries as the canonical JSON object
// (FR-LD-OUT-02a, I-LD-03) and fits it into budget bytes (FR-LD-OUT-03..08,
// I-LD-05). Each entry is serialized exactly once; the longest fitting
// prefix is found from the running byte offsets.
func render(req request, entries []entry, byEntries bool, budget int64, d Defects) (string, error) {
	head := canonjson.AppendKey(append(make([]byte, 0, 64), '{'), "path", true)
	head = d.appendString(head, req.display)
	head = canonjson.AppendKey(head, "entries", false)
	head = append(head, '[')

	// body holds every entry, comma-separated; ends[i] is the length of the
	// body prefix that holds entries 0..i.
	var body []byte
	ends := make([]int, len(entries))
	for i := range entries {
		if i > 0 {
			body = append(body, ',')
		}
		body = appendEntry(body, &entries[i], d)
		ends[i] = len(body)
	}
	prefix := func(k int) []byte {
		if k == 0 {
			return nil
		}
		return body[:ends[k-1]]
	}
	assemble := func(k int, tail []byte) string {
		var out strings.Builder
		out.Grow(len(head) + len(prefix(k)) + len(tail))
		out.Write(head)
		out.Write(prefix(k))
		out.Write(tail)
		return out.String()
	}

	reason := ""
	if byEntries {
		reason = reasonMaxEntries
	}
	tail := appendTail(nil, len(entries), req.maxEntries, reason, d)
	if int64(len(head)+len(prefix(len(entries)))+len(tail)) <= budget {
		return assemble(len(entries), tail), nil
	}

	// FR-LD-OUT-07: drop entries from the end until the output fits. The
	// full list cannot fit with the longer max_output_bytes tail either.
	reason = reasonMaxOutputBytes
	if d.WrongTruncatedReason {
		reason = reasonMaxEntries
	}
	for k := len(entries) - 1; k >= 0; k-- {
		tail = appendTail(tail[:0], k, req.maxEntries, reason, d)
		if int64(len(head)+len(prefix(k))+len(tail)) <= budget {
			return assemble(k, tail), nil
		}
	}
	need := len(head) + len(tail)
	if len(entries) == 0 {
		need = len(head) + len(appendTail(nil, 0, req.maxEntries, "", d))
	}
	return "", toolerr.Failed(Name,
		"output budget too small: even an empty listing needs %d bytes but only %d are available; free context or raise max_output_bytes",
		need, max(budget, 0))
}

// appendTail appends everything after the entries array's last element.
// An empty reason is truncated=false with a null reason.
func appendTail(dst []byte, returned int, maxEntries int64, reason string, d Defects) []byte {
	dst = append(dst, ']')
	dst = canonjson.AppendKey(dst, "returned", false)
	dst = canonjson.AppendInt(dst, int64(returned))
	dst = canonjson.AppendKey(dst, "max_entries", false)
	dst = canonjson.AppendInt(dst, maxEntries)
	dst = canonjson.AppendKey(dst, "truncated", false)
	dst = canonjson.AppendBool(dst, reason != "")
	dst = canonjson.AppendKey(dst, "truncated_reason", false)
	if reason == "" {
		dst = canonjson.AppendNull(dst)
	} else {
		dst = d.appendString(dst, reason)
	}
	return append(dst, '}')
}

// appendEntry appends one entry object, keys in the order of §3.5.
func appendEntry(dst []byte, e *entry, d Defects) []byte {
	dst = append(dst, '{')
	dst = canonjson.AppendKey(dst, "name", true)
	dst = d.appendString(dst, e.name)
	dst = canonjson.AppendKey(dst, "path", false)
	dst = d.appendString(dst, e.path)
	dst = canonjson.AppendKey(dst, "depth", false)
	dst = canonjson.AppendInt(dst, e.depth)
	dst = canonjson.AppendKey(dst, "type", false)
	dst = d.appendString(dst, e.typ)
	dst = canonjson.AppendKey(dst, "size_bytes", false)
	dst = appendOptInt(dst, e.size, e.hasSize)
	dst = canonjson.AppendKey(dst, "modified_epoch_ms", false)
	dst = appendOptInt(dst, e.mtime, e.hasMtime)
	dst = canonjson.AppendKey(dst, "is_hidden", false)
	dst = canonjson.AppendBool(dst, e.hidden)
	dst = canonjson.AppendKey(dst, "error_code", false)
	dst = d.appendOptString(dst, e.errCode)
	dst = canonjson.AppendKey(dst, "error", false)
	dst = d.appendOptString(dst, e.errMsg)
	return append(dst, '}')
}

func appendOptInt(dst []byte, v int64, ok bool) []byte {
	if !ok {
		return canonjson.AppendNull(dst)
	}
	return canonjson.AppendInt(dst, v)
}

func (d Defects) appendOptString(dst []byte, s string) []byte {
	if s == "" {
		return canonjson.AppendNull(dst)
	}
	return d.appendString(dst, s)
}

// appendString is canonjson.AppendString, or with the HTMLEscape defect
// encoding/json's HTML-safe form of <, > and &.
func (d Defects) appendString(dst []byte, s string) []byte {
	start := len(dst)
	dst = canonjson.AppendString(dst, s)
	if !d.HTMLEscape {
		return dst
	}
	quoted := append([]byte(nil), dst[start:]...)
	dst = dst[:start]
	for _, c := range quoted {
		switch c {
		case '<':
			dst = append(dst, `\u003c`...)
		case '>':
			dst = append(dst, `\u003e`...)
		case '&':
			dst = append(dst, `\u0026`...)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
