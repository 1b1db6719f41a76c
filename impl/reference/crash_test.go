package reference_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/forge-conform/forge-conform/impl/journal"
	"github.com/forge-conform/forge-conform/spec/fcp"
	"github.com/forge-conform/forge-conform/spec/fcp/fcpschema"
)

// These tests crash the reference for real (PROTOCOL.md §10): they build
// the forge-conform binary, serve the reference as a separate process in
// its own process group, SIGKILL it (or ask it to kill itself at a crash
// point), and recover the journal in a fresh process. Side effects are
// counted in files: a command appends one line per run, so a file with two
// lines is a tool that ran twice.

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// TestMain removes the binary refBinary built.
func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		_ = os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

func refBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the forge-conform binary; skipped with -short")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "fc-crash-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "forge-conform")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/forge-conform/forge-conform/cmd/forge-conform").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// proc is one reference process driven as the runner drives it.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan []byte
	stderr bytes.Buffer
	v      *fcpschema.Validator
	vars   map[string]string
}

func start(t *testing.T, vars map[string]string) *proc {
	t.Helper()
	v, err := fcpschema.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{t: t, v: v, vars: vars, lines: make(chan []byte, 1024)}
	p.cmd = exec.Command(refBinary(t), "ref")
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p.cmd.Stderr = &p.stderr
	if p.in, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			p.lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(p.lines)
	}()
	t.Cleanup(func() { _ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL); _ = p.cmd.Wait() })
	p.send(`{"fcp":1,"seq":0,"op":"hello","test_tools":true}`)
	p.next()
	return p
}

func (p *proc) send(line string) {
	p.t.Helper()
	for k, v := range p.vars {
		line = strings.ReplaceAll(line, k, v)
	}
	if err := p.v.ValidateRequest([]byte(line)); err != nil {
		p.t.Fatalf("the test sends an invalid request: %v\n%s", err, line)
	}
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

func (p *proc) next() []byte {
	p.t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			p.t.Fatalf("stdout closed; stderr:\n%s", p.stderr.String())
		}
		return l
	case <-time.After(20 * time.Second):
		p.t.Fatal("no line within 20s")
	}
	return nil
}

// until reads turn lines, schema-checked, until pred holds.
func (p *proc) until(pred func(fcp.TurnLine) bool) []fcp.TurnLine {
	p.t.Helper()
	var seen []fcp.TurnLine
	for {
		raw := p.next()
		var l fcp.TurnLine
		if err := json.Unmarshal(raw, &l); err != nil {
			p.t.Fatal(err)
		}
		if l.Event != "" || l.End != "" {
			if err := p.v.ValidateTurnOutput(raw); err != nil {
				p.t.Fatalf("%v\n%s", err, raw)
			}
		}
		seen = append(seen, l)
		if pred(l) {
			return seen
		}
	}
}

func event(ev string) func(fcp.TurnLine) bool {
	return func(l fcp.TurnLine) bool { return l.Event == ev }
}

func final(seq int64) func(fcp.TurnLine) bool {
	return func(l fcp.TurnLine) bool { return l.Seq == seq && l.Event == "" && l.OK != nil }
}

// crashed waits for the process to die by SIGKILL, by its own hand.
func (p *proc) crashed() {
	p.t.Helper()
	err := p.cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		p.t.Fatalf("the reference did not crash with SIGKILL: %v; stderr:\n%s", err, p.stderr.String())
	}
	for range p.lines { // drain what it wrote before the crash
	}
}

// kill is the runner's crash: SIGKILL to the whole process group.
func (p *proc) kill() {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	_ = p.cmd.Wait()
	for range p.lines {
	}
}

// fixture is one case's tree and journal directory.
type fixture struct {
	root, journal string
	vars          map[string]string
}

func newFixture(t *testing.T) fixture {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	jdir := filepath.Join(t.TempDir(), "journal")
	return fixture{root: root, journal: jdir, vars: map[string]string{"$ROOT": root, "$JOURNAL": jdir}}
}

