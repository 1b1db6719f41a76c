package report

import (
	"fmt"
	"strings"
)

// clipMiddle shortens s to about n bytes by cutting out its middle, which
// it replaces with the whole value's byte count: "abc… [8123 bytes] …xyz".
// The start and the end of a value usually say the most (a document's
// opening, an error's last words). Cuts fall on rune boundaries.
func clipMiddle(s string, n int) string {
	if len(s) <= n || n <= 0 {
		return s
	}
	mark := fmt.Sprintf("… [%d bytes] …", len(s))
	keep := max(n-len(mark), 8)
	head, tail := keep*2/3, keep-keep*2/3
	for head > 0 && !isRuneStart(s[head]) {
		head--
	}
	from := len(s) - tail
	for from < len(s) && !isRuneStart(s[from]) {
		from++
	}
	return s[:head] + mark + s[from:]
}

// clipLines keeps the first and last lines of a long list, max in all (0:
// no limit), with a line saying how many of what were left out between.
func clipLines(lines []string, max int, what string) []string {
	if max <= 0 || len(lines) <= max {
		return lines
	}
	head := (max + 1) / 2
	tail := max - head
	out := append([]string(nil), lines[:head]...)
	out = append(out, fmt.Sprintf("    … %d more %s …", len(lines)-max, what))
	return append(out, lines[len(lines)-tail:]...)
}

// shortDiff shortens a unified diff for reading: each line cut in the
// middle to lineMax bytes, and past maxLines lines (0: no limit) only the
// region around the first change is kept (a change deep in a long hunk is
// what the reader came for, not the context before it).
func shortDiff(d string, lineMax, maxLines int) string {
	lines := strings.Split(strings.TrimRight(d, "\n"), "\n")
	for i, l := range lines {
		lines[i] = clipMiddle(l, lineMax)
	}
	if maxLines <= 0 || len(lines) <= maxLines {
		return strings.Join(lines, "\n") + "\n"
	}
	// Start a few context lines before the first change, after the headers.
	first := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "@@") || strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ ") {
			continue
		}
		if strings.HasPrefix(l, "-") || strings.HasPrefix(l, "+") {
			first = i
			break
		}
	}
	var out []string
	start := 0
	for start < len(lines) && (strings.HasPrefix(lines[start], "--- ") || strings.HasPrefix(lines[start], "+++ ") || strings.HasPrefix(lines[start], "@@")) {
		out = append(out, lines[start])
		start++
	}
	from := max(start, first-diffContext)
	if from > start {
		out = append(out, fmt.Sprintf(" … %d lines …", from-start))
	}
	budget := max(maxLines-len(out), 1)
	to := min(len(lines), from+budget)
	out = append(out, lines[from:to]...)
	if to < len(lines) {
		out = append(out, fmt.Sprintf("… %d more diff lines (-v and the JSON report have all)", len(lines)-to))
	}
	return strings.Join(out, "\n") + "\n"
}

// diffContext is how many unchanged lines are kept before a change.
const diffContext = 3
