package executor_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/executor/truncate"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/tools/fcptest"
	"github.com/forge-conform/forge-conform/impl/tools/readfile"
	"github.com/forge-conform/forge-conform/impl/tools/runcommand"
	"github.com/forge-conform/forge-conform/impl/tools/writefile"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// fakeUI records events and plays the user.
type fakeUI struct {
	mu       sync.Mutex
	events   []fcp.TurnLine
	decision executor.Decision
	manual   map[string]executor.ManualResult
	// cancelOn cancels the turn when it returns true for an event.
	cancelOn func(fcp.TurnLine) bool
	cancel   context.CancelFunc
	// sawFile is checked on confirmation: the file must not exist yet.
	root string
}

func (u *fakeUI) Event(l fcp.TurnLine) error {
	u.mu.Lock()
	u.events = append(u.events, l)
	u.mu.Unlock()
	if u.cancelOn != nil && u.cancelOn(l) {
		u.cancel()
	}
	return nil
}

func (u *fakeUI) Confirm(ctx context.Context, _ []fcp.Confirmation) (executor.Decision, error) {
	if u.decision.Kind == "" { // wait for a cancel
		<-ctx.Done()
		return executor.Decision{}, ctx.Err()
	}
	return u.decision, nil
}

func (u *fakeUI) Manual(ctx context.Context, _ []fcp.PendingCall) (map[string]executor.ManualResult, error) {
	if u.manual == nil {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return u.manual, nil
}

// kinds lists the events as "event:id" (or "message:type:id").
func (u *fakeUI) kinds() []string {
	var out []string
	for _, e := range u.events {
		s := e.Event
		switch {
		case e.Message != nil:
			s += ":" + e.Message.Type
			if e.Message.ID != "" {
				s += ":" + e.Message.ID
			}
		case e.ID != "":
			s += ":" + e.ID
		}
		out = append(out, s)
	}
	return out
}

func newEngine(t *testing.T) *executor.Engine {
	t.Helper()
	tools := append([]tool.Tool{readfile.Tool{}, writefile.Tool{}, runcommand.Tool{}}, fcptest.Tools()...)
	reg, err := tool.NewRegistry(tools...)
	if err != nil {
		t.Fatal(err)
	}
	return &executor.Engine{Registry: reg}
}

func call(id, name, args string) fcp.ModelCall {
	return fcp.ModelCall{ID: id, Name: name, Args: json.RawMessage(args)}
}

func batch(calls ...fcp.ModelCall) fcp.ModelResponse {
	return fcp.ModelResponse{Text: "working", ToolCalls: calls}
}

var final = fcp.ModelResponse{Text: "done"}

const auto = `{"tools":{"mode":"enabled","approval":{"mode":"auto","denylist":[]}}}`

func run(t *testing.T, cfg string, ui *fakeUI, model ...fcp.ModelResponse) (executor.Outcome, *fakeUI) {
	t.Helper()
	if ui == nil {
		ui = &fakeUI{}
	}
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	ui.root = root
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("alpha\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ui.cancel = cancel
	out, err := newEngine(t).Run(ctx, executor.Turn{Ctx: &fcp.Ctx{WorkingDir: root},
		Config: json.RawMessage(cfg), User: "go", Model: model}, ui)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return out, ui
}

// results maps call id to the result messages of the history.
func results(o executor.Outcome) map[string][]fcp.Message {
	m := map[string][]fcp.Message{}
	for _, h := range o.History {
		if h.Type == fcp.MessageToolResult {
			m[h.ID] = append(m[h.ID], h)
		}
	}
	return m
}

func content(t *testing.T, o executor.Outcome, id string) (string, bool) {
	t.Helper()
	r := results(o)[id]
	if len(r) != 1 {
		t.Fatalf("call %s has %d results, want 1 (NFR-REL-01)", id, len(r))
	}
	return *r[0].Content, *r[0].IsError
}

func count(ui *fakeUI, kind string) int {
	n := 0
	for _, k := range ui.kinds() {
		if k == kind || strings.HasPrefix(k, kind+":") {
			n++
		}
	}
	return n
}

// IT-E2E-01, FR-RES-01, FR-RES-01a, FR-RES-02, FR-OUT-01: the whole loop.
func TestEndToEnd(t *testing.T) {
	o, ui := run(t, auto, nil,
		batch(call("c1", "read_file", `{"path":"a.txt"}`), call("c2", "fcp_echo", `{"result":"hi","chunks":[{"stream":"stdout","text":"out"}]}`)),
		final)
	want := []string{"message:user", "model_request", "message:assistant", "message:tool_use:c1", "message:tool_use:c2",
		"started:c1", "completed:c1", "message:tool_result:c1", "started:c2", "stdout:c2", "completed:c2",
		"message:tool_result:c2", "model_request", "message:assistant"}
	if got := ui.kinds(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("events:\n got %v\nwant %v", got, want)
	}
	if o.End != fcp.EndDone {
		t.Errorf("end %q", o.End)
	}
	if c, isErr := content(t, o, "c1"); isErr || !strings.Contains(c, "alpha") {
		t.Errorf("c1: %q %v", c, isErr)
	}
	resume := ui.events[12]
	if resume.Iteration == nil || *resume.Iteration != 1 || len(*resume.Messages) != 2 ||
		(*resume.Messages)[0].ID != "c1" || (*resume.Messages)[1].ID != "c2" {
		t.Errorf("resume: %+v", resume)
	}
}

// FR-MODE-01, T-MODE-01: nothing advertised, nothing runs, no resume.
func TestDisabledMode(t *testing.T) {
	o, ui := run(t, `{"tools":{"mode":"disabled"}}`, nil,
		batch(call("c1", "fcp_touch", `{"path":"x","content":"y"}`)), final)
	if n := len(*ui.events[1].Tools); n != 0 {
		t.Errorf("disabled mode advertised %d tools", n)
	}
	if count(ui, "started")+count(ui, "confirmation")+count(ui, "pending") != 0 {
		t.Errorf("events %v", ui.kinds())
	}
	if _, err := os.Stat(filepath.Join(ui.root, "x")); err == nil {
		t.Error("a tool ran in disabled mode")
	}
	if _, isErr := content(t, o, "c1"); !isErr || o.End != fcp.EndDone || count(ui, "model_request") != 1 {
		t.Errorf("end %q, events %v", o.End, ui.kinds())
	}
}

// FR-MODE-02, T-MODE-02, FR-TUI-04, CFG-TOOLS-02: parse-only surfaces, never runs.
func TestParseOnly(t *testing.T) {
	ui := &fakeUI{manual: map[string]executor.ManualResult{"c1": {Content: "manual \x1b[1mresult"}}}
	cfg := `{"tools":{"mode":"parse_only","definitions":[{"name":"fcp_touch","description":"d","parameters":{"type":"object"}}]}}`
	o, ui := run(t, cfg, ui, batch(call("c1", "fcp_touch", `{"path":"x","content":"y"}`)), final)
	if tools := *ui.events[1].Tools; len(tools) != 1 || tools[0].Name != "fcp_touch" || tools[0].Description != "d" {
		t.Errorf("advertised %+v", tools)
	}
	if count(ui, "pending") != 1 || count(ui, "started") != 0 {
		t.Errorf("events %v", ui.kinds())
	}
	if _, err := os.Stat(filepath.Join(ui.root, "x")); err == nil {
		t.Error("a tool ran in parse-only mode")
	}
	if c, isErr := content(t, o, "c1"); c != "manual result" || isErr {
		t.Errorf("c1: %q", c)
	}
}

// CFG-TOOLS-02a, FR-REG-03a: enabled mode advertises the registry, sorted.
func TestEnabledAdvertisesRegistry(t *testing.T) {
	_, ui := run(t, `{"tools":{"mode":"enabled","definitions":[{"name":"manual","description":"d","parameters":{}}]}}`, nil, final)
	tools := *ui.events[1].Tools
	if len(tools) != 9 || tools[0].Name != "fcp_echo" || tools[8].Name != "write_file" {
		t.Errorf("advertised %d tools: %v", len(tools), tools)
	}
}

func TestPlanner(t *testing.T) {
	big := `{"result":"` + strings.Repeat("x", 300) + `"}`
	raw := `{"path":`
	tests := []struct {
		id     string
		cfg    string
		calls  []fcp.ModelCall
		ran    []string
		errors map[string]string // id -> substring of the error result
	}{
		{"T-LIM-01", `{"tools":{"mode":"enabled","max_tool_calls_per_batch":2,"approval":{"mode":"auto"}}}`,
			[]fcp.ModelCall{call("c1", "fcp_echo", `{"result":"1"}`), call("c2", "fcp_echo", `{"result":"2"}`), call("c3", "fcp_echo", `{"result":"3"}`)},
			[]string{"c1", "c2"}, map[string]string{"c3": "max tool calls per batch"}},
		{"FR-VAL-02a", auto,
			[]fcp.ModelCall{call("c1", "fcp_echo", `{"result":"1"}`), call("c1", "fcp_echo", `{"result":"2"}`)},
			[]string{"c1"}, nil},
		{"T-VAL-01", `{"tools":{"mode":"enabled"}}`,
			[]fcp.ModelCall{call("c1", "nope", `{}`)}, nil, map[string]string{"c1": "Unknown tool: nope"}},
		{"T-VAL-02", `{"tools":{"mode":"enabled","approval":{"mode":"prompt"}}}`,
			[]fcp.ModelCall{call("c1", "fcp_touch", `{"path":1}`), {ID: "c2", Name: "read_file", RawArgs: &raw}},
			nil, map[string]string{"c1": "Bad args", "c2": "Bad args"}},
		{"FR-LIM-03", `{"tools":{"mode":"enabled","max_tool_args_bytes":100,"approval":{"mode":"auto"}}}`,
			[]fcp.ModelCall{call("c1", "fcp_echo", big), call("c2", "fcp_echo", `{"result":"ok"}`)},
			[]string{"c2"}, map[string]string{"c1": "too large"}},
		{"FR-APR-04a", `{"tools":{"mode":"enabled","approval":{"enabled":false}}}`,
			[]fcp.ModelCall{call("c1", "read_file", `{"path":"a.txt"}`)}, nil, map[string]string{"c1": "Tool execution disabled by policy"}},
		{"FR-APR-04b", `{"tools":{"mode":"enabled","approval":{"mode":"auto","denylist":["fcp_echo"]}}}`,
			[]fcp.ModelCall{call("c1", "fcp_echo", `{"result":"1"}`)}, nil, map[string]string{"c1": "denylisted"}},
		{"FR-APR-04c", `{"tools":{"mode":"enabled","approval":{"mode":"deny","allowlist":["read_file"]}}}`,
			[]fcp.ModelCall{call("c1", "fcp_echo", `{"result":"1"}`), call("c2", "read_file", `{"path":"a.txt"}`)},
			[]string{"c2"}, map[string]string{"c1": "fcp_echo"}},
		{"FR-APR-05 sandbox before prompt", `{"tools":{"mode":"enabled","approval":{"mode":"prompt"}}}`,
			[]fcp.ModelCall{call("c1", "fcp_touch", `{"path":"../x","content":""}`)}, nil, map[string]string{"c1": "Sandbox"}},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			o, ui := run(t, tc.cfg, nil, batch(tc.calls...), final)
			if count(ui, "confirmation") != 0 {
				t.Errorf("prompted: %v", ui.kinds())
			}
			var ran []string
			for _, e := range ui.events {
				if e.Event == fcp.EventStarted {
					ran = append(ran, e.ID)
				}
			}
			if strings.Join(ran, ",") != strings.Join(tc.ran, ",") {
				t.Errorf("ran %v, want %v", ran, tc.ran)
			}
			for id, want := range tc.errors {
				c, isErr := content(t, o, id)
				if !isErr || !strings.Contains(strings.ToLower(c), strings.ToLower(want)) {
					t.Errorf("%s: %q (error %v), want an error containing %q", id, c, isErr, want)
				}
			}
			if o.End != fcp.EndDone {
				t.Errorf("end %q: the loop must go on (FR-LIM-06)", o.End)
			}
		})
	}
}

