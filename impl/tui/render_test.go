package tui

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/forge-conform/forge-conform/spec/fcp"
)

// FR-TUI-03: at most the last 50 lines, whatever the height; scrolling up
// stops following; the defect shows 51.
func TestOutputTail(t *testing.T) {
	st := NewState(1)
	st.Keep = 51 // as a TurnScreen of 51 lines does; the reference's look still shows 50
	st.Apply(fcp.TurnLine{Event: fcp.EventStarted, ID: "e", Name: "fcp_echo"}, time.Time{})
	for i := 1; i <= 60; i++ {
		st.Apply(fcp.TurnLine{Event: fcp.EventStdout, ID: "e", Chunk: "line " + itoa(i) + "\n"}, time.Time{})
	}
	count := func(look Look) (n int, last string) {
		sc := Render(st, View{Width: 80, Height: 120, Look: look})
		for _, r := range sc.Rows {
			if strings.HasPrefix(r, "│ ") {
				n, last = n+1, r
			}
		}
		return
	}
	if n, last := count(Look{}); n != 50 || last != "│ line 60" {
		t.Errorf("%d lines, last %q; want 50 ending with line 60", n, last)
	}
	if n, _ := count(Look{OutputLines: 51}); n != 51 {
		t.Errorf("a look of 51 lines shows %d lines", n)
	}
	st.Scroll = 5
	if _, last := count(Look{}); last != "│ line 55" {
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

// Each part of a Look draws what the reference's draws, or not: a look
// that leaves one out loses what its requirement asks for, and only that.
func TestLookParts(t *testing.T) {
	st := NewState(1)
	for _, l := range confirmLines() {
		st.Apply(l, time.Time{})
	}
	st.Confirm[1].Summary = "Write f\x1b[31m\u202e"
	has := func(look Look, sub string) bool {
		sc := Render(st, View{Width: 80, Height: 24, Look: look})
		return strings.Contains(strings.Join(sc.Rows, "\n"), sub)
	}
	for _, tc := range []struct {
		name string
		look Look
		sub  string
	}{
		{"no risk", Look{Risk: func(string) string { return "" }}, "HIGH"},
		{"no banner", Look{Banner: func() string { return "" }}, "WARNING"},
		{"raw", Look{Clean: func(s string) string { return s }}, "\x1b"},
	} {
		if ok, broken := has(Look{}, tc.sub), has(tc.look, tc.sub); ok == (tc.sub == "\x1b") || broken == ok {
			t.Errorf("%s: %q shown %v, with the look %v", tc.name, tc.sub, ok, broken)
		}
	}
	res, isErr := "Tool call denied by user", true
	st.Apply(fcp.TurnLine{Event: fcp.EventMessage, Message: &fcp.Message{Type: fcp.MessageToolResult, ID: "c1",
		Content: &res, IsError: &isErr}}, time.Time{})
	if !has(Look{}, "⊘ run_command [c1]  not run: Tool call denied") ||
		has(Look{NotRun: func(string) string { return "not run" }}, "denied by user") {
		t.Error("the ⊘ reason: shown by the reference's look, hidden by one without it")
	}
}

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
