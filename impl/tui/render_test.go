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
