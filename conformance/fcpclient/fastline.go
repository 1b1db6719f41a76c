package fcpclient

import (
	"strconv"
	"strings"
	"unicode/utf16"
)

// chunkLine reads a stdout or stderr event laid out as
// {"seq":N,"event":"stdout","id":"ID","chunk":"..."} in one pass, since a
// streamed command's output is nearly all such lines. It accepts exactly
// what turn-output.json accepts for that layout (an integer seq, the event
// name, string id and chunk, nothing else) and decodes as encoding/json
// does; anything else (another key order, whitespace, a lone surrogate)
// returns false, and the caller takes the general path, which decodes and
// validates the line against the schema. The line is valid UTF-8.
func chunkLine(line []byte) (seq int64, event, id, chunk string, ok bool) {
	s := string(line)
	rest, ok := strings.CutPrefix(s, `{"seq":`)
	if !ok {
		return 0, "", "", "", false
	}
	n := 0
	for n < len(rest) && (rest[n] == '-' && n == 0 || rest[n] >= '0' && rest[n] <= '9') {
		n++
	}
	if n == 0 || (rest[0] == '-' && n == 1) || (rest[0] == '0' && n > 1) || (rest[0] == '-' && n > 2 && rest[1] == '0') {
		return 0, "", "", "", false
	}
	seq, err := strconv.ParseInt(rest[:n], 10, 64)
	if err != nil {
		return 0, "", "", "", false
	}
	rest = rest[n:]
	switch {
	case strings.HasPrefix(rest, `,"event":"stdout","id":`):
		event, rest = "stdout", rest[len(`,"event":"stdout","id":`):]
	case strings.HasPrefix(rest, `,"event":"stderr","id":`):
		event, rest = "stderr", rest[len(`,"event":"stderr","id":`):]
	default:
		return 0, "", "", "", false
	}
	if id, rest, ok = jsonString(rest); !ok {
		return 0, "", "", "", false
	}
	if rest, ok = strings.CutPrefix(rest, `,"chunk":`); !ok {
		return 0, "", "", "", false
	}
	if chunk, rest, ok = jsonString(rest); !ok || rest != "}" {
		return 0, "", "", "", false
	}
	return seq, event, id, chunk, true
}

// jsonString decodes the JSON string at the start of s and returns it and
// what follows it. It refuses (false) what RFC 8259 forbids (a raw control
// character, an unknown escape) and, to stay identical to encoding/json
// without copying its replacement rules, any escaped surrogate.
func jsonString(s string) (string, string, bool) {
	if len(s) == 0 || s[0] != '"' {
		return "", "", false
	}
	s = s[1:]
	// The common case: no escape before the closing quote.
	i := 0
	for i < len(s) && s[i] != '"' && s[i] != '\\' && s[i] >= 0x20 {
		i++
	}
	if i < len(s) && s[i] == '"' {
		return s[:i], s[i+1:], true
	}
	var b strings.Builder
	b.Grow(len(s))
	for {
		for i < len(s) && s[i] != '"' && s[i] != '\\' && s[i] >= 0x20 {
			i++
		}
		b.WriteString(s[:i])
		if i == len(s) || s[i] < 0x20 {
			return "", "", false
		}
		if s[i] == '"' {
			return b.String(), s[i+1:], true
		}
		if i+1 == len(s) {
			return "", "", false
		}
		if c, simple := simpleEscape(s[i+1]); simple {
			b.WriteByte(c)
			s = s[i+2:]
			i = 0
			continue
		}
		if s[i+1] != 'u' || i+6 > len(s) {
			return "", "", false
		}
		v, err := strconv.ParseUint(s[i+2:i+6], 16, 32)
		if err != nil || strings.ContainsAny(s[i+2:i+6], "+-_") || utf16.IsSurrogate(rune(v)) {
			return "", "", false
		}
		b.WriteRune(rune(v))
		s = s[i+6:]
		i = 0
	}
}

// simpleEscape returns what the character after a backslash stands for,
// for every escape of RFC 8259 but \u.
func simpleEscape(c byte) (byte, bool) {
	switch c {
	case '"', '\\', '/':
		return c, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}
