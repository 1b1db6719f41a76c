package tui

import (
	"strings"

	"github.com/forge-conform/forge-conform/impl/executor/sanitize"
)

// Text is what the TUI does to every string that did not originate in the
// TUI itself (tool output, summaries, names, ids, reasons, the model's
// text) before it reaches the screen (FR-OUT-02, NFR-SEC-05): escape
// sequences and control characters go (package sanitize), and so do the
// Unicode bidirectional formatting characters, which reorder what a
// terminal shows without being visible themselves. Tabs become spaces.
func Text(s string) string {
	s = sanitize.String(s)
	if !needsBidiPass(s) && !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case isBidiControl(r):
		case r == '\t':
			b.WriteString("    ")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Line is Text for a field shown on one row: line breaks become the visible
// "⏎" so that a value can never start a row of its own (a summary cannot
// forge a line of the prompt).
func Line(s string) string {
	return strings.ReplaceAll(Text(s), "\n", "⏎")
}

// isBidiControl reports the bidirectional formatting characters: LRM, RLM,
// ALM, the embeddings and overrides (U+202A..U+202E) and the isolates
// (U+2066..U+2069).
func isBidiControl(r rune) bool {
	return r == 0x200e || r == 0x200f || r == 0x061c ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

func needsBidiPass(s string) bool {
	for _, r := range s {
		if isBidiControl(r) {
			return true
		}
	}
	return false
}
