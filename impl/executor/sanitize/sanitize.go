// Package sanitize removes terminal control from tool output (FR-OUT-02,
// C-05, NFR-SEC-05): escape sequences (CSI, OSC, DCS, SOS, PM, APC and the
// two-character ones), C0 controls other than newline and tab, carriage
// return, DEL and C1 controls, keeping every printable character in order.
//
// A Stream sanitizes a sequence of chunks with state carried between them,
// so an escape sequence split across two chunks is still removed whole.
// String sanitizes one complete string. Stream.KeepCR and StringKeepingCR
// keep carriage returns (Forge's sanitizer, which I-EXE-12 allows).
//
// FR-OUT-02 lets sanitization "remove/neutralize" control sequences: Mode
// chooses. Remove (the zero value) removes each escape sequence whole;
// Neutralize shows every control character as a visible symbol and keeps
// the rest of a sequence as the printable text it is; Drop removes the
// control characters only, keeping the rest of a sequence the same way.
// Under every mode no ESC, C1, DEL or C0 control other than newline, tab
// (and, with KeepCR, carriage return) survives.
package sanitize

import (
	"strings"
	"unicode/utf8"
)

// Mode is how a control sequence is made harmless (FR-OUT-02
// "remove/neutralize", I-EXE-12).
type Mode uint8

// The modes.
const (
	// Remove removes every escape sequence whole (the reference).
	Remove Mode = iota
	// Neutralize replaces each control character by a visible symbol:
	// a C0 control by its Control Pictures symbol (ESC as U+241B), DEL by
	// U+2421; a C1 control is removed. The rest of an escape sequence
	// stays as text.
	Neutralize
	// Drop removes each control character; the rest of an escape sequence
	// stays as text.
	Drop
)

type state uint8

const (
	text   state = iota
	esc          // after ESC
	escInt       // ESC followed by intermediate bytes (0x20-0x2F)
	csi          // in a control sequence, until a final byte 0x40-0x7E
	str          // in an OSC/DCS/SOS/PM/APC string, until BEL (OSC) or ST
	strEsc       // in a string, after ESC (ST is ESC \)
)

// Stream sanitizes chunks of one output stream. The zero value is ready.
type Stream struct {
	// KeepCR keeps carriage returns, which are otherwise removed (Forge
	// keeps them, as observed in its own code; I-EXE-12 allows both).
	KeepCR bool
	// Mode is how control sequences are made harmless.
	Mode Mode

	st      state
	pending []byte // an incomplete UTF-8 sequence from the previous chunk
}

// Write returns the sanitized text of chunk. Text that cannot be decided
// yet (an incomplete UTF-8 character at the end) is held for the next call.
func (s *Stream) Write(chunk string) string {
	if s.st == text && len(s.pending) == 0 && clean(chunk, s.KeepCR) {
		return chunk // the common case: nothing to remove, nothing held
	}
	var b strings.Builder
	b.Grow(len(chunk))
	data := chunk
	if len(s.pending) > 0 {
		data = string(s.pending) + chunk
		s.pending = s.pending[:0]
	}
	for i := 0; i < len(data); {
		if s.st == text { // a run of plain ASCII is copied whole
			j := i
			for j < len(data) && plainASCII(data[j]) {
				j++
			}
			if j > i {
				b.WriteString(data[i:j])
				i = j
				continue
			}
		}
		r, size := utf8.DecodeRuneInString(data[i:])
		if r == utf8.RuneError && size <= 1 && !utf8.FullRuneInString(data[i:]) {
			s.pending = append(s.pending, data[i:]...)
			break
		}
		s.step(&b, r, size == 1 && r == utf8.RuneError, data[i:i+size])
		i += size
	}
	return b.String()
}

