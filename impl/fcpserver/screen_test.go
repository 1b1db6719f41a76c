package fcpserver_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/spec/fcp"
)

// screen asks for a screen and returns it, checking the response's schema.
func (s *session) screen(seq int64, req string) (fcp.Response, *fcp.Screen) {
	s.t.Helper()
	s.send(req)
	raw := s.next()
	if err := s.v.ValidateResponse(fcp.OpScreen, raw); err != nil {
		s.t.Fatalf("%v\n%s", err, raw)
	}
	var r fcp.Response
	if err := json.Unmarshal(raw, &r); err != nil {
		s.t.Fatal(err)
	}
	if r.Seq != seq {
		s.t.Fatalf("screen answered with seq %d, want %d: %s", r.Seq, seq, raw)
	}
	return r, r.Screen
}

func rowsWith(sc *fcp.Screen, sub string) int {
	n := 0
	for _, r := range sc.Rows {
		if strings.Contains(r, sub) {
			n++
		}
	}
	return n
}

// PROTOCOL.md §10: screens while a confirmation waits, after the decision
// and after the turn; errors for a bad size, an unknown turn, no turn.
func TestScreen(t *testing.T) {
	s := newSession(t)
	r, _ := s.screen(1, `{"fcp":1,"seq":1,"op":"screen","width":80,"height":24}`)
	if r.OK == nil || *r.OK {
		t.Fatalf("a screen before any turn: want an error, got %+v", r)
	}
	s.send(`{"fcp":1,"seq":2,"op":"turn","ctx":{"working_dir":"$ROOT"},"config":{"tools":{"mode":"enabled","approval":{"mode":"prompt","denylist":[]}}},` +
		`"user":"u","model":[{"tool_calls":[{"id":"c1","name":"run_command","args":{"command":"echo one; echo two"}},{"id":"c2","name":"fcp_touch","args":{"path":"f","content":"x"}}]}]}`)
	s.until(isEvent(fcp.EventConfirmation))
	_, sc := s.screen(3, `{"fcp":1,"seq":3,"op":"screen","turn":2,"width":80,"height":24}`)
	if len(sc.Rows) != 24 || sc.Width != 80 {
		t.Fatalf("screen size %dx%d, %d rows", sc.Width, sc.Height, len(sc.Rows))
	}
	for _, want := range []string{"run_command [c1]", "Run command: echo one; echo two", "fcp_touch [c2]", "WARNING", "approve all", "deny all", "space select"} {
		if rowsWith(sc, want) == 0 {
			t.Errorf("the prompt shows no %q:\n%s", want, strings.Join(sc.Rows, "\n"))
		}
	}
	var high, medium bool
	for _, st := range sc.Styles {
		high = high || st.Class == fcp.ClassRiskHigh
		medium = medium || st.Class == fcp.ClassRiskMedium
	}
	if !high || !medium {
		t.Errorf("risk spans high %v medium %v: %+v", high, medium, sc.Styles)
	}
	if r, _ := s.screen(4, `{"fcp":1,"seq":4,"op":"screen","turn":9,"width":80,"height":24}`); r.OK == nil || *r.OK {
		t.Errorf("a screen of an unknown turn: want an error, got %+v", r)
	}
	s.send(`{"fcp":1,"seq":6,"op":"decide","turn":2,"decision":"approve_selected","ids":["c1"]}`)
	s.until(isSeq(2))
	_, sc = s.screen(7, `{"fcp":1,"seq":7,"op":"screen","width":80,"height":24}`)
	for _, want := range []string{"✓ run_command [c1]", "⊘ fcp_touch [c2]  not run: Tool call denied by user", "│ one", "│ two", "ended: script_ended"} {
		if rowsWith(sc, want) != 1 {
			t.Errorf("the end screen shows %q %d times, want once:\n%s", want, rowsWith(sc, want), strings.Join(sc.Rows, "\n"))
		}
	}
}
