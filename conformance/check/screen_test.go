package check

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/turnlog"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// screenOf builds a screen of height rows from rows (padded with empty
// ones) and spans.
func screenOf(height int, rows []string, styles ...fcp.ScreenStyle) fcp.Screen {
	all := make([]string, height)
	copy(all, rows)
	return fcp.Screen{Width: 80, Height: height, Rows: all, Styles: styles}
}

func screenFailedIDs(fs []Failure) []string {
	var out []string
	for _, f := range fs {
		for _, id := range f.IDs {
			if !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	slices.Sort(out)
	return out
}

func TestScreenWellFormed(t *testing.T) {
	tests := []struct {
		name string
		sc   fcp.Screen
		want []string
	}{
		{"clean", screenOf(10, []string{"hello", "✓ done"}), nil},
		{"escape", screenOf(10, []string{"a\x1b[31mred"}), []string{idSanitize, idSecOut}},
		{"bidi override", screenOf(10, []string{"\u202eexe.txt"}), []string{idSanitize, idSecOut}},
		{"carriage return", screenOf(10, []string{"evil\r[x]"}), []string{idSanitize, idSecOut}},
		{"too few rows", screenOf(9, nil), []string{"X-01"}},
		{"too wide", screenOf(10, []string{strings.Repeat("x", 81)}), []string{"X-01"}},
		{"wide runes count two", screenOf(10, []string{strings.Repeat("界", 41)}), []string{"X-01"}},
		{"span outside", screenOf(10, nil, fcp.ScreenStyle{Row: 10, Col: 0, Len: 1, Class: "ok"}), []string{"X-01"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := screenFailedIDs(ScreenWellFormed(tt.sc, 80, 10, []string{"X-01"}))
			if !slices.Equal(got, tt.want) {
				t.Errorf("failed IDs %v; want %v", got, tt.want)
			}
		})
	}
}

// shotLog is a turn's log with the events, a screen request and its answer.
func shotLog(sc fcp.Screen, events ...fcp.TurnLine) (*turnlog.Log, Shot) {
	log := &turnlog.Log{}
	for i := range events {
		log.Add(turnlog.Entry{Kind: turnlog.Event, Line: &events[i]})
	}
	req := &fcp.TurnRequest{Op: fcp.OpScreen, Seq: 9}
	at := len(log.Entries)
	log.Add(turnlog.Entry{Kind: turnlog.Sent, Req: req})
	log.Add(turnlog.Entry{Kind: turnlog.Answer, Req: req, Resp: &fcp.Response{OK: fcp.Bool(true), Screen: &sc}})
	return log, Shot{At: at, Screen: &sc}
}

func TestScreenPrompt(t *testing.T) {
	conf := fcp.TurnLine{Event: fcp.EventConfirmation, Requests: []fcp.Confirmation{
		{ID: "c1", Name: "run_command", Summary: "Run command: echo hi", RiskLevel: "High"},
		{ID: "c2", Name: "fcp_touch", Summary: "Write n.txt", RiskLevel: "Medium"},
	}}
	good := []string{
		"⚠ WARNING: read the command",
		"▸ [x] ▲ HIGH run_command [c1]",
		"      Run command: echo hi",
		"  [x] MEDIUM fcp_touch [c2]",
		"      Write n.txt",
		"a approve all · d deny all · space select",
	}
	edit := func(i int, row string) []string { r := slices.Clone(good); r[i] = row; return r }
	tests := []struct {
		name   string
		rows   []string
		styles []fcp.ScreenStyle
		want   []string
	}{
		{"reference-like", good, nil, nil},
		{"risk as a span only", edit(3, "  [x] ◆ fcp_touch [c2]"), []fcp.ScreenStyle{{Row: 3, Col: 6, Len: 1, Class: fcp.ClassRiskMedium}}, nil},
		{"no risk", edit(3, "  [x] fcp_touch [c2]"), nil, []string{idPrompt}},
		{"wrong risk", edit(3, "  [x] HIGH fcp_touch [c2]"), nil, []string{idPrompt}},
		{"risk span of another row", edit(3, "  [x] fcp_touch [c2]"), []fcp.ScreenStyle{{Row: 4, Col: 0, Len: 1, Class: fcp.ClassRiskMedium}}, []string{idPrompt}},
		{"no summary", edit(4, ""), nil, []string{idPrompt}},
		{"summary wrapped", slices.Insert(edit(2, "      Run command:"), 3, "      echo hi"), nil, nil},
		{"no deny all", edit(5, "a approve all · space select"), nil, []string{idPrompt}},
		{"no selection", edit(5, "a approve all · d deny all"), nil, []string{idPrompt}},
		{"no banner", edit(0, ""), nil, []string{idBanner, idPrompt}},
		{"banner as a span", edit(0, "!!"), []fcp.ScreenStyle{{Row: 0, Col: 0, Len: 2, Class: fcp.ClassWarning}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log, shot := shotLog(screenOf(20, tt.rows, tt.styles...), conf)
			shot.Moment = &corpus.ScreenMoment{Expect: corpus.ScreenExpect{Prompt: true, Banner: true}}
			got := screenFailedIDs(ScreenExpect(log, shot))
			if !slices.Equal(got, tt.want) {
				t.Errorf("failed IDs %v; want %v: %v", got, tt.want, ScreenExpect(log, shot))
			}
		})
	}
}

func TestScreenStates(t *testing.T) {
	use := func(id, name string) fcp.TurnLine {
		return fcp.TurnLine{Event: fcp.EventMessage, Message: &fcp.Message{Type: fcp.MessageToolUse, ID: id, Name: name}}
	}
	content := "Tool call denied by user"
	final := fcp.TurnLine{OK: fcp.Bool(true), History: []fcp.Message{
		{Type: fcp.MessageToolResult, ID: "p1", Content: new(string), IsError: fcp.Bool(false)},
		{Type: fcp.MessageToolResult, ID: "p2", Content: new(string), IsError: fcp.Bool(true)},
		{Type: fcp.MessageToolResult, ID: "p5", Content: &content, IsError: fcp.Bool(true)},
	}}
	tests := []struct {
		name   string
		rows   []string
		states map[string]string
		styles []fcp.ScreenStyle
		ok     bool
	}{
		{"pending", []string{"· fcp_echo [p1] pending"}, map[string]string{"p1": "pending"}, nil, true},
		{"pending with a dash is not a spinner", []string{"fcp_echo [p1] - pending"}, map[string]string{"p1": "pending"}, nil, false},
		{"pending shown done", []string{"✓ fcp_echo [p1]"}, map[string]string{"p1": "pending"}, nil, false},
		{"executing braille", []string{"⠋ fcp_sleep [p3] 0.1s"}, map[string]string{"p3": "executing"}, nil, true},
		{"executing span", []string{"* fcp_sleep [p3]"}, map[string]string{"p3": "executing"}, []fcp.ScreenStyle{{Row: 0, Col: 0, Len: 1, Class: fcp.ClassSpinner}}, true},
		{"executing without spinner", []string{"fcp_sleep [p3] running"}, map[string]string{"p3": "executing"}, nil, false},
		{"completed ok", []string{"✓ fcp_echo [p1]"}, map[string]string{"p1": "completed"}, nil, true},
		{"completed wrong mark", []string{"✗ fcp_echo [p1]"}, map[string]string{"p1": "completed"}, nil, false},
		{"completed error", []string{"✗ fcp_fail [p2]"}, map[string]string{"p2": "completed"}, nil, true},
		{"denied with reason", []string{"⊘ fcp_touch [p5] not run: Tool call denied by user"}, map[string]string{"p5": "denied"}, nil, true},
		{"denied reason on the next row", []string{"⊘ fcp_touch [p5]", "   Tool call denied by user"}, map[string]string{"p5": "denied"}, nil, true},
		{"denied without reason", []string{"⊘ fcp_touch [p5] not run"}, map[string]string{"p5": "denied"}, nil, false},
		{"id inside a longer id", []string{"✓ fcp_echo [p10]"}, map[string]string{"p1": "completed"}, nil, true}, // by its unique name
		{"not shown", []string{"nothing"}, map[string]string{"p1": "pending"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log, shot := shotLog(screenOf(10, tt.rows, tt.styles...), use("p1", "fcp_echo"), use("p2", "fcp_fail"), use("p3", "fcp_sleep"), use("p5", "fcp_touch"))
			log.Add(turnlog.Entry{Kind: turnlog.Final, Line: &final})
			shot.Moment = &corpus.ScreenMoment{Expect: corpus.ScreenExpect{States: tt.states}}
			fs := ScreenExpect(log, shot)
			if (len(fs) == 0) != tt.ok {
				t.Errorf("failures %v; want ok=%v", fs, tt.ok)
			}
			for _, f := range fs {
				if !slices.Equal(f.IDs, []string{idProgress}) {
					t.Errorf("failure charged to %v; want FR-TUI-02", f.IDs)
				}
			}
		})
	}
}

func TestScreenOutput(t *testing.T) {
	lines := func(from, to int) []string {
		var out []string
		for i := from; i <= to; i++ {
			out = append(out, fmt.Sprintf("│ line %d", i))
		}
		return out
	}
	tests := []struct {
		name string
		rows []string
		want corpus.OutputExpect
		ok   bool
	}{
		{"last 50", lines(11, 60), corpus.OutputExpect{Lines: 60, Complete: true}, true},
		{"51 lines", lines(10, 60), corpus.OutputExpect{Lines: 60, Complete: true}, false},
		{"51 lines, bound only", lines(10, 60), corpus.OutputExpect{}, false},
		{"head instead of tail", lines(1, 20), corpus.OutputExpect{Lines: 60}, false},
		{"tail on a short screen", lines(41, 60), corpus.OutputExpect{Lines: 60}, true},
		{"short screen, not complete", lines(41, 60), corpus.OutputExpect{Lines: 60, Complete: true}, false},
		{"all 30", lines(1, 30), corpus.OutputExpect{Lines: 30, Complete: true}, true},
		{"one dropped", append(lines(1, 14), lines(16, 30)...), corpus.OutputExpect{Lines: 30, Complete: true}, false},
		{"tail not lowest", append(lines(11, 60), "│ line 59"), corpus.OutputExpect{Lines: 60}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := outputLines(screenOf(80, tt.rows), tt.want)
			if (len(fs) == 0) != tt.ok {
				t.Errorf("failures %v; want ok=%v", fs, tt.ok)
			}
		})
	}
}

func TestScreenPendingAndHostile(t *testing.T) {
	pend := fcp.TurnLine{Event: fcp.EventPending, Calls: []fcp.PendingCall{{ID: "call_1", Name: "read_file"}}}
	tests := []struct {
		name   string
		rows   []string
		expect corpus.ScreenExpect
		styles []fcp.ScreenStyle
		want   []string
	}{
		{"pending", []string{"read_file id call_1", "Submit with /tool <id> <result>"}, corpus.ScreenExpect{Pending: true}, nil, nil},
		{"pending, other guidance", []string{"read_file id call_1", "submit the result with :r"}, corpus.ScreenExpect{Pending: true}, nil, nil},
		{"pending, no guidance", []string{"read_file id call_1"}, corpus.ScreenExpect{Pending: true}, nil, []string{idParse}},
		{"pending, no id", []string{"read_file", "/tool"}, corpus.ScreenExpect{Pending: true}, nil, []string{idParse}},
		{"contained", []string{"Write x ⏎ ▸ [x] LOW fcp_echo [ok]"}, corpus.ScreenExpect{Contained: []corpus.Containment{{Text: "fcp_echo [ok]", With: "Write x"}}}, nil, nil},
		{"fake row", []string{"Write x", "▸ [x] LOW fcp_echo [ok]"}, corpus.ScreenExpect{Contained: []corpus.Containment{{Text: "fcp_echo [ok]", With: "Write x"}}}, nil, []string{idSanitize, idSecOut}},
		{"styled by output", []string{"evil"}, corpus.ScreenExpect{NoStyles: []string{fcp.ClassRiskLow}}, []fcp.ScreenStyle{{Row: 0, Col: 0, Len: 4, Class: fcp.ClassRiskLow}}, []string{idSanitize, idSecOut}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log, shot := shotLog(screenOf(10, tt.rows, tt.styles...), pend)
			shot.Moment = &corpus.ScreenMoment{Expect: tt.expect}
			got := screenFailedIDs(ScreenExpect(log, shot))
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("failed IDs %v; want %v", got, want)
			}
		})
	}
}

