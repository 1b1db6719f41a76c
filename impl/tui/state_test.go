package tui

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A command that prints a very long line costs the screen state only what
// the screen can show: the line is kept to maxLineBytes, cut at a
// character boundary, and the lines after it still arrive.
func TestStreamBoundsLongLines(t *testing.T) {
	var s State
	long := strings.Repeat("é", maxLineBytes) // 2 bytes each
	for i := 0; i < 4; i++ {
		s.stream("c1", long)
	}
	if len(s.Partial) > maxLineBytes || !utf8.ValidString(s.Partial) {
		t.Fatalf("partial line: %d bytes, valid UTF-8 %v; want at most %d, valid", len(s.Partial), utf8.ValidString(s.Partial), maxLineBytes)
	}
	s.stream("c1", "\nnext\n")
	if n := len(s.Output); n != 2 || s.Output[1] != "next" || len(s.Output[0]) > maxLineBytes {
		t.Fatalf("output = %d lines (last %q), want the capped long line then \"next\"", n, s.Output[n-1])
	}
}
