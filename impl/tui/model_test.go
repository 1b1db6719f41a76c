package tui

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

func keys(m *Model, ks ...tea.KeyMsg) {
	for _, k := range ks {
		m.Update(k)
	}
}

func runeKey(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

func confirmLines() []fcp.TurnLine {
	msg := func(m fcp.Message) fcp.TurnLine { return fcp.TurnLine{Event: fcp.EventMessage, Message: &m} }
	return []fcp.TurnLine{
		{Event: fcp.EventModelRequest, Iteration: fcp.Int(0)},
		msg(fcp.Message{Type: fcp.MessageToolUse, ID: "c1", Name: "run_command"}),
		msg(fcp.Message{Type: fcp.MessageToolUse, ID: "c2", Name: "fcp_touch"}),
		{Event: fcp.EventConfirmation, Requests: []fcp.Confirmation{
			{ID: "c1", Name: "run_command", Summary: "Run command: ls", RiskLevel: "High"},
			{ID: "c2", Name: "fcp_touch", Summary: "Write f", RiskLevel: "Medium"}}},
	}
}

// The prompt's keys: move, deselect, approve the selection; the decision
// reaches the engine's Confirm.
func TestModelPromptKeys(t *testing.T) {
	ui := NewUI()
	m := NewModel(1, ui, nil, func() time.Time { return time.Unix(0, 0) }, Defects{})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	for _, l := range confirmLines() {
		m.Update(eventMsg(l))
	}
	if v := m.View(); !strings.Contains(v, "Run command: ls") || !strings.Contains(v, "HIGH") {
		t.Fatalf("the view shows no prompt:\n%s", v)
	}
	keys(m, tea.KeyMsg{Type: tea.KeyDown}, runeKey(" "), tea.KeyMsg{Type: tea.KeyEnter})
	d, err := ui.Confirm(context.Background(), nil)
	if err != nil || d.Kind != fcp.DecisionApproveSelected || strings.Join(d.IDs, ",") != "c1" {
		t.Fatalf("decision %+v, %v; want approve_selected [c1]", d, err)
	}
	if m.State().Confirm != nil {
		t.Error("the prompt stays after the decision")
	}
}

// Parse-only: /tool answers each pending call; the results go to Manual
// once all are in; a wrong id is refused with a notice.
func TestModelManualResults(t *testing.T) {
	ui := NewUI()
	m := NewModel(1, ui, nil, nil, Defects{})
	msg := func(m fcp.Message) fcp.TurnLine { return fcp.TurnLine{Event: fcp.EventMessage, Message: &m} }
	for _, l := range []fcp.TurnLine{
		{Event: fcp.EventModelRequest, Iteration: fcp.Int(0)},
		msg(fcp.Message{Type: fcp.MessageToolUse, ID: "a", Name: "read_file"}),
		msg(fcp.Message{Type: fcp.MessageToolUse, ID: "b", Name: "read_file"}),
		{Event: fcp.EventPending, Calls: []fcp.PendingCall{{ID: "a", Name: "read_file"}, {ID: "b", Name: "read_file"}}},
	} {
		m.Update(eventMsg(l))
	}
	typeLine := func(s string) {
		for _, r := range s {
			m.Update(runeKey(string(r)))
		}
		m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	}
	typeLine("/tool zz nope")
	if !strings.Contains(m.State().Notice, "no pending call") {
		t.Errorf("notice %q", m.State().Notice)
	}
	m.Update(tea.KeyMsg{Type: tea.KeyCtrlU}) // a refused line stays to be fixed
	typeLine("/tool a hello world")
	typeLine("/tool! b it failed")
	got, err := ui.Manual(context.Background(), nil)
	want := map[string]executor.ManualResult{"a": {Content: "hello world"}, "b": {Content: "it failed", IsError: true}}
	if err != nil || len(got) != 2 || got["a"] != want["a"] || got["b"] != want["b"] {
		t.Fatalf("manual %+v, %v; want %+v", got, err, want)
	}
}

// FR-TUI-03: at most the last 50 lines, whatever the height; scrolling up
// stops following; the defect shows 51.
func TestOutputTail(t *testing.T) {
	st := NewState(1)
	st.Keep = 51 // as the defect's TurnScreen does; the correct render still shows 50
	st.Apply(fcp.TurnLine{Event: fcp.EventStarted, ID: "e", Name: "fcp_echo"}, time.Time{})
	for i := 1; i <= 60; i++ {
		st.Apply(fcp.TurnLine{Event: fcp.EventStdout, ID: "e", Chunk: "line " + itoa(i) + "\n"}, time.Time{})
	}
	count := func(d Defects) (n int, last string) {
		sc := Render(st, View{Width: 80, Height: 120, Defects: d})
		for _, r := range sc.Rows {
			if strings.HasPrefix(r, "│ ") {
				n, last = n+1, r
			}
		}
		return
	}
	if n, last := count(Defects{}); n != 50 || last != "│ line 60" {
		t.Errorf("%d lines, last %q; want 50 ending with line 60", n, last)
	}
	if n, _ := count(Defects{OutputLines: 51}); n != 51 {
		t.Errorf("the defect shows %d lines, want 51", n)
	}
	st.Scroll = 5
	if _, last := count(Defects{}); last != "│ line 55" {
		t.Errorf("scrolled up 5: last %q", last)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestTextRemovesBidiAndControls(t *testing.T) {
	got := Line("a\u202eb\u2066c\x1b[31md\re\tf\ng")
	if want := "abcde    f⏎g"; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
}

// Each defect breaks what its requirement asks for, and only then.
func TestDefectsBreakTheScreen(t *testing.T) {
	st := NewState(1)
	for _, l := range confirmLines() {
		st.Apply(l, time.Time{})
	}
	st.Confirm[1].Summary = "Write f\x1b[31m\u202e"
	has := func(d Defects, sub string) bool {
		sc := Render(st, View{Width: 80, Height: 24, Defects: d})
		return strings.Contains(strings.Join(sc.Rows, "\n"), sub)
	}
	for _, tc := range []struct {
		d   Defects
		sub string
	}{
		{Defects{NoRiskIndicator: true}, "HIGH"},
		{Defects{NoWarningBanner: true}, "WARNING"},
		{Defects{Unsanitized: true}, "\x1b"},
	} {
		if ok, broken := has(Defects{}, tc.sub), has(tc.d, tc.sub); ok == (tc.sub == "\x1b") || broken == ok {
			t.Errorf("%+v: %q shown %v, with the defect %v", tc.d, tc.sub, ok, broken)
		}
	}
	res, isErr := "Tool call denied by user", true
	st.Apply(fcp.TurnLine{Event: fcp.EventMessage, Message: &fcp.Message{Type: fcp.MessageToolResult, ID: "c1",
		Content: &res, IsError: &isErr}}, time.Time{})
	if !has(Defects{}, "⊘ run_command [c1]  not run: Tool call denied") || has(Defects{NoDeniedReason: true}, "denied by user") {
		t.Error("the ⊘ reason: shown without the defect, hidden with it")
	}
}
