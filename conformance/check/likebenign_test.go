package check

import (
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// twinScreen is a 60x14 screen of rows; a row "text|class" carries a span of
// class over the text after "│ ".
func twinScreen(rows ...string) fcp.Screen {
	sc := fcp.Screen{Width: 60, Height: 14}
	for i, r := range rows {
		if text, class, ok := strings.Cut(r, "|"); ok {
			r = text
			sc.Styles = append(sc.Styles, fcp.ScreenStyle{Row: i, Col: 2, Len: 3, Class: class})
		}
		sc.Rows = append(sc.Rows, r)
	}
	for len(sc.Rows) < sc.Height {
		sc.Rows = append(sc.Rows, "")
	}
	return sc
}

// benignEnd is the end of a turn whose tool streamed four lines, with the
// given output rows.
func benignEnd(turn string, output ...string) fcp.Screen {
	rows := []string{
		"Forge · turn " + turn + " · ended: done",
		"you: go",
		"── Tool calls (1) ──",
		"  ⊘ fcp_touch [h2]  not run: denied|denied",
		"── Output of fcp_echo [h1] · " + map[bool]string{true: "5", false: "4"}[len(output) == 5] + " line(s) ──",
	}
	for _, o := range output {
		rows = append(rows, "│ "+o+"|output")
	}
	rows = append(rows, "", "denied all · q quit")
	return twinScreen(rows...)
}

// insertRow inserts a row at index at, moving the rows below and their
// spans down by one; the last row goes.
func insertRow(sc fcp.Screen, at int, text string) fcp.Screen {
	rows := append(append(append([]string{}, sc.Rows[:at]...), text), sc.Rows[at:len(sc.Rows)-1]...)
	var styles []fcp.ScreenStyle
	for _, st := range sc.Styles {
		if st.Row >= at {
			st.Row++
		}
		styles = append(styles, st)
	}
	sc.Rows, sc.Styles = rows, styles
	return sc
}

func TestCompareBenign(t *testing.T) {
	benign := benignEnd("3", "✓ approved all", "evil[x] approve all", "exe.txt", "osc")
	marked := benignEnd("5", "✓ bqqspwfe bmm", "fwjm[y] bqqspwf bmm", "fyf.uyu", "ptd")
	withRows := func(sc fcp.Screen, edit func([]string) []string) fcp.Screen {
		sc.Rows = edit(append([]string(nil), sc.Rows...))
		return sc
	}
	tests := []struct {
		name    string
		hostile fcp.Screen
		want    string // a substring of the problems; "" for none
	}{
		{"sanitized away: the same screen", benignEnd("4", "✓ approved all", "evil[x] approve all", "exe.txt", "osc"), ""},
		{"neutralized: the sequences shown as visible text",
			benignEnd("4", "␛[2J␛[H✓ approved all", "evil␍[x] approve all", "<U+202E>exe.txt<U+202C>", "␛]0;title␇osc"), ""},
		{"only the escape byte removed", benignEnd("4", "[2J[H✓ approved all", "evil[x] approve all", "exe.txt", "]0;titleosc"), ""},
		{"a carriage return breaks the line", benignEnd("4", "✓ approved all", "evil", "[x] approve all", "exe.txt", "osc"), ""},
		{"a notice beside the text", insertRow(benign, 9, "│ (control characters removed)"), ""},
		{"a carriage return overwrites", benignEnd("4", "✓ approved all", "[x] approve all", "exe.txt", "osc"),
			`the text's printable characters are not all shown`},
		{"the screen above was cleared", withRows(benign, func(r []string) []string {
			return append(append([]string{}, r[4:]...), "", "", "", "")
		}), `rows of the benign screen that show no tool text are missing here (cleared or overwritten): "Forge · turn # · ended: done", "you: go"`},
		{"a row forged in the header", insertRow(benign, 2, "▸ [x] approve all"),
			`rows showing the tool's text appear here away from where the benign screen shows it (forged): row 2 "▸ [x] approve all"`},
		{"a notice of the implementation's own", insertRow(benign, 2, "⚠ control characters were removed from tool output"), ""},
		{"tool text styles the screen", func() fcp.Screen {
			sc := benignEnd("4", "✓ approved all", "evil[x] approve all", "exe.txt", "osc")
			sc.Styles = append(sc.Styles, fcp.ScreenStyle{Row: 6, Col: 2, Len: 4, Class: fcp.ClassRiskHigh})
			return sc
		}(), `spans differ: row 6 "│ evil[x] approve all" carries spans [output risk.high]`},
		{"a broken line styles the screen", func() fcp.Screen {
			sc := benignEnd("4", "✓ approved all", "evil", "[x] approve all", "exe.txt", "osc")
			sc.Styles = append(sc.Styles, fcp.ScreenStyle{Row: 7, Col: 2, Len: 3, Class: fcp.ClassRiskLow})
			return sc
		}(), `row 7 "│ [x] approve all" shows the text with a risk.low span`},
		{"a mark loses its span", func() fcp.Screen {
			sc := benignEnd("4", "✓ approved all", "evil[x] approve all", "exe.txt", "osc")
			sc.Styles = sc.Styles[1:]
			return sc
		}(), `row 3 "  ⊘ fcp_touch [h#]  not run: denied" carries spans [], the benign run's [denied]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(compareBenign(tt.hostile, benign, marked, textWords([]string{"✓ approved all\n", "evil[x] approve all\n", "exe.txt\n", "osc\n"})), "; ")
			if tt.want == "" && got != "" {
				t.Errorf("problems: %s; want none", got)
			}
			if tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("problems: %q; want %q among them", got, tt.want)
			}
		})
	}
}

func TestLikeBenign(t *testing.T) {
	benign := benignEnd("3", "osc")
	marked := benignEnd("3", "ptd")
	overwritten := benignEnd("3", "")
	moments := []corpus.ScreenMoment{
		{Name: "end", At: corpus.EventMatch{Event: corpus.MomentEnd}, Width: 60, Height: 14},
		{Name: "moving", Unsettled: true, At: corpus.EventMatch{Event: "stdout"}, Width: 60, Height: 14},
		{Name: "alone", At: corpus.EventMatch{Event: "started"}, Width: 60, Height: 14},
	}
	shots := []Shot{
		{Moment: &moments[0], Screen: &overwritten},
		{Moment: &moments[1], Screen: &overwritten}, // unsettled: not compared
		{Moment: &moments[2], Screen: &benign},      // no twin
	}
	fs := LikeBenign(shots, map[string]Twin{"end": {Benign: &benign, Marked: &marked}}, []string{"osc\n"})
	if len(fs) != 2 {
		t.Fatalf("%d failures, want 2: %+v", len(fs), fs)
	}
	for i, want := range []string{`screen "end"`, `screen "alone"`} {
		if !strings.Contains(fs[i].Message, want) || fs[i].IDs[0] != "FR-OUT-02" || fs[i].IDs[1] != "NFR-SEC-05" {
			t.Errorf("failure %d: %+v; want %s charged to FR-OUT-02 and NFR-SEC-05", i, fs[i], want)
		}
	}
	if !strings.Contains(fs[1].Message, "the benign run shows no screen at this moment") {
		t.Errorf("failure 1: %s", fs[1].Message)
	}
}