// T-APR-01, T-APR-02, FR-APR-06: one confirmation before anything runs;
// only the selected call runs.
func TestApproval(t *testing.T) {
	long := strings.Repeat("s", 300)
	ui := &fakeUI{decision: executor.Decision{Kind: fcp.DecisionApproveSelected, IDs: []string{"c3"}}}
	cfg := `{"tools":{"mode":"enabled","approval":{"mode":"prompt","prompt_side_effects":true}}}`
	o, ui := run(t, cfg, ui, batch(
		call("c1", "read_file", `{"path":"a.txt"}`),
		call("c2", "fcp_touch", `{"path":"x","content":"y","summary":"`+long+`"}`),
		call("c3", "fcp_guarded", `{"result":"g"}`)), final)
	k := ui.kinds()
	conf := strings.Index(strings.Join(k, " "), "confirmation")
	start := strings.Index(strings.Join(k, " "), "started")
	if conf < 0 || start < conf {
		t.Fatalf("confirmation must precede every start: %v", k)
	}
	var reqs []fcp.Confirmation
	for _, e := range ui.events {
		if e.Event == fcp.EventConfirmation {
			reqs = e.Requests
		}
	}
	if len(reqs) != 2 || reqs[0].ID != "c2" || reqs[0].RiskLevel != "Medium" || reqs[1].ID != "c3" {
		t.Fatalf("requests %+v", reqs)
	}
	if s := []rune(reqs[0].Summary); len(s) != 200 || s[199] != '…' {
		t.Errorf("summary of %d characters: %q", len(s), reqs[0].Summary)
	}
	if _, err := os.Stat(filepath.Join(ui.root, "x")); err == nil {
		t.Error("denied call c2 ran")
	}
	if _, isErr := content(t, o, "c2"); !isErr {
		t.Error("c2 must be an error")
	}
	if c, isErr := content(t, o, "c3"); isErr || c != "g" {
		t.Errorf("c3 %q", c)
	}
	if c, _ := content(t, o, "c1"); !strings.Contains(c, "alpha") {
		t.Errorf("c1 %q", c)
	}
}

