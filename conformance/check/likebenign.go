package check

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/forge-conform/forge-conform/conformance/diff"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// Twin is one moment's screen in the two runs that LikeBenign compares a
// hostile screen with: the benign run (every hostile string of the model
// script replaced by its benign twin, corpus.TurnSpec.Benign) and the
// marked run (the benign text with its letters and digits changed).
type Twin struct {
	Benign, Marked *fcp.Screen
}

// maxListed bounds the rows a LikeBenign failure lists.
const maxListed = 5

// LikeBenign is I-TUI-09's comparison of each settled screen of a hostile
// run with the same moment of the benign run (FR-OUT-02: sanitization
// preserves the printable text and removes or neutralizes the control
// sequences, so a hostile string changes nothing on the screen but the
// rows that show it). The rows that show the text are those that differ
// between the benign and the marked run. Rows are compared after the masks
// (MaskScreen), with every run of digits read as one "#" (counts and times
// may differ with the text), trailing spaces and blank rows ignored:
//
//   - every row of the benign screen that shows no text is on the hostile
//     screen, in the same order, with the same span classes (nothing was
//     cleared, overwritten or styled);
//   - away from the text's rows, the hostile screen has no row of its own
//     that shows a word of the text (nothing was placed elsewhere; a row
//     the implementation adds of itself, a notice, is not the text's);
//   - where rows show the text, the benign run's rows, spaces aside, read
//     in order within the hostile run's (the printable text is all there;
//     a neutralized sequence may add visible characters, a carriage return
//     may break a line), and carry no span class the benign rows do not.
//
// texts are the benign strings (their words, of three letters or digits
// or more, tell a forged row).
func LikeBenign(shots []Shot, twins map[string]Twin, texts []string) []Failure {
	words := textWords(texts)
	var out []Failure
	for _, s := range shots {
		if s.Screen == nil || s.Moment.Unsettled {
			continue
		}
		head := fmt.Sprintf("screen %q (%dx%d, %s) against the benign run of the same turn (I-TUI-09): ",
			s.Moment.Name, s.Moment.Width, s.Moment.Height, describeMoment(*s.Moment))
		t := twins[s.Moment.Name]
		if t.Benign == nil || t.Marked == nil {
			out = append(out, Failure{IDs: []string{idSanitize, idSecOut}, Kind: KindScreen,
				Message: head + "the benign run shows no screen at this moment: a hostile string changed what the turn does"})
			continue
		}
		problems := compareBenign(*s.Screen, *t.Benign, *t.Marked, words)
		if len(problems) == 0 {
			continue
		}
		out = append(out, Failure{IDs: []string{idSanitize, idSecOut}, Kind: KindScreen,
			Message: head + strings.Join(problems, "; "),
			Diff:    "benign run -> this run:\n" + diff.Text(FormatScreen(MaskScreen(*t.Benign)), FormatScreen(MaskScreen(*s.Screen)))})
	}
	return out
}

// benignRow is a non-blank row prepared for the comparison.
type benignRow struct {
	index   int    // in the screen
	text    string // masked, digit runs as "#", trailing spaces removed
	classes []string
}

// benignRows prepares sc's non-blank rows.
func benignRows(sc fcp.Screen) []benignRow {
	m := MaskScreen(sc)
	var out []benignRow
	for i, r := range m.Rows {
		r = strings.TrimRightFunc(digitRuns(r), unicode.IsSpace)
		if strings.TrimSpace(r) == "" {
			continue
		}
		var cls []string
		for _, st := range m.Styles {
			if st.Row == i {
				cls = append(cls, st.Class)
			}
		}
		slices.Sort(cls)
		out = append(out, benignRow{index: i, text: r, classes: cls})
	}
	return out
}

// digitRuns reads every run of digits as "#".
func digitRuns(s string) string {
	var b strings.Builder
	digit := false
	for _, r := range s {
		if unicode.IsDigit(r) {
			if !digit {
				b.WriteByte('#')
			}
			digit = true
			continue
		}
		digit = false
		b.WriteRune(r)
	}
	return b.String()
}

