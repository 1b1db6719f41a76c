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
// I-LD-05). Each entry is serialized at most once, straight into the
// output after the head; the longest fitting prefix is found from the
// running byte offsets. Serializing stops at the first entry that does not
// fit, since no longer prefix can.
func render(req request, entries []*entry, byEntries bool, budget int64) (string, error) {
	head := canonjson.AppendKey(append(make([]byte, 0, 64), '{'), "path", true)
	head = appendString(head, req.display)
	head = canonjson.AppendKey(head, "entries", false)
	head = append(head, '[')

	reason := ""
	if byEntries {
		reason = reasonMaxEntries
	}
	// FR-LD-OUT-07: drop entries from the end until the output fits.
	dropReason := reasonMaxOutputBytes
	tail := func(dst []byte, k int) []byte {
		if k == len(entries) {
			return appendTail(dst, k, req.maxEntries, reason)
		}
		return appendTail(dst, k, req.maxEntries, dropReason)
	}

	var out strings.Builder
	out.Grow(int(min(int64(len(head)+sizeHint(entries)+tailBytes), max(budget, 0))))
	out.Write(head)
	ends := make([]int, 0, len(entries)) // ends[i]: where entry i ends in out
	var elem []byte
	for i, e := range entries {
		elem = elem[:0]
		if i > 0 {
			elem = append(elem, ',')
		}
		elem = appendEntry(elem, e)
		if int64(out.Len()+len(elem)) > budget {
			break
		}
		out.Write(elem)
		ends = append(ends, out.Len())
	}
	var t []byte
	for k := len(ends); k >= 0; k-- {
		t = tail(t[:0], k)
		end := len(head)
		if k > 0 {
			end = ends[k-1]
		}
		if int64(end+len(t)) > budget {
			continue
		}
		if k == len(ends) { // out ends with entry k
			out.Write(t)
			return out.String(), nil
		}
		return out.String()[:end] + string(t), nil
	}
	need := len(head) + len(appendTail(nil, 0, req.maxEntries, dropReason))
	if len(entries) == 0 {
		need = len(head) + len(appendTail(nil, 0, req.maxEntries, ""))
	}
	return "", toolerr.Failed(Name,
		"output budget too small: even an empty listing needs %d bytes but only %d are available; free context or raise max_output_bytes",
		need, max(budget, 0))
}

// entryBytes bounds the serialized size of an entry but for the contents
// of its strings: keys, punctuation, the longest type, and a depth, a size
// and an mtime of at most 19 digits each ("null" is longer than a
// string's quotes).
const entryBytes = len(`{"name":"","path":"","depth":,"type":"symlink","size_bytes":,"modified_epoch_ms":,"is_hidden":false,"error_code":null,"error":null},`) + 3*19

// sizeHint bounds the size of the serialized entries when none of their
// strings needs escaping, so that they are serialized without growing
// the buffer.
func sizeHint(entries []*entry) int {
	n := 0
	for _, e := range entries {
		n += entryBytes + len(e.name) + len(e.path) + len(e.errCode) + len(e.errMsg)
	}
	return n
}

// tailBytes bounds the size of appendTail's output.
const tailBytes = len(`],"returned":,"max_entries":,"truncated":false,"truncated_reason":"max_output_bytes"}`) + 2*19

// appendTail appends everything after the entries array's last element.
// An empty reason is truncated=false with a null reason.
func appendTail(dst []byte, returned int, maxEntries int64, reason string) []byte {
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
		dst = appendString(dst, reason)
	}
	return append(dst, '}')
}

// appendEntry appends one entry object, keys in the order of §3.5. The
// keys are written as the literals canonjson.AppendKey would write.
func appendEntry(dst []byte, e *entry) []byte {
	dst = append(dst, `{"name":`...)
	dst = appendString(dst, e.name)
	dst = append(dst, `,"path":`...)
	dst = appendString(dst, e.path)
	dst = append(dst, `,"depth":`...)
	dst = canonjson.AppendInt(dst, e.depth)
	dst = append(dst, `,"type":`...)
	dst = appendString(dst, e.typ)
	dst = append(dst, `,"size_bytes":`...)
	dst = appendOptInt(dst, e.size, e.hasSize)
	dst = append(dst, `,"modified_epoch_ms":`...)
	dst = appendOptInt(dst, e.mtime, e.hasMtime)
	dst = append(dst, `,"is_hidden":`...)
	dst = canonjson.AppendBool(dst, e.hidden)
	dst = append(dst, `,"error_code":`...)
	dst = appendOptString(dst, e.errCode)
	dst = append(dst, `,"error":`...)
	dst = appendOptString(dst, e.errMsg)
	return append(dst, '}')
}

func appendOptInt(dst []byte, v int64, ok bool) []byte {
	if !ok {
		return canonjson.AppendNull(dst)
	}
	return canonjson.AppendInt(dst, v)
}

func appendOptString(dst []byte, s string) []byte {
	if s == "" {
		return canonjson.AppendNull(dst)
	}
	return appendString(dst, s)
}

// appendString is canonjson.AppendString: without HTML escaping (I-LD-03).
func appendString(dst []byte, s string) []byte { return canonjson.AppendString(dst, s) }