// runs counts the lines of the side-effect file name: how often the
// commands that append to it ran.
func (f fixture) runs(t *testing.T, name string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.root, name))
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

const cfg = `"config":{"tools":{"mode":"enabled","approval":{"mode":"auto","denylist":[]},"timeouts":{"shell_commands_seconds":60}}}`

// appendCall is a run_command call that appends one line to file.
func appendCall(id, file string) string {
	return fmt.Sprintf(`{"id":%q,"name":"run_command","args":{"command":"echo run >> %s"}}`, id, file)
}

func turn(seq int, model string, crash string) string {
	c := ""
	if crash != "" {
		c = `,"crash":` + crash
	}
	return fmt.Sprintf(`{"fcp":1,"seq":%d,"op":"turn","ctx":{"working_dir":"$ROOT","journal_dir":"$JOURNAL"},%s,"user":"go","model":%s%s}`,
		seq, cfg, model, c)
}

func recoverReq(seq int, model string, crash string) string {
	c := ""
	if crash != "" {
		c = `,"crash":` + crash
	}
	return fmt.Sprintf(`{"fcp":1,"seq":%d,"op":"recover","ctx":{"working_dir":"$ROOT","journal_dir":"$JOURNAL"},%s,"model":%s%s}`,
		seq, cfg, model, c)
}

func approve(p *proc, turnSeq int) {
	p.until(event(fcp.EventConfirmation))
	p.send(fmt.Sprintf(`{"fcp":1,"seq":%d,"op":"decide","turn":%d,"decision":"approve_all"}`, turnSeq+1, turnSeq))
}

func recovered(t *testing.T, lines []fcp.TurnLine) fcp.TurnLine {
	t.Helper()
	for _, l := range lines {
		if l.Event == fcp.EventRecovered {
			return l
		}
	}
	t.Fatal("no recovered event")
	return fcp.TurnLine{}
}

func str(s string) *string { return &s }
func bl(b bool) *bool      { return &b }

func res(id, content string, isErr bool) fcp.Message {
	return fcp.Message{Type: fcp.MessageToolResult, ID: id, Content: str(content), IsError: bl(isErr)}
}

func use(id, file string) fcp.Message {
	return fcp.Message{Type: fcp.MessageToolUse, ID: id, Name: "run_command",
		Args: json.RawMessage(fmt.Sprintf(`{"command":"echo run >> %s"}`, file))}
}

func pcall(id, file string) fcp.PendingCall {
	return fcp.PendingCall{ID: id, Name: "run_command", Args: json.RawMessage(fmt.Sprintf(`{"command":"echo run >> %s"}`, file))}
}

var (
	userMsg = fcp.Message{Type: fcp.MessageUser, Text: "go"}
	runText = fcp.Message{Type: fcp.MessageAssistant, Text: "Run."}
	doneMsg = fcp.Message{Type: fcp.MessageAssistant, Text: "Done."}
)

const twoAppends = `[{"text":"Run.","tool_calls":[` + `{"id":"c1","name":"run_command","args":{"command":"echo run >> a"}},` +
	`{"id":"c2","name":"run_command","args":{"command":"echo run >> b"}}]},{"text":"Done."}]`

