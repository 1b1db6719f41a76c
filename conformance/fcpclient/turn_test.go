package fcpclient

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forge-conform/forge-conform/conformance/turnlog"
	"github.com/forge-conform/forge-conform/spec/fcp"
	"github.com/forge-conform/forge-conform/spec/fcp/fcpschema"
)

// faketurnPath builds testdata/faketurn once, next to fakeimpl (TestMain's
// directory, removed at the end).
var faketurnPath = sync.OnceValues(func() (string, error) {
	dir := filepath.Dir(fakeimpl)
	out, err := exec.Command("go", "build", "-o", dir, "./testdata/faketurn").CombinedOutput()
	if err != nil {
		return "", errors.New("building testdata/faketurn: " + err.Error() + "\n" + string(out))
	}
	return filepath.Join(dir, "faketurn"), nil
})

// startTurnFake starts faketurn in mode, with the schema validator, and
// answers its hello.
func startTurnFake(t *testing.T, mode string) *Session {
	t.Helper()
	bin, err := faketurnPath()
	if err != nil {
		t.Fatal(err)
	}
	v, err := fcpschema.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Start(context.Background(), Options{Command: []string{bin, mode}, ExitGrace: 300 * time.Millisecond, Validator: v})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Hello(ctxTimeout(t, 5*time.Second)); err != nil {
		t.Fatalf("hello: %v", err)
	}
	return s
}

func turnReq() fcp.TurnRequest {
	return fcp.TurnRequest{Ctx: &fcp.Ctx{WorkingDir: "/"}, User: "go",
		Model: []fcp.ModelResponse{{ToolCalls: []fcp.ModelCall{{ID: "c1", Name: "fcp_guarded", Args: []byte(`{}`)}}}}}
}

// decideOn answers every confirmation with decision.
func decideOn(decision string) turnlog.User {
	return func(ev fcp.TurnLine) []fcp.TurnRequest {
		if ev.Event != fcp.EventConfirmation {
			return nil
		}
		return []fcp.TurnRequest{{Op: fcp.OpDecide, Decision: decision}}
	}
}

// kinds renders a log as its entries' kinds and events, for comparison.
func kinds(log *turnlog.Log) string {
	var parts []string
	for _, e := range log.Entries {
		switch e.Kind {
		case turnlog.Event:
			parts = append(parts, e.Line.Event)
		case turnlog.Sent:
			parts = append(parts, "sent:"+e.Req.Op)
		case turnlog.Answer:
			parts = append(parts, "answer:"+e.Req.Op)
		default:
			parts = append(parts, e.Kind)
		}
	}
	return strings.Join(parts, " ")
}

func TestTurnWellBehaved(t *testing.T) {
	tests := []struct {
		decision string
		log      string
		content  string
	}{
		{fcp.DecisionApproveAll, "message message confirmation sent:decide answer:decide started stdout completed message final", "hi\n"},
		{fcp.DecisionDenyAll, "message message confirmation sent:decide answer:decide message final", "Tool call denied by user"},
	}
	for _, tt := range tests {
		t.Run(tt.decision, func(t *testing.T) {
			noLeaks(t)
			s := startTurnFake(t, "good")
			// Two turns on one session: seqs go on after the decide's.
			for i := range 2 {
				log, err := s.Turn(ctxTimeout(t, 5*time.Second), turnReq(), decideOn(tt.decision))
				if err != nil {
					t.Fatalf("turn %d: %v", i, err)
				}
				if got := kinds(log); got != tt.log {
					t.Errorf("turn %d: log %q, want %q", i, got, tt.log)
				}
				final := log.Final()
				if final == nil || final.End != fcp.EndDone || len(final.History) != 3 || *final.History[2].Content != tt.content {
					t.Fatalf("turn %d: final %+v", i, final)
				}
				turnSeq := int64(1 + 2*i) // hello is 0; each turn sends one decide
				if final.Seq != turnSeq {
					t.Errorf("turn %d: final seq %d, want %d", i, final.Seq, turnSeq)
				}
				for _, e := range log.Entries {
					if e.Kind == turnlog.Sent && (e.Req.Seq != turnSeq+1 || e.Req.Turn == nil || *e.Req.Turn != turnSeq || e.Req.FCP != fcp.Version) {
						t.Errorf("turn %d: decide sent as %+v, want seq %d, turn %d", i, *e.Req, turnSeq+1, turnSeq)
					}
				}
			}
		})
	}
}

func TestTurnMisbehaving(t *testing.T) {
	tests := []struct {
		mode    string
		timeout time.Duration
		kind    string
		detail  string
		log     string
	}{
		{mode: "silent", timeout: 400 * time.Millisecond, kind: KindTimeout,
			detail: "waiting for the end of turn seq 1 (last event read: message; 0 requests unanswered)", log: "message"},
		{mode: "garbage", timeout: 5 * time.Second, kind: KindGarbage,
			detail: `a line of turn seq 1 is not a JSON object: "this is not json"`, log: "message"},
		{mode: "wrong-seq", timeout: 5 * time.Second, kind: KindWrongSeq,
			detail: "got a line with seq 9 during turn seq 1", log: "message message confirmation sent:decide"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			noLeaks(t)
			s := startTurnFake(t, tt.mode)
			pid := s.Pid()
			start := time.Now()
			log, err := s.Turn(ctxTimeout(t, tt.timeout), turnReq(), decideOn(fcp.DecisionApproveAll))
			took := time.Since(start)
			pe := protocolError(t, err)
			if pe.Kind != tt.kind || !strings.Contains(pe.Detail, tt.detail) {
				t.Errorf("got %s: %s\nwant %s: ...%s...", pe.Kind, pe.Detail, tt.kind, tt.detail)
			}
			if got := kinds(log); got != tt.log {
				t.Errorf("log %q, want %q (what was read before the error)", got, tt.log)
			}
			if took > tt.timeout+3*time.Second {
				t.Errorf("Turn took %s, bounded by its %s context plus the exit grace", took, tt.timeout)
			}
			// The session is dead, and its process is gone.
			if _, err := s.Turn(ctxTimeout(t, time.Second), turnReq(), nil); !errors.Is(err, ErrDead) {
				t.Errorf("second turn: %v, want ErrDead", err)
			}
			waitGone(t, "implementation", pid)
		})
	}
}

// A hostile implementation that never finishes its turn costs that turn,
// bounded by its context, and the whole process group is killed: the
// grandchild it started too.
func TestTurnHangKillsGroup(t *testing.T) {
	noLeaks(t)
	s := startTurnFake(t, "spawn-and-hang")
	pid := s.Pid()
	log, err := s.Turn(ctxTimeout(t, 500*time.Millisecond), turnReq(), nil)
	if pe := protocolError(t, err); pe.Kind != KindTimeout {
		t.Fatalf("got %s: %s, want a timeout", pe.Kind, pe.Detail)
	}
	evs := log.Events()
	if len(evs) != 1 || evs[0].Message == nil {
		t.Fatalf("want the one event naming the grandchild, got %s", kinds(log))
	}
	child, err := strconv.Atoi(evs[0].Message.Text)
	if err != nil {
		t.Fatalf("grandchild pid %q: %v", evs[0].Message.Text, err)
	}
	waitGone(t, "implementation", pid)
	waitGone(t, "grandchild", child)
}
