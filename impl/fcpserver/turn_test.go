package fcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/forge-conform/forge-conform/impl/fcpserver"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/spec/fcp"
	"github.com/forge-conform/forge-conform/spec/fcp/fcpschema"
)

// session drives the reference through pipes, as a runner does.
type session struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan []byte
	v     *fcpschema.Validator
	done  chan error
	root  string
}

func newSession(t *testing.T) *session {
	t.Helper()
	ref, err := reference.New(reference.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := fcpschema.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &session{t: t, in: inW, lines: make(chan []byte, 1024), v: v, done: make(chan error, 1)}
	go func() { s.done <- fcpserver.Serve(context.Background(), inR, outW, ref); outW.Close() }()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			s.lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(s.lines)
	}()
	s.root, _ = filepath.EvalSymlinks(t.TempDir())
	t.Cleanup(func() {
		inW.Close()
		select {
		case err := <-s.done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Serve did not return at EOF")
		}
	})
	s.send(`{"fcp":1,"seq":0,"op":"hello","test_tools":true}`)
	var hello fcp.Response
	json.Unmarshal(s.next(), &hello)
	if !strings.Contains(strings.Join(hello.Tools, ","), "fcp_guarded") || !strings.Contains(strings.Join(hello.Ops, ","), "turn") {
		t.Fatalf("hello %+v", hello)
	}
	return s
}