// cmpJSON compares as JSON, so that raw args compare by value.
func cmpJSON(t *testing.T, what string, want, got any) {
	t.Helper()
	w, _ := json.Marshal(want)
	g, _ := json.Marshal(got)
	var wv, gv any
	json.Unmarshal(w, &wv)
	json.Unmarshal(g, &gv)
	if diff := cmp.Diff(wv, gv); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

// IT-JRN-01: a crash after the calls are received, before the batch is
// persisted: the batch is recovered, nothing ran, nothing runs.
func TestCrashBeforeBatchPersisted(t *testing.T) {
	f := newFixture(t)
	p := start(t, f.vars)
	p.send(turn(1, twoAppends, `{"point":"calls_received"}`))
	p.crashed()
	if f.runs(t, "a")+f.runs(t, "b") != 0 {
		t.Fatal("a command ran before the crash")
	}

	q := start(t, f.vars)
	q.send(recoverReq(1, `[{"text":"Done."}]`, ""))
	ev := recovered(t, q.until(event(fcp.EventRecovered)))
	cmpJSON(t, "recovered batch", &fcp.RecoveredBatch{Text: "Run.", Calls: []fcp.PendingCall{pcall("c1", "a"), pcall("c2", "b")},
		Results: []fcp.Message{}}, ev.Batch)
	if ev.Prompt == nil || !*ev.Prompt || !cmp.Equal(ev.Choices, []string{fcp.DecisionResume, fcp.DecisionDiscard}) {
		t.Errorf("prompt %v choices %v, want a prompt with resume and discard (FR-RES-05)", ev.Prompt, ev.Choices)
	}
	q.send(`{"fcp":1,"seq":2,"op":"decide","turn":1,"decision":"resume"}`)
	lines := q.until(final(1))
	end := lines[len(lines)-1]
	want := []fcp.Message{userMsg, runText, use("c1", "a"), use("c2", "b"),
		res("c1", journal.InterruptedText, true), res("c2", journal.InterruptedText, true), doneMsg}
	cmpJSON(t, "history", want, end.History)
	if end.End != fcp.EndDone {
		t.Errorf("end %q, want done", end.End)
	}
	if n := f.runs(t, "a") + f.runs(t, "b"); n != 0 {
		t.Errorf("recovery ran %d commands (FR-RES-04c: no auto-retry)", n)
	}
}

// FR-RES-04b, FR-RES-05 2: a crash right after the first result is
// journaled; discard marks every result failed, the calls stay.
func TestCrashAfterResultDiscard(t *testing.T) {
	f := newFixture(t)
	p := start(t, f.vars)
	p.send(turn(1, twoAppends, `{"point":"result_journaled","id":"c1"}`))
	approve(p, 1)
	p.crashed()
	if a, b := f.runs(t, "a"), f.runs(t, "b"); a != 1 || b != 0 {
		t.Fatalf("before recovery a ran %d times, b %d; want 1, 0", a, b)
	}
	q := start(t, f.vars)
	q.send(recoverReq(1, `[{"text":"Done."}]`, ""))
	ev := recovered(t, q.until(event(fcp.EventRecovered)))
	if ev.Batch == nil || len(ev.Batch.Results) != 1 || ev.Batch.Results[0].ID != "c1" || *ev.Batch.Results[0].IsError {
		t.Fatalf("recovered batch %+v, want c1's successful result", ev.Batch)
	}
	q.send(`{"fcp":1,"seq":2,"op":"decide","turn":1,"decision":"discard"}`)
	lines := q.until(final(1))
	want := []fcp.Message{userMsg, runText, use("c1", "a"), use("c2", "b"),
		res("c1", journal.DiscardedText, true), res("c2", journal.DiscardedText, true), doneMsg}
	cmpJSON(t, "history", want, lines[len(lines)-1].History)
	if a, b := f.runs(t, "a"), f.runs(t, "b"); a != 1 || b != 0 {
		t.Errorf("after recovery a ran %d times, b %d; want 1, 0", a, b)
	}
}

// IT-JRN-02: the runner kills the process group while a long command runs;
// the command's tree is gone afterwards; recovery prompts and does not
// re-run it.
func TestCrashDuringCommand(t *testing.T) {
	f := newFixture(t)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Skipf("cannot become a child subreaper: %v", err)
	}
	defer unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
	p := start(t, f.vars)
	model := `[{"tool_calls":[{"id":"c1","name":"run_command","args":{"command":"echo $$ > pid; echo run >> a; echo started; sleep 60; echo run >> a"}}]},{"text":"Done."}]`
	p.send(turn(1, model, ""))
	approve(p, 1)
	p.until(func(l fcp.TurnLine) bool { return l.Event == fcp.EventStdout && strings.Contains(l.Chunk, "started") })
	p.kill()
	pidText, err := os.ReadFile(filepath.Join(f.root, "pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(pidText)))
	// The command ran in a session of its own, so the group kill missed
	// it: as the runner must, reap what was re-parented to us.
	killOrphans(t, p.cmd.Process.Pid)
	if err := syscall.Kill(pid, 0); err == nil {
		t.Fatalf("the command's shell (pid %d) outlived the crash", pid)
	}

	q := start(t, f.vars)
	q.send(recoverReq(1, `[{"text":"Done."}]`, ""))
	ev := recovered(t, q.until(event(fcp.EventRecovered)))
	if ev.Prompt == nil || !*ev.Prompt || ev.Batch == nil || len(ev.Batch.Results) != 0 || len(ev.Batch.Calls) != 1 {
		t.Fatalf("recovered %+v, want c1 without a result and a prompt (IT-JRN-02)", ev)
	}
	q.send(`{"fcp":1,"seq":2,"op":"decide","turn":1,"decision":"resume"}`)
	lines := q.until(final(1))
	h := lines[len(lines)-1].History
	if len(h) != 4 || h[2].Type != fcp.MessageToolResult || !*h[2].IsError || *h[2].Content != journal.InterruptedText {
		t.Errorf("history %+v, want user, tool use, the interrupted result, Done.", h)
	}
	time.Sleep(100 * time.Millisecond)
	if n := f.runs(t, "a"); n != 1 {
		t.Errorf("the command's side effect happened %d times, want 1", n)
	}
}

// killOrphans kills the processes re-parented to this (subreaper) process
// other than its known children, and reaps them.
func killOrphans(t *testing.T, except int) {
	t.Helper()
	self := os.Getpid()
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == except {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) < 2 {
			continue
		}
		if ppid, _ := strconv.Atoi(fields[1]); ppid != self {
			continue
		}
		if strings.Contains(string(stat), "(go)") || strings.Contains(string(stat), "(forge-conform)") {
			continue // our own children: the go tool, live references
		}
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = syscall.Kill(pid, syscall.SIGKILL)
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, 0, nil)
	}
}

