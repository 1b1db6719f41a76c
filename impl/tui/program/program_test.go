package program

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/tui"
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
	m := NewModel(1, ui, nil, func() time.Time { return time.Unix(0, 0) }, tui.Look{})
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
	m := NewModel(1, ui, nil, nil, tui.Look{})
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
