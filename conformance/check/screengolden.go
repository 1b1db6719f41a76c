package check

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/forge-conform/forge-conform/conformance/diff"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// KindScreenGolden marks a difference from the reference's golden
// screens. Layout is the implementation's (I-TUI-01): for any other
// implementation a difference is a note; the reference is held to them.
const KindScreenGolden = "screen-golden"

// screenGoldenHead starts each screen of a turn's golden file.
const screenGoldenHead = "== screen "

// ScreenMask replaces the cells of masked spans in golden screens.
const ScreenMask = "░"

// maskedWidth is the fixed width a timing span is masked to (its text's
// width changes with the time).
const maskedWidth = 4

// ScreenGolden renders the screens of a turn for its golden file, after
// the turn's lines: each settled shot under a "== screen NAME" line, masked
// (MaskScreen), the turn's seq in its rows replaced by "#", as a ruler of
// rows between bars and the spans, one a line.
func ScreenGolden(shots []Shot) []byte {
	var b bytes.Buffer
	for _, s := range shots {
		if s.Moment.Unsettled {
			continue
		}
		fmt.Fprintf(&b, "%s%s (%s)\n", screenGoldenHead, s.Moment.Name, describeMoment(*s.Moment))
		if s.Screen == nil {
			fmt.Fprintf(&b, "error: %s\n", s.Error)
			continue
		}
		sc := MaskScreen(*s.Screen)
		seq := fmt.Sprintf("turn %d", s.Turn)
		for i, r := range sc.Rows {
			sc.Rows[i] = strings.ReplaceAll(r, seq, "turn #")
		}
		b.WriteString(FormatScreen(sc))
	}
	return b.Bytes()
}

// SplitScreenGolden splits a turn's golden file into its turn part and
// its screens.
func SplitScreenGolden(g []byte) (turn, screens []byte) {
	if bytes.HasPrefix(g, []byte(screenGoldenHead)) {
		return nil, g
	}
	if i := bytes.Index(g, []byte("\n"+screenGoldenHead)); i >= 0 {
		return g[:i+1], g[i+1:]
	}
	return g, nil
}

// CompareScreenGolden compares the screens of a golden file with the
// screens of a run: a difference fails when strict (the reference, as a
// golden failure the runner charges), and is a note otherwise (I-TUI-01).
func CompareScreenGolden(want, got []byte, strict bool) []Failure {
	if bytes.Equal(want, got) {
		return nil
	}
	f := Failure{IDs: []string{idPrompt, idProgress, idStream, idParse}, Kind: KindScreenGolden, Severity: SeverityNote,
		Message: "the screens differ from the reference's golden screens (the layout is the implementation's, I-TUI-01)",
		Diff:    diff.Text(string(want), string(got))}
	if strict {
		// Charged like every golden of the reference: to the IDs the
		// case's checks fail, or to the case's own ID.
		f.Kind, f.Severity = KindGolden, SeverityFail
		f.Message = "the reference's screens differ from its golden screens: run `forge-conform golden update` and review the diff"
	}
	return []Failure{f}
}

// MaskScreen returns sc with the cells of its spinner and timing spans,
// which change between two renders of one state, replaced by ScreenMask
// (a timing by a fixed maskedWidth cells).
func MaskScreen(sc fcp.Screen) fcp.Screen {
	out := sc
	out.Rows = append([]string{}, sc.Rows...)
	out.Styles = append([]fcp.ScreenStyle{}, sc.Styles...)
	for i, st := range out.Styles {
		if (st.Class != fcp.ClassSpinner && st.Class != fcp.ClassTiming) || st.Row < 0 || st.Row >= len(out.Rows) {
			continue
		}
		r := out.Rows[st.Row]
		w := ansi.StringWidth(r)
		n := st.Len
		if st.Class == fcp.ClassTiming {
			n = maskedWidth
		}
		out.Rows[st.Row] = ansi.Cut(r, 0, st.Col) + strings.Repeat(ScreenMask, n) + ansi.Cut(r, min(st.Col+st.Len, w), w)
		out.Styles[i].Len = n
		for j := range out.Styles {
			if j != i && out.Styles[j].Row == st.Row && out.Styles[j].Col > st.Col {
				out.Styles[j].Col += n - st.Len
			}
		}
	}
	return out
}

// FormatScreen writes a screen as golden text: its size, each row between
// bars padded to the width, then its spans ("row:col+len class").
func FormatScreen(sc fcp.Screen) string {
	var b strings.Builder
	fmt.Fprintf(&b, "screen %dx%d\n", sc.Width, sc.Height)
	for _, r := range sc.Rows {
		fmt.Fprintf(&b, "|%s%s|\n", r, strings.Repeat(" ", max(0, sc.Width-ansi.StringWidth(r))))
	}
	b.WriteString("styles:\n")
	for _, st := range sc.Styles {
		fmt.Fprintf(&b, "  %d:%d+%d %s\n", st.Row, st.Col, st.Len, st.Class)
	}
	return b.String()
}
