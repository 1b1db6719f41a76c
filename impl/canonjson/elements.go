package canonjson

import "strings"

// Elements are the serialized elements of a JSON array, comma-separated,
// with the end offset of each, so that every prefix of the array is known
// by its length: a tool that must fit its output into a byte budget
// serializes each element once and picks the longest prefix that fits.
//
// The bytes are kept in chunks of about chunkSize rather than one buffer:
// a buffer that grows by appending to megabytes is copied again and again,
// each time into fresh memory the kernel must fault in, and a collector
// that must stop the goroutine waits out each long copy. Chunks cost each
// byte one copy into the chunk and one into the output.
type Elements struct {
	chunks [][]byte // whole elements each, with the comma before them
	ends   []int    // the end of element i in the chunks' concatenation
	size   int
}

// chunkSize is the capacity of a chunk; a chunk takes another element
// while at least chunkRoom bytes are left, so that most elements fit
// without growing it (a longer one grows its chunk, once).
const (
	chunkSize = 64 << 10
	chunkRoom = 4 << 10
)

// Add appends one element, written by appendElem to the buffer it is given.
func (e *Elements) Add(appendElem func(dst []byte) []byte) {
	if len(e.chunks) == 0 || cap(e.chunks[len(e.chunks)-1])-len(e.chunks[len(e.chunks)-1]) < chunkRoom {
		e.chunks = append(e.chunks, make([]byte, 0, chunkSize))
	}
	c := e.chunks[len(e.chunks)-1]
	before := len(c)
	if len(e.ends) > 0 {
		c = append(c, ',')
	}
	c = appendElem(c)
	e.chunks[len(e.chunks)-1] = c
	e.size += len(c) - before
	e.ends = append(e.ends, e.size)
}

// Len is the number of elements.
func (e *Elements) Len() int { return len(e.ends) }

// prefixLen is the length of the first k elements, comma-separated.
func (e *Elements) prefixLen(k int) int {
	if k == 0 {
		return 0
	}
	return e.ends[k-1]
}

// writePrefix writes the first k elements, comma-separated, to b.
func (e *Elements) writePrefix(b *strings.Builder, k int) {
	left := e.prefixLen(k)
	for _, c := range e.chunks {
		if left == 0 {
			return
		}
		n := min(len(c), left)
		b.Write(c[:n])
		left -= n
	}
}

// Prefix is the first k elements, comma-separated.
func (e *Elements) Prefix(k int) []byte {
	var b strings.Builder
	b.Grow(e.prefixLen(k))
	e.writePrefix(&b, k)
	return []byte(b.String())
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
		p := e.prefixLen(k)
		if int64(len(head)+p+len(t)) > budget {
			continue
		}
		var b strings.Builder
		b.Grow(len(head) + p + len(t))
		b.Write(head)
		e.writePrefix(&b, k)
		b.Write(t)
		return b.String(), true
	}
	return "", false
}
