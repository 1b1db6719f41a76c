package executor_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/executor/sanitize"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
	"github.com/forge-conform/forge-conform/impl/tools/applypatch"
	"github.com/forge-conform/forge-conform/impl/tools/fcptest"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// runVariant runs one turn with v on a registry of apply_patch and the
// test tools, max_output_bytes 40, approving every confirmation.
func runVariant(t *testing.T, v executor.Options, cfg string, calls ...fcp.ModelCall) (executor.Outcome, *fakeUI) {
	t.Helper()
	reg, err := tool.NewRegistry(append([]tool.Tool{applypatch.Tool{}}, fcptest.Tools()...)...)
	if err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.EvalSymlinks(t.TempDir())
	ui := &fakeUI{root: root, decision: executor.Decision{Kind: fcp.DecisionApproveAll}}
	e := &executor.Engine{Registry: reg, Options: v}
	maxOut := int64(40)
	out, err := e.Run(context.Background(), executor.Turn{Ctx: &fcp.Ctx{WorkingDir: root, MaxOutputBytes: &maxOut},
		Config: json.RawMessage(cfg), User: "go", Model: []fcp.ModelResponse{batch(calls...), final}}, ui)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return out, ui
}

func started(ui *fakeUI) []string {
	var ids []string
	for _, e := range ui.events {
		if e.Event == fcp.EventStarted {
			ids = append(ids, e.ID)
		}
	}
	return ids
}

// Options.ResultText, Truncate and Sanitize change the result texts exactly
// where they say; the zero Options are the reference.
func TestVariantResults(t *testing.T) {
	long := strings.Repeat("e", 100)
	calls := []fcp.ModelCall{
		call("c1", "fcp_fail", `{"message":"{\"code\":1}"}`),
		call("c2", "fcp_fail", `{"message":"`+long+`"}`),
		call("c3", "fcp_echo", `{"result":"a\rb"}`),
		call("c4", "fcp_echo", `{"result":"`+long+`"}`),
	}
	forge := executor.Options{Sanitize: sanitize.Options{KeepCR: true},
		Truncate: func(res executor.Result, max int64) string {
			if res.IsError {
				return res.Content
			}
			return executor.TruncateAll(res, max)
		},
		ResultText: func(te *toolerr.Error) (string, bool) { return te.Tool + " failed: " + te.Message, false }}
	tests := []struct {
		name string
		v    executor.Options
		want map[string]string
	}{
		{"reference", executor.Options{}, map[string]string{
			"c1": `{"code":1}`,                                 // FR-ERR-JSON-TOOL-01
			"c2": "fcp_fail failed:\n\n... [output truncated]", // FR-OUT-04 on errors
			"c3": "ab",                                         // CR removed
			"c4": "eeeeeeeeeeeeeeee\n\n... [output truncated]"}},
		{"forge", forge, map[string]string{
			"c1": `fcp_fail failed: {"code":1}`,
			"c2": "fcp_fail failed: " + long,
			"c3": "a\rb",
			"c4": "eeeeeeeeeeeeeeee\n\n... [output truncated]"}}, // success still truncated
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, _ := runVariant(t, tc.v, auto, calls...)
			for id, want := range tc.want {
				if got, _ := content(t, o, id); got != want {
					t.Errorf("%s: %q, want %q", id, got, want)
				}
			}
		})
	}
}

