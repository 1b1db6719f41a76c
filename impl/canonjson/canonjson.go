// Package canonjson writes JSON the way Rust's serde_json::to_string does:
// no whitespace, fields in the order the caller appends them, and minimal
// string escaping. Go's encoding/json escapes <, > and & (and U+2028/9) for
// HTML safety, which serde_json does not; FR-LD-OUT-02a's "standard JSON
// escaping" is read as serde_json's (spec/INTERPRETATIONS.md, I-LD-03).
package canonjson

import "strconv"

const hex = "0123456789abcdef"

// AppendString appends s as a JSON string literal. s must be valid UTF-8;
// callers convert names with package lossy first.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendInt appends an integer.
func AppendInt(dst []byte, v int64) []byte { return strconv.AppendInt(dst, v, 10) }

// AppendBool appends true or false.
func AppendBool(dst []byte, v bool) []byte { return strconv.AppendBool(dst, v) }

// AppendNull appends null.
func AppendNull(dst []byte) []byte { return append(dst, "null"...) }

// AppendKey appends "key": (with a leading comma unless first).
func AppendKey(dst []byte, key string, first bool) []byte {
	if !first {
		dst = append(dst, ',')
	}
	dst = AppendString(dst, key)
	return append(dst, ':')
}
