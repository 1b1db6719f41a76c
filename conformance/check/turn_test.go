package check

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/turnlog"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// turnLog builds a log from compact lines: a JSON turn line (an event, or
// the final response when it has "ok"), or "sent:OP" / "answer:OP" for a
// request the runner sent and its answer.
func turnLog(t *testing.T, lines ...string) *turnlog.Log {
	t.Helper()
	log := &turnlog.Log{}
	for _, l := range lines {
		if op, ok := strings.CutPrefix(l, "sent:"); ok {
			log.Add(turnlog.Entry{Kind: turnlog.Sent, Req: &fcp.TurnRequest{Op: op}})
			continue
		}
		if op, ok := strings.CutPrefix(l, "answer:"); ok {
			yes := true
			log.Add(turnlog.Entry{Kind: turnlog.Answer, Req: &fcp.TurnRequest{Op: op}, Resp: &fcp.Response{OK: &yes}})
			continue
		}
		var tl fcp.TurnLine
		if err := json.Unmarshal([]byte(l), &tl); err != nil {
			t.Fatalf("line %s: %v", l, err)
		}
		kind := turnlog.Event
		if tl.Event == "" {
			kind = turnlog.Final
		}
		log.Add(turnlog.Entry{Kind: kind, Line: &tl})
	}
	return log
}

// Lines of a turn with one call, c1, that needs confirmation and writes
// "ab" in two chunks.
const (
	confirmC1   = `{"event":"confirmation","requests":[{"id":"c1","name":"fcp_echo","summary":"Echo","risk_level":"Low"}]}`
	startedC1   = `{"event":"started","id":"c1","name":"fcp_echo"}`
	chunkA      = `{"event":"stdout","id":"c1","chunk":"a"}`
	chunkB      = `{"event":"stdout","id":"c1","chunk":"b"}`
	completedC1 = `{"event":"completed","id":"c1"}`
	finalAB     = `{"ok":true,"end":"done","history":[{"type":"user","text":"go"},{"type":"tool_use","id":"c1","name":"fcp_echo","args":{}},` +
		`{"type":"tool_result","id":"c1","content":"ab","is_error":false}]}`
)