func TestExecution(t *testing.T) {
	jsonMsg := `{"code":"E1","detail":"x"}`
	tests := []struct {
		id    string
		cfg   string
		call  fcp.ModelCall
		want  string
		isErr bool
		kind  string
	}{
		{"FR-ERR-JSON-TOOL-01 passthrough", auto, call("c1", "fcp_fail", `{"message":`+jsonQuote(jsonMsg)+`}`), jsonMsg, true, "ExecutionFailed"},
		{"FR-ERR-JSON-TOOL-01 prefix", auto, call("c1", "fcp_fail", `{"message":"[1,2]"}`), "fcp_fail failed: [1,2]", true, "ExecutionFailed"},
		{"FR-EXE-04b panic", auto, call("c1", "fcp_panic", `{"message":"boom\u001b[2J!"}`), "Tool panicked: boom!", true, "ExecutionFailed"},
		{"T-TMO-01 own timeout", auto, call("c1", "fcp_sleep", `{"ms":5000,"timeout_ms":50}`), "Tool 'fcp_sleep' timed out after 0.05s", true, "Timeout"},
		{"FR-EXE-03 context default", `{"tools":{"mode":"enabled","approval":{"mode":"auto"},"timeouts":{"default_seconds":0.05}}}`,
			call("c1", "fcp_sleep", `{"ms":5000}`), "Tool 'fcp_sleep' timed out after 0.05s", true, "Timeout"},
		{"FR-EXE-03 abort ignored", auto, call("c1", "fcp_sleep", `{"ms":1000,"timeout_ms":20,"honor_abort":false}`), "Tool 'fcp_sleep' timed out after 0.02s", true, "Timeout"},
		{"FR-OUT-02 result", auto, call("c1", "fcp_echo", `{"result":"a\u001b]0;t\u0007b\u0085c\u0000d"}`), "abcd", false, ""},
		{"FR-OUT-04 success", `{"tools":{"mode":"enabled","approval":{"mode":"auto"},"output":{"max_bytes":40}}}`,
			call("c1", "fcp_echo", `{"result":"x","repeat":100}`), strings.Repeat("x", 40-len(truncate.Marker)) + truncate.Marker, false, ""},
		{"FR-OUT-04 error", `{"tools":{"mode":"enabled","approval":{"mode":"auto"},"output":{"max_bytes":60}}}`,
			call("c1", "fcp_fail", `{"message":"`+strings.Repeat("e", 100)+`"}`), "fcp_fail failed: " + strings.Repeat("e", 60-len(truncate.Marker)-17) + truncate.Marker, true, "ExecutionFailed"},
		{"FR-OUT-04 pre-resolved error", `{"tools":{"mode":"enabled","approval":{"mode":"auto"},"output":{"max_bytes":60}}}`,
			call("c1", strings.Repeat("n", 50), `{}`), "Unknown tool: " + strings.Repeat("n", 22) + truncate.Marker, true, "UnknownTool"},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			start := time.Now()
			o, _ := run(t, tc.cfg, nil, batch(tc.call, call("after", "fcp_echo", `{"result":"next"}`)), final)
			if time.Since(start) > 2*time.Second {
				t.Errorf("took %v", time.Since(start))
			}
			c, isErr := content(t, o, "c1")
			if c != tc.want || isErr != tc.isErr {
				t.Errorf("result %q (error %v), want %q (error %v)", c, isErr, tc.want, tc.isErr)
			}
			if r := results(o)["c1"][0]; tc.kind != "" && (r.Error == nil || r.Error.Kind != tc.kind) {
				t.Errorf("error %+v, want kind %s", r.Error, tc.kind)
			}
			// FR-EXE-02: the next call runs.
			if c, _ := content(t, o, "after"); c != "next" {
				t.Errorf("after: %q", c)
			}
		})
	}
}

func jsonQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// T-CAN-01, FR-EXE-04: cancel during c2 cancels c2 and c3; no resume.
func TestCancel(t *testing.T) {
	for _, honor := range []string{"true", "false"} {
		t.Run("honor_abort="+honor, func(t *testing.T) {
			ui := &fakeUI{cancelOn: func(l fcp.TurnLine) bool { return l.Event == fcp.EventStdout && l.ID == "c2" }}
			start := time.Now()
			o, ui := run(t, auto, ui, batch(call("c1", "fcp_echo", `{"result":"one"}`),
				call("c2", "fcp_sleep", `{"ms":10000,"honor_abort":`+honor+`}`),
				call("c3", "fcp_echo", `{"result":"three"}`)), final)
			if time.Since(start) > 2*time.Second {
				t.Errorf("cancel took %v", time.Since(start))
			}
			if o.End != fcp.EndCancelled || count(ui, "model_request") != 1 {
				t.Errorf("end %q, events %v", o.End, ui.kinds())
			}
			if c, _ := content(t, o, "c1"); c != "one" {
				t.Errorf("c1 %q", c)
			}
			for _, id := range []string{"c2", "c3"} {
				if c, isErr := content(t, o, id); c != "Cancelled by user" || !isErr {
					t.Errorf("%s: %q", id, c)
				}
			}
			if count(ui, "started:c3") != 0 {
				t.Error("c3 started after cancel")
			}
		})
	}
}

