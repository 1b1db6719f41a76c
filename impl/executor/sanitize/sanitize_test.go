package sanitize

import (
	"strings"
	"testing"
)

// FR-OUT-02, T-OUT-02: terminal controls are removed, printable text kept in order.
func TestString(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "hello, world\n\tok", "hello, world\n\tok"},
		{"unicode kept", "héllo ✓ 日本", "héllo ✓ 日本"},
		{"CSI colour", "\x1b[31mred\x1b[0m", "red"},
		{"CSI with params and private", "a\x1b[?25lb\x1b[2;3Hc", "abc"},
		{"OSC to BEL", "\x1b]0;evil title\x07text", "text"},
		{"OSC to ST", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"DCS", "a\x1bPq#0;1;2\x1b\\b", "ab"},
		{"APC PM SOS", "a\x1b_x\x1b\\b\x1b^y\x1b\\c\x1bXz\x1b\\d", "abcd"},
		{"two-character", "a\x1b7b\x1b8c\x1bcd", "abcd"},
		{"ESC with intermediate", "a\x1b(Bb", "ab"},
		{"C0 removed", "a\x00b\x01c\x07d\x08e\x0bf\x0cg", "abcdefg"},
		{"CR removed", "a\r\nb\rc", "a\nbc"},
		{"DEL removed", "a\x7fb", "ab"},
		{"C1 removed", "a\u0085b\u0090x\u009cc", "abc"},
		{"C1 CSI", "a\u009b31mb", "ab"},
		{"invalid UTF-8 replaced", "a\xffb", "a\uFFFDb"},
		{"lone ESC at end", "abc\x1b", "abc"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := String(tc.in); got != tc.want {
				t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// FR-OUT-02 on streaming chunks: a sequence split across chunks is removed
// whole, a character split across chunks is kept whole.
func TestStreamSplit(t *testing.T) {
	in := "x\x1b[31mred\x1b]0;title\x07 ✓ \x1b[0mend\n"
	want := "xred ✓ end\n"
	for cut := 0; cut <= len(in); cut++ {
		for cut2 := cut; cut2 <= len(in); cut2++ {
			var s Stream
			got := s.Write(in[:cut]) + s.Write(in[cut:cut2]) + s.Write(in[cut2:]) + s.Flush()
			if got != want {
				t.Fatalf("cuts %d,%d: got %q, want %q", cut, cut2, got, want)
			}
		}
	}
}

func TestNoControlSurvives(t *testing.T) {
	var b strings.Builder
	for c := 0; c < 0x100; c++ {
		b.WriteRune(rune(c))
		b.WriteByte(byte(c))
	}
	for _, m := range []Mode{Remove, Neutralize, Drop} {
		out := Options{Mode: m}.String(b.String())
		for _, r := range out {
			if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f {
				t.Fatalf("mode %d: control %U survived in %q", m, r, out)
			}
		}
	}
}

// Neutralize and Drop keep the rest of a sequence as text; a sequence split
// across chunks gives the same text as whole (I-EXE-12's readings).
func TestModes(t *testing.T) {
	in := "a\x1b[31mb\x1b]0;t\x07c\x00d\x7fe\u0085f\rg"
	tests := []struct {
		mode Mode
		want string
	}{
		{Remove, "abcdefg"},
		{Neutralize, "a␛[31mb␛]0;t␇c␀d␡ef␍g"},
		{Drop, "a[31mb]0;tcdefg"},
	}
	for _, tc := range tests {
		o := Options{Mode: tc.mode}
		if got := o.String(in); got != tc.want {
			t.Errorf("mode %d: %q, want %q", tc.mode, got, tc.want)
		}
		st := o.Stream()
		var b strings.Builder
		for _, r := range in {
			b.WriteString(st.Write(string(r)))
		}
		if got := b.String() + st.Flush(); got != tc.want {
			t.Errorf("mode %d, one rune per chunk: %q, want %q", tc.mode, got, tc.want)
		}
	}
}

// Stream.KeepCR and StringKeepingCR keep carriage returns (Forge's
// sanitizer, I-EXE-12) and remove everything String removes.
func TestKeepCR(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"CR kept", "a\r\nb\rc", "a\r\nb\rc"},
		{"only CR", "\r", "\r"},
		{"other controls removed", "a\r\x1b[31mb\x00c\x7fd\u009be", "a\rbcd"},
		{"CR in a sequence is not text", "a\x1b]0;t\rx\x07b", "ab"},
		{"unicode and CR", "é\r✓", "é\r✓"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := StringKeepingCR(tc.in); got != tc.want {
				t.Errorf("StringKeepingCR(%q) = %q, want %q", tc.in, got, tc.want)
			}
			st := Stream{KeepCR: true}
			var b strings.Builder
			for _, r := range tc.in { // one rune per chunk
				b.WriteString(st.Write(string(r)))
			}
			if got := b.String() + st.Flush(); got != tc.want {
				t.Errorf("Stream{KeepCR} over %q = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	if got := String("a\rb"); got != "ab" {
		t.Errorf("String removes CR: got %q", got)
	}
}