// Two crashes in a row, one of them during the resume: a crash right after
// the recovery choice is journaled, then a crash inside the resumed turn;
// every tool ran exactly once.
func TestTwoCrashesInARow(t *testing.T) {
	f := newFixture(t)
	p := start(t, f.vars)
	p.send(turn(1, twoAppends, `{"point":"result_journaled","id":"c1"}`))
	approve(p, 1)
	p.crashed()

	// Recovery 1 crashes right after the choice is journaled.
	q := start(t, f.vars)
	q.send(recoverReq(1, `[]`, `{"point":"resolved"}`))
	q.until(event(fcp.EventRecovered))
	q.send(`{"fcp":1,"seq":2,"op":"decide","turn":1,"decision":"resume"}`)
	q.crashed()

	// Recovery 2: the batch is complete, no prompt; the resumed turn runs
	// c3 and crashes after its result.
	r := start(t, f.vars)
	r.send(recoverReq(1, `[{"tool_calls":[`+appendCall("c3", "c")+`]},{"text":"Done."}]`, `{"point":"result_journaled","id":"c3"}`))
	ev := recovered(t, r.until(event(fcp.EventRecovered)))
	if ev.Prompt == nil || *ev.Prompt {
		t.Errorf("a resolved batch prompts again: %+v", ev)
	}
	approve(r, 1)
	r.crashed()

	// Recovery 3: batch 2 is complete; the turn ends.
	s := start(t, f.vars)
	s.send(recoverReq(1, `[{"text":"Done."}]`, ""))
	lines := s.until(final(1))
	ev = recovered(t, lines)
	if ev.Prompt == nil || *ev.Prompt || ev.Batch == nil || len(ev.Batch.Calls) != 1 || ev.Batch.Calls[0].ID != "c3" {
		t.Errorf("recovered %+v, want batch 2 (c3) complete, no prompt", ev)
	}
	end := lines[len(lines)-1]
	okRes := func(id string) fcp.Message { return res(id, "", false) }
	want := []fcp.Message{userMsg, runText, use("c1", "a"), use("c2", "b"), okRes("c1"),
		res("c2", journal.InterruptedText, true), use("c3", "c"), okRes("c3"), doneMsg}
	cmpJSON(t, "history", want, end.History)
	for file, n := range map[string]int{"a": 1, "b": 0, "c": 1} {
		if got := f.runs(t, file); got != n {
			t.Errorf("%s ran %d times, want %d", file, got, n)
		}
	}
	// And then the journal is clean.
	u := start(t, f.vars)
	u.send(recoverReq(1, `[]`, ""))
	lines = u.until(final(1))
	if end := lines[len(lines)-1]; end.End != fcp.EndNothing || len(end.History) != 0 {
		t.Errorf("recover of a clean journal = %+v, want end nothing and no history", end)
	}
}