// FR-EXE-04 while a confirmation waits.
func TestCancelDuringConfirmation(t *testing.T) {
	ui := &fakeUI{cancelOn: func(l fcp.TurnLine) bool { return l.Event == fcp.EventConfirmation }}
	o, _ := run(t, `{"tools":{"mode":"enabled","approval":{"mode":"prompt"}}}`, ui,
		batch(call("c1", "fcp_guarded", `{"result":"g"}`)), final)
	if c, _ := content(t, o, "c1"); c != "Cancelled by user" || o.End != fcp.EndCancelled {
		t.Errorf("c1 %q end %q", c, o.End)
	}
}

// FR-RES-03: batches beyond the limit are pre-resolved and resumed.
func TestMaxIterations(t *testing.T) {
	cfg := `{"tools":{"mode":"enabled","max_tool_iterations_per_user_turn":1,"approval":{"mode":"auto"}}}`
	o, ui := run(t, cfg, nil, batch(call("c1", "fcp_echo", `{"result":"1"}`)),
		batch(call("c2", "fcp_echo", `{"result":"2"}`)), final)
	if c, _ := content(t, o, "c2"); c != "Max tool iterations reached" {
		t.Errorf("c2 %q", c)
	}
	if count(ui, "started:c2") != 0 || o.End != fcp.EndDone || count(ui, "model_request") != 3 {
		t.Errorf("end %q events %v", o.End, ui.kinds())
	}
}