func TestScreenGoldenMasksAndSplits(t *testing.T) {
	sc := fcp.Screen{Width: 40, Height: 2, Rows: []string{"Forge · turn 7", "⠋ fcp_sleep [p3] 12.3s"},
		Styles: []fcp.ScreenStyle{{Row: 1, Col: 0, Len: 1, Class: fcp.ClassSpinner}, {Row: 1, Col: 17, Len: 5, Class: fcp.ClassTiming}}}
	m := &corpus.ScreenMoment{Name: "sleeping", At: corpus.EventMatch{Event: "stdout", ID: "p3"}}
	g := ScreenGolden([]Shot{{Moment: m, Turn: 7, Screen: &sc}, {Moment: &corpus.ScreenMoment{Name: "racy", Unsettled: true}, Screen: &sc}})
	for _, want := range []string{"== screen sleeping", "|Forge · turn #", "|░ fcp_sleep [p3] ░░░░", "1:17+4 timing"} {
		if !strings.Contains(string(g), want) {
			t.Errorf("golden lacks %q:\n%s", want, g)
		}
	}
	if strings.Contains(string(g), "racy") {
		t.Errorf("an unsettled moment is in the golden:\n%s", g)
	}
	turn, screens := SplitScreenGolden(append([]byte("{\"ok\":true}\n"), g...))
	if string(turn) != "{\"ok\":true}\n" || string(screens) != string(g) {
		t.Errorf("split: %q | %q", turn, screens)
	}
	if fs := CompareScreenGolden(screens, screens, true); fs != nil {
		t.Errorf("equal screens differ: %v", fs)
	}
	fs := CompareScreenGolden(screens, []byte("x"), false)
	if len(fs) != 1 || fs[0].Severity != SeverityNote {
		t.Errorf("another implementation's difference: %v; want one note", fs)
	}
	fs = CompareScreenGolden(screens, []byte("x"), true)
	if len(fs) != 1 || fs[0].Severity != SeverityFail || fs[0].Kind != KindGolden {
		t.Errorf("the reference's difference: %v; want a golden failure", fs)
	}
}