// ForgePlan: apply_patch's size limit comes before the schema, and
// the summary is computed (and can fail) only for a call that needs
// confirmation, sanitized before the cut.
func TestForgePlan(t *testing.T) {
	small := `{"tools":{"mode":"enabled","apply_patch":{"max_patch_bytes":10},"approval":{"mode":"auto"}}}`
	oversized := call("c1", "apply_patch", `{"patch":"LP1\nF a.txt\nEND\n","extra":1}`)
	unparsable := call("c2", "apply_patch", `{"patch":"not LP1"}`)
	guarded := call("c3", "fcp_guarded", `{"result":"ok","summary":"x\u001b[31my\rz"}`)
	t.Run("reference", func(t *testing.T) {
		o, _ := runVariant(t, executor.Options{}, small, oversized)
		if c, _ := content(t, o, "c1"); !strings.HasPrefix(c, "Bad args") {
			t.Errorf("oversized patch with an unknown key: %q, want the schema's error first", c)
		}
		o, ui := runVariant(t, executor.Options{}, auto, unparsable, guarded)
		if c, _ := content(t, o, "c2"); !strings.HasPrefix(c, "Patch failed") || slices.Contains(started(ui), "c2") {
			t.Errorf("unparsable patch: %q, started %v: want its summary's PatchFailed, pre-resolved", c, started(ui))
		}
		if s := confirmed(ui, "c3"); s != "x\x1b[31my\rz" {
			t.Errorf("summary %q, want it unsanitized", s)
		}
	})
	t.Run("forge", func(t *testing.T) {
		v := executor.Options{Plan: executor.ForgePlan()}
		o, _ := runVariant(t, v, small, oversized)
		if e := results(o)["c1"][0].Error; e == nil || e.Denial == nil || e.Denial.Reason != string(toolerr.LimitsExceeded) {
			t.Errorf("oversized patch with an unknown key: %+v, want the size limit (LimitsExceeded) first", e)
		}
		o, ui := runVariant(t, v, auto, unparsable, guarded)
		if c, _ := content(t, o, "c2"); !slices.Contains(started(ui), "c2") || !strings.Contains(c, "Patch failed") {
			t.Errorf("unparsable patch: %q, started %v: want it run (no summary in auto mode)", c, started(ui))
		}
		if s := confirmed(ui, "c3"); s != "xyz" {
			t.Errorf("summary %q, want it sanitized", s)
		}
		v.Sanitize.KeepCR = true
		if _, ui := runVariant(t, v, auto, guarded); confirmed(ui, "c3") != "xy\rz" {
			t.Errorf("summary %q, want it sanitized keeping CR", confirmed(ui, "c3"))
		}
	})
}

// confirmed is the summary of call id in the confirmation.
func confirmed(ui *fakeUI, id string) string {
	for _, e := range ui.events {
		for _, r := range e.Requests {
			if r.ID == id {
				return r.Summary
			}
		}
	}
	return "<not confirmed>"
}

// ForgeText is Forge's words where the SRD quotes none, and the
// reference's (passthrough included) where it quotes them.
func TestForgeText(t *testing.T) {
	tests := []struct {
		te       *toolerr.Error
		want     string
		verbatim bool
	}{
		{&toolerr.Error{Kind: toolerr.Timeout, Tool: "x", Message: "Tool 'x' timed out after 1.5s"}, "Tool 'x' timed out after 1s", false},
		{toolerr.Violation(toolerr.Denial{Reason: toolerr.Denylisted, Tool: "run_command"}), "Tool 'run_command' is denylisted", false},
		{toolerr.Violation(toolerr.Denial{Reason: toolerr.LimitsExceeded, Message: "Tool arguments too large: 9 bytes"}), "Tool arguments too large", false},
		{toolerr.Violation(toolerr.Denial{Reason: toolerr.Disabled}), executor.DisabledByPolicy, false},
		{&toolerr.Error{Kind: toolerr.ExecutionFailed, Tool: "t", Message: `{"a":1}`}, `{"a":1}`, true},
		{&toolerr.Error{Kind: toolerr.ExecutionFailed, Tool: "t", Message: "boom"}, "t failed: boom", false},
	}
	for _, tc := range tests {
		if got, verbatim := executor.ForgeText(tc.te); got != tc.want || verbatim != tc.verbatim {
			t.Errorf("ForgeText(%+v) = %q, %v; want %q, %v", tc.te, got, verbatim, tc.want, tc.verbatim)
		}
	}
}

// RejectDuplicates rejects the first call of a duplicated id too
// (I-EXE-19's all-rejected); the reference runs it.
func TestRejectDuplicates(t *testing.T) {
	calls := []fcp.ModelCall{call("c1", "fcp_echo", `{"result":"a"}`), call("c1", "fcp_echo", `{"result":"b"}`)}
	for _, tc := range []struct {
		name    string
		o       executor.Options
		started int
	}{{"reference", executor.Options{}, 1}, {"all-rejected", executor.Options{RejectDuplicates: true}, 0}} {
		o, ui := runVariant(t, tc.o, auto, calls...)
		if n := len(started(ui)); n != tc.started {
			t.Errorf("%s: %d calls started, want %d", tc.name, n, tc.started)
		}
		if rs := results(o)["c1"]; len(rs) != 2 || !*rs[1].IsError || *rs[0].IsError == (tc.started == 1) {
			t.Errorf("%s: results %+v", tc.name, rs)
		}
	}
}
