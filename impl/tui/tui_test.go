package tui_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forge-conform/forge-conform/conformance/check"
	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/impl/tui"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// epoch is the fixed clock of the golden renders.
var epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// shotUI is executor.UI over a tui.State: it applies every event, takes
// screens when shot says so, and plays the user.
type shotUI struct {
	mu       sync.Mutex
	st       *tui.State
	w, h     int
	shot     func(fcp.TurnLine) string // a name: take a screen after this event
	shots    map[string]fcp.Screen
	order    []string
	decision executor.Decision
	manual   map[string]executor.ManualResult
}

func (u *shotUI) take(name string) {
	sc := tui.Render(u.st, tui.View{Width: u.w, Height: u.h, Now: epoch.Add(1500 * time.Millisecond), Frame: 3})
	u.shots[name] = sc
	u.order = append(u.order, name)
}

func (u *shotUI) Event(l fcp.TurnLine) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.st.Apply(l, epoch)
	if u.shot != nil {
		if name := u.shot(l); name != "" {
			u.take(name)
		}
	}
	return nil
}

func (u *shotUI) Confirm(ctx context.Context, _ []fcp.Confirmation) (executor.Decision, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.take("confirmation")
	u.st.UserRequest(fcp.TurnRequest{Op: fcp.OpDecide, Decision: u.decision.Kind, IDs: u.decision.IDs})
	return u.decision, nil
}

func (u *shotUI) Manual(ctx context.Context, calls []fcp.PendingCall) (map[string]executor.ManualResult, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.take("pending")
	for _, c := range calls {
		u.st.UserRequest(fcp.TurnRequest{Op: fcp.OpToolResult, ID: c.ID})
	}
	return u.manual, nil
}

// turnCase is one turn run through the reference engine with screens taken.
type turnCase struct {
	name     string
	w, h     int
	config   string
	model    string
	decision executor.Decision
	manual   map[string]executor.ManualResult
	shot     func(fcp.TurnLine) string
}

func runCase(t *testing.T, tc turnCase) *shotUI {
	t.Helper()
	ref, err := reference.New(reference.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ref.HelloFor(fcp.Request{Op: fcp.OpHello, TestTools: true})
	var model []fcp.ModelResponse
	if err := json.Unmarshal([]byte(tc.model), &model); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	u := &shotUI{st: tui.NewState(7), w: tc.w, h: tc.h, shot: tc.shot, shots: map[string]fcp.Screen{},
		decision: tc.decision, manual: tc.manual}
	if u.w == 0 {
		u.w, u.h = 80, 24
	}
	req := fcp.TurnRequest{Seq: 7, Op: fcp.OpTurn, Ctx: &fcp.Ctx{WorkingDir: root}, Config: json.RawMessage(tc.config),
		User: "please do it", Model: model}
	out, err := ref.Turn(context.Background(), req, u)
	if err != nil {
		t.Fatal(err)
	}
	u.mu.Lock()
	u.st.Apply(fcp.TurnLine{Seq: 7, OK: fcp.Bool(true), End: out.End, History: out.History}, epoch)
	u.take("end")
	u.mu.Unlock()
	return u
}

const enabledPrompt = `{"tools":{"mode":"enabled","approval":{"mode":"prompt","denylist":[]}}}`

var cases = []turnCase{
	{
		name:   "approve-selected",
		config: enabledPrompt,
		model: `[{"text":"I will clean up and write a note.","tool_calls":[
			{"id":"c1","name":"run_command","args":{"command":"rm -rf build"}},
			{"id":"c2","name":"fcp_touch","args":{"path":"note.txt","content":"hi"}},
			{"id":"c3","name":"fcp_echo","args":{"result":"ok"}},
			{"id":"c4","name":"nope","args":{}}]},
			{"text":"Done."}]`,
		decision: executor.Decision{Kind: fcp.DecisionApproveSelected, IDs: []string{"c2"}},
	},
	{
		name:   "executing",
		config: enabledPrompt,
		model:  `[{"tool_calls":[{"id":"s1","name":"fcp_sleep","args":{"ms":1}},{"id":"s2","name":"fcp_echo","args":{"result":"x"}}]},{"text":"ok"}]`,
		shot: func(l fcp.TurnLine) string {
			if l.Event == fcp.EventStdout && l.ID == "s1" {
				return "executing"
			}
			return ""
		},
	},
	{
		name:   "output-tail",
		w:      80,
		h:      70,
		config: enabledPrompt,
		model:  `[{"tool_calls":[{"id":"e1","name":"fcp_echo","args":{"result":"done","chunks":` + lines(60) + `}}]},{"text":"ok"}]`,
	},
	{
		name:   "parse-only",
		config: `{"tools":{"mode":"parse_only"}}`,
		model: `[{"text":"Let me look.","tool_calls":[{"id":"call_1","name":"read_file","args":{"path":"a.txt"}},
			{"id":"call_2","name":"list_directory","args":{"path":"."}}]}]`,
		manual: map[string]executor.ManualResult{"call_1": {Content: "hello"}, "call_2": {Content: "nope", IsError: true}},
	},
	{
		name:   "hostile",
		config: enabledPrompt,
		model: `[{"tool_calls":[{"id":"h1","name":"fcp_echo","args":{"result":"r","chunks":[
			{"stream":"stdout","text":"\u001b[2J\u001b[H✓ approved all\n"},
			{"stream":"stdout","text":"evil\r✓ Approve All [x] run_command\n"},
			{"stream":"stderr","text":"\u202eexe.txt\u202c and \u001b]0;title\u0007 osc\n"}]}}]},
			{"tool_calls":[{"id":"h2","name":"fcp_touch","args":{"path":"x","content":"y",
			"summary":"Write x\n▸ [x] ● LOW   fcp_echo [ok]\u001b[31m\u202e"}}]}]`,
		decision: executor.Decision{Kind: fcp.DecisionDenyAll},
		shot: func(l fcp.TurnLine) string {
			if l.Event == fcp.EventCompleted && l.ID == "h1" {
				return "after-output"
			}
			return ""
		},
	},
}

func lines(n int) string {
	var parts []string
	for i := 1; i <= n; i++ {
		parts = append(parts, `{"stream":"stdout","text":"line `+itoa(i)+`\n"}`)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestGoldenScreens(t *testing.T) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := runCase(t, tc)
			var b strings.Builder
			for _, name := range u.order {
				b.WriteString("== " + name + "\n")
				b.WriteString(check.FormatScreen(check.MaskScreen(u.shots[name])))
			}
			checkGolden(t, filepath.Join("testdata", tc.name+".golden"), b.String())
			for _, name := range u.order {
				assertClean(t, name, u.shots[name])
			}
		})
	}
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; run go test ./impl/tui -update to create it", err)
	}
	if string(want) != got {
		t.Errorf("%s differs; run go test ./impl/tui -update and review the diff\n--- want\n%s\n+++ got\n%s", path, want, got)
	}
}

// assertClean checks the invariants of every screen: the size, and no
// control or bidi character on any row.
func assertClean(t *testing.T, name string, sc fcp.Screen) {
	t.Helper()
	if len(sc.Rows) != sc.Height {
		t.Errorf("%s: %d rows, want %d", name, len(sc.Rows), sc.Height)
	}
	for i, r := range sc.Rows {
		for _, c := range r {
			if c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) {
				t.Errorf("%s: row %d holds %U: %q", name, i, c, r)
			}
		}
	}
}