// Flush returns what the stream still holds at its end: an incomplete UTF-8
// sequence becomes U+FFFD, as lossy decoding does; an unterminated escape
// sequence is dropped.
func (s *Stream) Flush() string {
	if len(s.pending) == 0 {
		return ""
	}
	s.pending = s.pending[:0]
	if s.st != text {
		return ""
	}
	return string(utf8.RuneError)
}

func (s *Stream) step(b *strings.Builder, r rune, invalid bool, raw string) {
	switch s.st {
	case esc:
		switch {
		case r == '[':
			s.st = csi
		case r == ']' || r == 'P' || r == 'X' || r == '^' || r == '_':
			s.st = str
		case r >= 0x20 && r <= 0x2f:
			s.st = escInt
		case r == 0x1b:
			s.st = esc
		default: // a two-character sequence (ESC 7, ESC c, ...) ends here
			s.st = text
		}
		return
	case escInt:
		if r >= 0x20 && r <= 0x2f {
			return
		}
		s.st = text
		return
	case csi:
		if r >= 0x40 && r <= 0x7e {
			s.st = text
		} else if r == 0x1b {
			s.st = esc
		} else if r < 0x20 || r > 0x7e {
			// not part of a CSI: the sequence is malformed; end it and
			// treat the character as text
			s.st = text
			s.text(b, r, invalid, raw)
		}
		return
	case str:
		switch r {
		case 0x07, 0x9c:
			s.st = text
		case 0x1b:
			s.st = strEsc
		}
		return
	case strEsc:
		if r == '\\' {
			s.st = text
		} else if r != 0x1b {
			s.st = str
		}
		return
	}
	s.text(b, r, invalid, raw)
}

func (s *Stream) text(b *strings.Builder, r rune, invalid bool, raw string) {
	switch {
	case invalid:
		b.WriteRune(utf8.RuneError) // an invalid byte is not text: replace it
	case r == '\n' || r == '\t' || r == '\r' && s.KeepCR:
		b.WriteRune(r)
	case s.Mode != Remove && (r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f):
		// a control character alone: the rest of its sequence is text
		if s.Mode == Neutralize && r < 0x20 {
			b.WriteRune(0x2400 + r)
		} else if s.Mode == Neutralize && r == 0x7f {
			b.WriteRune(0x2421)
		}
	case r == 0x1b:
		s.st = esc
	case r == 0x9b:
		s.st = csi
	case r == 0x90 || r == 0x9d || r == 0x98 || r == 0x9e || r == 0x9f:
		s.st = str
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		// other C0 (carriage return included), DEL and C1: removed
	default:
		b.WriteString(raw)
	}
}

// plainASCII reports whether c is printable ASCII, newline or tab: text
// that passes unchanged.
func plainASCII(c byte) bool {
	return c >= 0x20 && c < 0x7f || c == '\n' || c == '\t'
}

// String sanitizes one complete string.
func String(s string) string { return Options{}.String(s) }

// StringKeepingCR is String, except that carriage returns are kept.
func StringKeepingCR(s string) string { return Options{KeepCR: true}.String(s) }

// Options are a sanitizer's choices where FR-OUT-02 leaves room
// (I-EXE-12). The zero value is the reference's: sequences removed,
// carriage returns removed.
type Options struct {
	KeepCR bool
	Mode   Mode
}

// Stream returns a new stream with these options.
func (o Options) Stream() *Stream { return &Stream{KeepCR: o.KeepCR, Mode: o.Mode} }

// String sanitizes one complete string with these options.
func (o Options) String(s string) string {
	if clean(s, o.KeepCR) {
		return s
	}
	st := o.Stream()
	return st.Write(s) + st.Flush()
}

// clean reports whether s needs no change: valid UTF-8 without a control
// (a carriage return is allowed when keepCR is set).
func clean(s string, keepCR bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\r' && keepCR {
			continue
		}
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f || c >= 0x80 {
			if c >= 0x80 {
				return cleanUTF8(s[i:])
			}
			return false
		}
	}
	return true
}

func cleanUTF8(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f {
			return false
		}
	}
	return true
}