// The script ends while the engine wants to resume.
func TestScriptEnded(t *testing.T) {
	o, _ := run(t, auto, nil, batch(call("c1", "fcp_echo", `{"result":"1"}`)))
	if o.End != fcp.EndScriptEnded {
		t.Errorf("end %q", o.End)
	}
}

// FR-OUT-01, FR-OUT-02: many chunks, none lost, all sanitized.
func TestStreaming(t *testing.T) {
	var chunks []string
	var want strings.Builder
	for i := 0; i < 500; i++ {
		chunks = append(chunks, `{"stream":"stdout","text":"line \u001b[3`+string(rune('0'+i%8))+`m`+strings.Repeat("z", i%50)+`\n"}`)
		want.WriteString("line " + strings.Repeat("z", i%50) + "\n")
	}
	_, ui := run(t, auto, nil, batch(call("c1", "fcp_echo", `{"result":"","chunks":[`+strings.Join(chunks, ",")+`]}`)), final)
	var got strings.Builder
	for _, e := range ui.events {
		if e.Event == fcp.EventStdout {
			got.WriteString(e.Chunk)
		}
	}
	if got.String() != want.String() {
		t.Errorf("streamed %d bytes, want %d", got.Len(), want.Len())
	}
}

func TestBadTurn(t *testing.T) {
	e := newEngine(t)
	for _, tc := range []executor.Turn{
		{Ctx: &fcp.Ctx{WorkingDir: "rel"}},
		{Ctx: &fcp.Ctx{WorkingDir: "/"}, Config: json.RawMessage(`{"tools":{"mode":"sometimes"}}`)},
	} {
		ui := &fakeUI{}
		if _, err := e.Run(context.Background(), tc, ui); err == nil || len(ui.events) != 0 {
			t.Errorf("%+v: err %v, %d events", tc, err, len(ui.events))
		}
	}
}

// FR-TOOL-CMD-01, NFR-SEC-06, FR-APR-04b: run_command is denylisted by default.
func TestRunCommandDenylistedByDefault(t *testing.T) {
	o, ui := run(t, `{"tools":{"mode":"enabled","approval":{"mode":"auto"}}}`, nil,
		batch(call("c1", "run_command", `{"command":"touch x"}`)), final)
	if c, isErr := content(t, o, "c1"); !isErr || !strings.Contains(c, "denylisted") {
		t.Errorf("c1 %q", c)
	}
	if _, err := os.Stat(filepath.Join(ui.root, "x")); err == nil {
		t.Error("run_command ran")
	}
}

// IT-CMD-01, FR-APR-04e, FR-APR-06: opted in, run_command still asks (High),
// streams its output and persists its result.
func TestRunCommandThroughTheLoop(t *testing.T) {
	ui := &fakeUI{decision: executor.Decision{Kind: fcp.DecisionApproveAll}}
	o, ui := run(t, `{"tools":{"mode":"enabled","approval":{"mode":"auto","denylist":[]}}}`, ui,
		batch(call("c1", "run_command", `{"command":"printf '\\033[31mred\\033[0m\\n'; exit 0"}`)), final)
	var reqs []fcp.Confirmation
	var chunks string
	for _, e := range ui.events {
		if e.Event == fcp.EventConfirmation {
			reqs = e.Requests
		}
		if e.Event == fcp.EventStdout {
			chunks += e.Chunk
		}
	}
	if len(reqs) != 1 || reqs[0].RiskLevel != "High" || !strings.HasPrefix(reqs[0].Summary, "Run command: printf") {
		t.Fatalf("requests %+v", reqs)
	}
	if chunks != "red\n" {
		t.Errorf("chunks %q", chunks)
	}
	if c, isErr := content(t, o, "c1"); c != "red\n" || isErr {
		t.Errorf("c1 %q", c)
	}
}
