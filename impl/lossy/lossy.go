// Package lossy converts arbitrary bytes to valid UTF-8 exactly as Rust's
// String::from_utf8_lossy (and OsStr::to_string_lossy on Unix) does: each
// maximal subpart of an ill-formed sequence becomes one U+FFFD (Unicode
// §3.9, Table 3-8). Go's strings.ToValidUTF8 replaces whole runs instead,
// and utf8.DecodeRune one byte at a time, so neither matches Forge.
// See spec/INTERPRETATIONS.md, I-LD-01.
package lossy

import "unicode/utf8"

const replacement = "\uFFFD"

// String returns s with every maximal ill-formed subpart replaced by U+FFFD.
// A valid string is returned unchanged, without copying.
func String(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	out := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError || size > 1 {
			out = append(out, s[i:i+size]...)
			i += size
			continue
		}
		out = append(out, replacement...)
		i += maximalSubpart(s[i:])
	}
	return string(out)
}

// PerByte returns s with every byte of an ill-formed sequence replaced by
// its own U+FFFD: the other reading NFR-LD-REL-02's "lossy conversion
// using the Unicode replacement character" allows (I-LD-01, reading
// per-byte). A valid string is returned unchanged, without copying.
func PerByte(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	out := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			out = append(out, replacement...)
		} else {
			out = append(out, s[i:i+size]...)
		}
		i += size
	}
	return string(out)
}

// maximalSubpart returns the length of the maximal subpart at the start of
// s, which begins with an ill-formed sequence: the lead byte plus every
// continuation byte that could still belong to a well-formed sequence.
func maximalSubpart(s string) int {
	lead := s[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF) // allowed range of the first continuation byte
	switch {
	case lead >= 0xC2 && lead <= 0xDF:
		need = 1
	case lead == 0xE0:
		need, lo = 2, 0xA0
	case lead >= 0xE1 && lead <= 0xEC, lead == 0xEE, lead == 0xEF:
		need = 2
	case lead == 0xED:
		need, hi = 2, 0x9F
	case lead == 0xF0:
		need, lo = 3, 0x90
	case lead >= 0xF1 && lead <= 0xF3:
		need = 3
	case lead == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1 // 0x80..0xC1, 0xF5..0xFF: never a lead byte
	}
	n := 1
	for k := 0; k < need && n < len(s); k++ {
		c := s[n]
		if c < lo || c > hi {
			break
		}
		n++
		lo, hi = 0x80, 0xBF
	}
	return n
}