// A journal another process holds is refused with a clear error.
func TestJournalLocked(t *testing.T) {
	f := newFixture(t)
	p := start(t, f.vars)
	p.send(turn(1, twoAppends, ""))
	p.until(event(fcp.EventConfirmation)) // p holds the journal
	q := start(t, f.vars)
	q.send(recoverReq(1, `[]`, ""))
	lines := q.until(final(1))
	end := lines[len(lines)-1]
	if *end.OK || end.Error == nil || !strings.Contains(end.Error.Message, "locked") {
		t.Errorf("recover of a held journal = %+v, want an error saying it is locked", end)
	}
}

// FR-RES-04b, FR-OUT-03: each result is journaled before the next call
// starts; chunks never reach the journal; a finished turn leaves a clean
// journal.
func TestJournalOrderAndChunks(t *testing.T) {
	f := newFixture(t)
	p := start(t, f.vars)
	model := `[{"tool_calls":[{"id":"e1","name":"fcp_echo","args":{"result":"r1","chunks":[{"stream":"stdout","text":"CHUNK-\u0053ECRET-1"}]}},` +
		`{"id":"e2","name":"fcp_echo","args":{"result":"r2","chunks":[{"stream":"stderr","text":"CHUNK-\u0053ECRET-2"}]}}]},{"text":"Done."}]`
	p.send(turn(1, model, ""))
	lines := p.until(final(1))
	var order []string
	chunks := ""
	for _, l := range lines {
		chunks += l.Chunk
		switch l.Event {
		case fcp.EventJournaled:
			order = append(order, "journaled:"+l.ID+strings.Join(l.IDs, ","))
		case fcp.EventStarted:
			order = append(order, "started:"+l.ID)
		}
	}
	// The chunks' texts are escaped in the arguments (\u0053 is S), so
	// only a chunk can put CHUNK-SECRET in the journal.
	want := []string{"journaled:e1,e2", "started:e1", "journaled:e1", "started:e2", "journaled:e2"}
	if !cmp.Equal(order, want) {
		t.Errorf("journaled/started order %v, want %v", order, want)
	}
	if chunks != "CHUNK-SECRET-1CHUNK-SECRET-2" {
		t.Fatalf("chunks %q, want both CHUNK-SECRET chunks", chunks)
	}
	p.send(`{"fcp":1,"seq":2,"op":"bye"}`)
	p.next()
	_ = p.cmd.Wait()
	entries, _ := os.ReadDir(f.journal)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(f.journal, e.Name()))
		if bytes.Contains(b, []byte("CHUNK-SECRET")) {
			t.Errorf("journal file %s holds a streamed chunk (FR-OUT-03)", e.Name())
		}
	}
	q := start(t, f.vars)
	q.send(recoverReq(1, `[]`, ""))
	lines = q.until(final(1))
	if end := lines[len(lines)-1]; end.End != fcp.EndNothing {
		t.Errorf("recover after a finished turn = %+v, want nothing", end)
	}
}