// compareBenign returns what is wrong with hostile against benign, the
// rows that show the text being those where marked differs; nil when
// nothing is.
func compareBenign(hostile, benign, marked fcp.Screen, words []string) []string {
	B, M, H := benignRows(benign), benignRows(marked), benignRows(hostile)
	text := make([]bool, len(B))
	for i := range text {
		text[i] = true
	}
	for _, p := range lcs(B, M) {
		text[p[0]] = false
	}
	pairs := lcs(B, H)
	var missing, forged, lost, restyled []string
	matchedB := make([]bool, len(B))
	for _, p := range pairs {
		b, h := B[p[0]], H[p[1]]
		matchedB[p[0]] = true
		if !slices.Equal(b.classes, h.classes) {
			restyled = append(restyled, fmt.Sprintf("row %d %q carries spans %v, the benign run's %v", h.index, h.text, h.classes, b.classes))
		}
	}
	for i, b := range B {
		if !matchedB[i] && !text[i] {
			missing = append(missing, fmt.Sprintf("%q", b.text))
		}
	}
	// The gaps between matched rows: the benign run's unmatched rows and
	// this run's.
	for k := 0; k <= len(pairs); k++ {
		prevB, prevH, nextB, nextH := -1, -1, len(B), len(H)
		if k > 0 {
			prevB, prevH = pairs[k-1][0], pairs[k-1][1]
		}
		if k < len(pairs) {
			nextB, nextH = pairs[k][0], pairs[k][1]
		}
		var bText []benignRow
		classes := map[string]bool{}
		beside := false
		for i := prevB + 1; i < nextB; i++ {
			if text[i] {
				bText = append(bText, B[i])
				for _, c := range B[i].classes {
					classes[c] = true
				}
			}
		}
		hGap := H[prevH+1 : nextH]
		// Rows of its own beside the text (a notice that something was
		// neutralized, a line broken in two) are the text's.
		for _, i := range []int{prevB, nextB} {
			if i >= 0 && i < len(B) && text[i] {
				for _, c := range B[i].classes {
					classes[c] = true
				}
				beside = true
			}
		}
		if len(bText) == 0 && !beside {
			for _, h := range hGap {
				if w := wordIn(h.text, words); w != "" {
					forged = append(forged, fmt.Sprintf("row %d %q (%q)", h.index, h.text, w))
				}
			}
			continue
		}
		if len(bText) > 0 && !subsequence(compact(bText), compact(hGap)) {
			var want []string
			for _, b := range bText {
				want = append(want, fmt.Sprintf("%q", b.text))
			}
			lost = append(lost, strings.Join(want, " "))
		}
		for _, h := range hGap {
			for _, c := range h.classes {
				if !classes[c] && c != fcp.ClassSpinner && c != fcp.ClassTiming {
					restyled = append(restyled, fmt.Sprintf("row %d %q shows the text with a %s span, which the benign run's text rows do not carry", h.index, h.text, c))
				}
			}
		}
	}
	var out []string
	add := func(list []string, format string) {
		if len(list) > maxListed {
			list = append(list[:maxListed], fmt.Sprintf("and %d more", len(list)-maxListed))
		}
		if len(list) > 0 {
			out = append(out, fmt.Sprintf(format, strings.Join(list, ", ")))
		}
	}
	add(missing, "rows of the benign screen that show no tool text are missing here (cleared or overwritten): %s")
	add(forged, "rows showing the tool's text appear here away from where the benign screen shows it (forged): %s")
	add(lost, "the text's printable characters are not all shown (FR-OUT-02 preserves printable text); the benign run shows %s")
	add(restyled, "spans differ: %s")
	return out
}

// textWords are the words of texts: runs of letters and digits, three or
// more.
func textWords(texts []string) []string {
	var out []string
	for _, t := range texts {
		for _, w := range strings.FieldsFunc(t, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if len([]rune(w)) >= 3 && !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// wordIn returns the first of words that row holds as a whole word (not
// inside a longer run of letters and digits), or "".
func wordIn(row string, words []string) string {
	fields := strings.FieldsFunc(row, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, w := range words {
		if slices.Contains(fields, w) {
			return w
		}
	}
	return ""
}

// compact joins rows' text without white space.
func compact(rows []benignRow) []rune {
	var out []rune
	for _, r := range rows {
		for _, c := range r.text {
			if !unicode.IsSpace(c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// subsequence reports whether sub's runes appear in s in order.
func subsequence(sub, s []rune) bool {
	i := 0
	for _, c := range s {
		if i < len(sub) && sub[i] == c {
			i++
		}
	}
	return i == len(sub)
}

// lcs returns the index pairs of a longest common subsequence of a and b
// by row text, in order.
func lcs(a, b []benignRow) [][2]int {
	n, m := len(a), len(b)
	t := make([][]int, n+1)
	for i := range t {
		t[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i].text == b[j].text {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	var out [][2]int
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case a[i].text == b[j].text:
			out = append(out, [2]int{i, j})
			i++
			j++
		case t[i+1][j] >= t[i][j+1]:
			i++
		default:
			j++
		}
	}
	return out
}