func (s *session) send(line string) {
	s.t.Helper()
	line = strings.ReplaceAll(line, "$ROOT", s.root)
	if err := s.v.ValidateRequest([]byte(line)); err != nil {
		s.t.Fatalf("the test sends an invalid request: %v", err)
	}
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

func (s *session) next() []byte {
	s.t.Helper()
	select {
	case l, ok := <-s.lines:
		if !ok {
			s.t.Fatal("stdout closed")
		}
		return l
	case <-time.After(10 * time.Second):
		s.t.Fatal("no line within 10s")
	}
	return nil
}

// until reads turn lines until pred holds, checking each against the schema.
func (s *session) until(pred func(fcp.TurnLine, []byte) bool) []fcp.TurnLine {
	s.t.Helper()
	var seen []fcp.TurnLine
	for {
		raw := s.next()
		var l fcp.TurnLine
		if err := json.Unmarshal(raw, &l); err != nil {
			s.t.Fatal(err)
		}
		if l.Event != "" || l.End != "" {
			if err := s.v.ValidateTurnOutput(raw); err != nil {
				s.t.Fatalf("%v\n%s", err, raw)
			}
		}
		seen = append(seen, l)
		if pred(l, raw) {
			return seen
		}
	}
}

func isEvent(ev string) func(fcp.TurnLine, []byte) bool {
	return func(l fcp.TurnLine, _ []byte) bool { return l.Event == ev }
}

func isSeq(seq int64) func(fcp.TurnLine, []byte) bool {
	return func(l fcp.TurnLine, _ []byte) bool { return l.Seq == seq && l.Event == "" }
}

// PROTOCOL.md §9.3: a confirmation waits for decide; bad requests are
// answered while it waits; nothing starts before the decision (T-APR-01).
func TestTurnConfirmation(t *testing.T) {
	s := newSession(t)
	s.send(`{"fcp":1,"seq":1,"op":"turn","ctx":{"working_dir":"$ROOT"},"config":{"tools":{"mode":"enabled","approval":{"mode":"prompt"}}},` +
		`"user":"u","model":[{"text":"t","tool_calls":[{"id":"c1","name":"fcp_touch","args":{"path":"f","content":"x"}},{"id":"c2","name":"fcp_guarded","args":{"result":"g"}}]},{"text":"end"}]}`)
	seen := s.until(isEvent(fcp.EventConfirmation))
	for _, l := range seen {
		if l.Event == fcp.EventStarted {
			t.Fatal("a call started before the confirmation")
		}
	}
	if _, err := os.Stat(filepath.Join(s.root, "f")); err == nil {
		t.Fatal("the file changed before the decision")
	}
	for seq, bad := range map[int64]string{
		2: `{"fcp":1,"seq":2,"op":"decide","turn":1,"decision":"approve_selected","ids":["nope"]}`,
		3: `{"fcp":1,"seq":3,"op":"reset"}`,
		4: `{"fcp":1,"seq":4,"op":"decide","turn":7,"decision":"approve_all"}`,
		5: `{"fcp":1,"seq":5,"op":"turn","ctx":{"working_dir":"$ROOT"},"user":"u","model":[]}`,
		6: `{"fcp":1,"seq":6,"op":"tool_result","turn":1,"id":"c1","content":"x"}`,
	} {
		s.send(bad)
		var r fcp.Response
		json.Unmarshal(s.next(), &r)
		if r.Seq != seq || r.OK == nil || *r.OK || r.Error == nil || r.Error.Message == "" {
			t.Errorf("seq %d: want an error response, got %+v", seq, r)
		}
	}
	s.send(`{"fcp":1,"seq":7,"op":"decide","turn":1,"decision":"approve_selected","ids":["c2"]}`)
	seen = s.until(isSeq(1))
	final := seen[len(seen)-1]
	if !*seen[0].OK || seen[0].Seq != 7 {
		t.Errorf("decide answer %+v", seen[0])
	}
	if final.End != fcp.EndDone || !*final.OK {
		t.Fatalf("final %+v", final)
	}
	if _, err := os.Stat(filepath.Join(s.root, "f")); err == nil {
		t.Error("denied c1 ran")
	}
	var results []string
	for _, m := range final.History {
		if m.Type == fcp.MessageToolResult {
			results = append(results, m.ID+"="+*m.Content)
		}
	}
	if len(results) != 2 || results[1] != "c2=g" {
		t.Errorf("results %v", results)
	}
	// The session goes on.
	s.send(`{"fcp":1,"seq":8,"op":"reset"}`)
	if l := s.next(); string(l) != `{"seq":8,"ok":true}` {
		t.Errorf("reset: %s", l)
	}
}

// FR-EXE-04 through the protocol: cancel on the first chunk of c1.
func TestTurnCancel(t *testing.T) {
	s := newSession(t)
	s.send(`{"fcp":1,"seq":1,"op":"turn","ctx":{"working_dir":"$ROOT"},"config":{"tools":{"mode":"enabled","approval":{"mode":"auto"}}},` +
		`"user":"u","model":[{"tool_calls":[{"id":"c1","name":"fcp_sleep","args":{"ms":30000}},{"id":"c2","name":"fcp_echo","args":{"result":"x"}}]},{"text":"end"}]}`)
	s.until(func(l fcp.TurnLine, _ []byte) bool { return l.Event == fcp.EventStdout && l.ID == "c1" })
	s.send(`{"fcp":1,"seq":2,"op":"cancel","turn":1}`)
	seen := s.until(isSeq(1))
	final := seen[len(seen)-1]
	if final.End != fcp.EndCancelled {
		t.Fatalf("final %+v", final)
	}
	for _, m := range final.History {
		if m.Type == fcp.MessageToolResult && *m.Content != "Cancelled by user" {
			t.Errorf("%s: %q", m.ID, *m.Content)
		}
	}
	s.send(`{"fcp":1,"seq":3,"op":"cancel","turn":1}`)
	var r fcp.Response
	json.Unmarshal(s.next(), &r)
	if r.Error == nil {
		t.Errorf("cancel with no turn running: %+v", r)
	}
}

// FR-MODE-02, FR-TUI-04 through the protocol: manual results.
func TestTurnParseOnly(t *testing.T) {
	s := newSession(t)
	s.send(`{"fcp":1,"seq":1,"op":"turn","ctx":{"working_dir":"$ROOT"},"config":{"tools":{"mode":"parse_only"}},` +
		`"user":"u","model":[{"tool_calls":[{"id":"c1","name":"fcp_echo","args":{"result":"x"}},{"id":"c2","name":"fcp_echo","raw_args":"{"}]}]}`)
	s.until(isEvent(fcp.EventPending))
	s.send(`{"fcp":1,"seq":2,"op":"tool_result","turn":1,"id":"c2","content":"two","is_error":true}`)
	s.send(`{"fcp":1,"seq":3,"op":"tool_result","turn":1,"id":"c1","content":"one"}`)
	seen := s.until(isSeq(1))
	final := seen[len(seen)-1]
	var got []string
	for _, m := range final.History {
		if m.Type == fcp.MessageToolResult {
			got = append(got, m.ID+"="+*m.Content)
		}
	}
	if final.End != fcp.EndDone || strings.Join(got, ",") != "c1=one,c2=two" {
		t.Errorf("final %+v, results %v", final, got)
	}
}

// PROTOCOL.md §9.2: a turn the implementation cannot run gets one error
// response and no events.
func TestTurnBadRequest(t *testing.T) {
	s := newSession(t)
	s.send(`{"fcp":1,"seq":1,"op":"turn","ctx":{"working_dir":"relative"},"user":"u","model":[]}`)
	raw := s.next()
	if err := s.v.ValidateTurnOutput(raw); err != nil || !strings.Contains(string(raw), `"ok":false`) {
		t.Errorf("%s: %v", raw, err)
	}
}
