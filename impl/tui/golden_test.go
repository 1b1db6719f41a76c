package tui_test

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/forge-conform/forge-conform/spec/fcp"
)

// maskRune replaces the cells of masked spans.
const maskRune = "░"

// mask returns sc with the cells of every span of a class in classes
// (by default spinner and timing, which change between two renders of the
// same state) replaced by maskRune, so that screens compare exactly.
func mask(sc fcp.Screen, classes ...string) fcp.Screen {
	if len(classes) == 0 {
		classes = []string{fcp.ClassSpinner, fcp.ClassTiming}
	}
	out := sc
	out.Rows = append([]string{}, sc.Rows...)
	out.Styles = append([]fcp.ScreenStyle{}, sc.Styles...)
	for i, st := range out.Styles {
		masked := false
		for _, c := range classes {
			masked = masked || st.Class == c
		}
		if !masked || st.Row < 0 || st.Row >= len(out.Rows) {
			continue
		}
		r := out.Rows[st.Row]
		w := ansi.StringWidth(r)
		// The timing's width varies too: mask a fixed 4 cells for it.
		n := st.Len
		if st.Class == fcp.ClassTiming {
			n = 4
		}
		end := min(st.Col+st.Len, w)
		out.Rows[st.Row] = ansi.Cut(r, 0, st.Col) + strings.Repeat(maskRune, n) + ansi.Cut(r, end, w)
		out.Styles[i].Len = n
		// spans further right on the row shift with the masked width
		for j := range out.Styles {
			if j != i && out.Styles[j].Row == st.Row && out.Styles[j].Col > st.Col {
				out.Styles[j].Col += n - st.Len
			}
		}
	}
	return out
}

// format writes a screen as golden text: a ruler of its width, each row
// between bars, then its spans, one a line ("row:col+len class").
func format(sc fcp.Screen) string {
	var b strings.Builder
	fmt.Fprintf(&b, "screen %dx%d\n", sc.Width, sc.Height)
	for _, r := range sc.Rows {
		pad := max(0, sc.Width-ansi.StringWidth(r))
		fmt.Fprintf(&b, "|%s%s|\n", r, strings.Repeat(" ", pad))
	}
	b.WriteString("styles:\n")
	for _, st := range sc.Styles {
		fmt.Fprintf(&b, "  %d:%d+%d %s\n", st.Row, st.Col, st.Len, st.Class)
	}
	return b.String()
}
