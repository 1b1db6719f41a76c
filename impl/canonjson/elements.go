package canonjson

import "strings"

// Elements are the serialized elements of a JSON array, comma-separated,
// with the end offset of each, so that every prefix of the array is a slice
// of one buffer: a tool that must fit its output into a byte budget
// serializes each element once and picks the longest prefix that fits.
type Elements struct {
	body []byte
	ends []int
}

// Add appends one element, written by appendElem to the buffer it is given.
func (e *Elements) Add(appendElem func(dst []byte) []byte) {
	if len(e.ends) > 0 {
		e.body = append(e.body, ',')
	}
	e.body = appendElem(e.body)
	e.ends = append(e.ends, len(e.body))
}

// Len is the number of elements.
func (e *Elements) Len() int { return len(e.ends) }

// Prefix is the first k elements, comma-separated.
func (e *Elements) Prefix(k int) []byte {
	if k == 0 {
		return nil
	}
	return e.body[:e.ends[k-1]]
}

// FitPrefix returns head, the first k elements and tail(k) for the largest
// k whose total length is at most budget bytes, trying every element first,
// then one fewer at a time. tail appends to dst what follows the k-th
// element (it may depend on k: a count, a truncation reason). ok is false
// when not even k = 0 fits.
func (e *Elements) FitPrefix(head []byte, tail func(dst []byte, k int) []byte, budget int64) (out string, ok bool) {
	var t []byte
	for k := e.Len(); k >= 0; k-- {
		t = tail(t[:0], k)
		p := e.Prefix(k)
		if int64(len(head)+len(p)+len(t)) > budget {
			continue
		}
		var b strings.Builder
		b.Grow(len(head) + len(p) + len(t))
		b.Write(head)
		b.Write(p)
		b.Write(t)
		return b.String(), true
	}
	return "", false
}