func TestTurn(t *testing.T) {
	good := []string{confirmC1, "sent:decide", "answer:decide", startedC1, chunkA, chunkB, completedC1, finalAB}
	expect := `{"end":["done"],"executed":["c1"],"order":[{"event":"confirmation"},{"event":"started","id":"c1"},{"event":"completed","id":"c1"}],` +
		`"results":{"c1":{"is_error":false,"content":"ab"}},"streams":{"c1":{"stdout":{"equals":"ab"}}},"confirmations":[{"c1":{"risk_level":"Low"}}]}`
	replace := func(lines []string, old, new string) []string {
		out := make([]string, 0, len(lines))
		for _, l := range lines {
			if l == old {
				if new == "" {
					continue
				}
				l = new
			}
			out = append(out, l)
		}
		return out
	}
	tests := []struct {
		name   string
		lines  []string
		expect string // default: expect
		// want is each failure as "kind ID...: message fragment"; none
		// means the turn passes.
		want []string
	}{
		{name: "well-behaved", lines: good},
		{name: "escape in a chunk", lines: replace(good, chunkA, `{"event":"stdout","id":"c1","chunk":"\u001b[31ma"}`),
			expect: `{}`, want: []string{"invariant FR-OUT-02: a stdout chunk of call c1 contains a control character"}},
		{name: "C1 control in a result", lines: replace(good, finalAB, strings.Replace(finalAB, `"ab"`, `"a\u009bb"`, 1)),
			expect: `{}`, want: []string{"invariant FR-OUT-02: the result of call c1 contains a control character or escape sequence at byte 1"}},
		{name: "two results for one call", lines: replace(good, finalAB, strings.Replace(finalAB, `]}`, `,{"type":"tool_result","id":"c1","content":"x"}]}`, 1)),
			expect: `{}`, want: []string{"invariant NFR-REL-01: call c1 has 2 results"}},
		{name: "no result", lines: replace(good, finalAB, `{"ok":true,"end":"done","history":[{"type":"tool_use","id":"c1","name":"fcp_echo","args":{}}]}`),
			want: []string{"invariant NFR-REL-01: call c1 has 0 results", "expect T-1: result of call c1: no tool_result in the history"}},
		{name: "chunk before started", lines: []string{confirmC1, "sent:decide", "answer:decide", chunkA, startedC1, chunkB, completedC1, finalAB},
			expect: `{}`, want: []string{"invariant FR-OUT-01: a stdout chunk of call c1 outside its started..completed span"}},
		{name: "started before the decision", lines: []string{confirmC1, startedC1, "sent:decide", "answer:decide", chunkA, chunkB, completedC1, finalAB},
			expect: `{}`, want: []string{"invariant T-APR-01: call c1: started event while a confirmation waits"}},
		{name: "started before the confirmation", lines: []string{startedC1, chunkA, chunkB, completedC1, confirmC1, "sent:decide", "answer:decide", finalAB},
			want: []string{"expect T-1: events out of order"}},
		{name: "a dropped chunk", lines: replace(good, chunkB, ""),
			want: []string{"expect T-1: stdout of call c1 (chunks concatenated)"}},
		{name: "no final response", lines: good[:len(good)-1],
			want: []string{"expect T-1: the turn has no final response"}},
		{name: "failed turn", lines: replace(good, finalAB, `{"ok":false,"error":{"kind":"BadArgs","message":"nope"}}`),
			want: []string{"expect T-1: the turn failed (BadArgs: nope)"}},
		{name: "refused configuration, refusable", lines: []string{`{"ok":false,"error":{"kind":"ExecutionFailed","message":"bad glob"}}`},
			expect: `{"refusable":true,"results":{"c1":{"not_contains":["x"]}}}`},
		{name: "refusable turn that runs is checked", lines: replace(good, finalAB, strings.Replace(finalAB, `"ab"`, `"xb"`, 1)),
			expect: `{"refusable":true,"results":{"c1":{"not_contains":["x"]}}}`,
			want:   []string{"expect T-1: result of call c1"}},
		{name: "wrong end", lines: replace(good, finalAB, strings.Replace(finalAB, `"done"`, `"cancelled"`, 1)),
			want: []string{`expect T-1: the turn ended "cancelled"; want done`}},
		{name: "wrong content", lines: replace(good, finalAB, strings.Replace(finalAB, `"ab"`, `"ba"`, 1)),
			want: []string{"expect T-1: result of call c1 differs from the expected content"}},
		{name: "denied call ran", lines: good, expect: `{"executed":[]}`,
			want: []string{"expect T-1: calls executed (started): [c1]; want exactly []"}},
		{name: "wrong risk level", lines: replace(good, confirmC1, strings.Replace(confirmC1, "Low", "High", 1)),
			want: []string{"expect T-1: "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exp := tt.expect
			if exp == "" {
				exp = expect
			}
			var te corpus.TurnExpect
			if err := json.Unmarshal([]byte(exp), &te); err != nil {
				t.Fatal(err)
			}
			c := &corpus.Case{IDs: []string{"T-1"}, Turn: &corpus.TurnSpec{}, Expect: corpus.Expect{Turn: &te}}
			got := Turn(TurnInput{Case: c, Log: turnLog(t, tt.lines...)})
			var gotS []string
			for _, f := range got {
				gotS = append(gotS, f.Kind+" "+strings.Join(f.IDs, " ")+": "+f.Message)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d failures, want %d:\n%s", len(got), len(tt.want), strings.Join(gotS, "\n"))
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(gotS[i], w) && !strings.Contains(gotS[i], strings.SplitN(w, ": ", 2)[1]) ||
					!strings.HasPrefix(gotS[i], strings.SplitN(w, ": ", 2)[0]+": ") {
					t.Errorf("failure %d:\n got %s\nwant %s...", i, gotS[i], w)
				}
			}
		})
	}
}
