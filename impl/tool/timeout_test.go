package tool_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// slowTool waits for its ctx or for its delay, whichever comes first.
type slowTool struct {
	fakeTool
	delay time.Duration
	limit time.Duration // 0: no Timeout method is consulted (see timedTool)
	fail  bool          // return an error even when the delay passes
}

func (s slowTool) Execute(ctx context.Context, _ json.RawMessage, _ *tool.Ctx) (string, error) {
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case <-time.After(s.delay):
	}
	if s.fail {
		return "", toolerr.New(toolerr.PatchFailed, "own failure")
	}
	return "done", nil
}

// timedTool is a slowTool with its own limit.
type timedTool struct{ slowTool }

func (t timedTool) Timeout(config.Config) time.Duration { return t.limit }

func cfgOf(t *testing.T, tools string) config.Config {
	t.Helper()
	c, err := config.Parse(json.RawMessage(`{"tools":` + tools + `}`))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCallTimeout(t *testing.T) {
	base := newFake("slow")
	tests := []struct {
		name     string
		tl       tool.Tool
		tools    string // the config's "tools" object
		cancel   bool   // cancel the caller's ctx before calling
		want     string
		wantKind toolerr.Kind
		wantMsg  string
	}{
		{"tool limit fires", timedTool{slowTool{fakeTool: base, delay: time.Minute, limit: 20 * time.Millisecond}}, `{}`,
			false, "", toolerr.Timeout, "slow timed out after 0.02s"},
		{"tool limit not reached", timedTool{slowTool{fakeTool: base, delay: time.Millisecond, limit: time.Minute}}, `{}`,
			false, "done", "", ""},
		{"own error before the limit kept", timedTool{slowTool{fakeTool: base, delay: time.Millisecond, limit: time.Minute, fail: true}}, `{}`,
			false, "", toolerr.PatchFailed, "own failure"},
		{"default_seconds for a tool without Timeout", slowTool{fakeTool: base, delay: time.Minute}, `{"timeouts":{"default_seconds":0.02}}`,
			false, "", toolerr.Timeout, "slow timed out after 0.02s"},
		{"tool's Timeout wins over default_seconds", timedTool{slowTool{fakeTool: base, delay: 50 * time.Millisecond, limit: time.Minute}}, `{"timeouts":{"default_seconds":0.001}}`,
			false, "done", "", ""},
		{"cancelled before the call", timedTool{slowTool{fakeTool: base, delay: time.Minute, limit: time.Minute}}, `{}`,
			true, "", toolerr.Cancelled, "Cancelled by user"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reg, err := tool.NewRegistry(tc.tl)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				cancel()
			}
			out, err := reg.Call(ctx, "slow", json.RawMessage(`{"path":"x"}`), &tool.Ctx{Config: cfgOf(t, tc.tools)})
			if tc.wantKind == "" {
				if err != nil || out != tc.want {
					t.Fatalf("Call = %q, %v; want %q", out, err, tc.want)
				}
				return
			}
			te := toolErr(t, err)
			if te.Kind != tc.wantKind || te.Message != tc.wantMsg {
				t.Errorf("Call error = %+v, want %s %q", te, tc.wantKind, tc.wantMsg)
			}
			if te.Kind == toolerr.Timeout && te.Tool != "slow" {
				t.Errorf("Timeout names tool %q, want slow", te.Tool)
			}
		})
	}
}

func TestCallCancelledMidway(t *testing.T) {
	reg, err := tool.NewRegistry(timedTool{slowTool{fakeTool: newFake("slow"), delay: time.Minute, limit: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err = reg.Call(ctx, "slow", json.RawMessage(`{"path":"x"}`), &tool.Ctx{})
	if te := toolErr(t, err); te.Kind != toolerr.Cancelled || te.Tool != "" {
		t.Errorf("error = %+v, want Cancelled without a tool", te)
	}
}

func TestLoadTimeouts(t *testing.T) {
	tests := []struct {
		tools string
		want  tool.Timeouts
	}{
		{`{}`, tool.DefaultTimeouts()},
		{`{"timeouts":{"file_operations_seconds":5}}`, tool.Timeouts{DefaultSeconds: 30, FileOperationsSeconds: 5, ShellCommandsSeconds: 300}},
		{`{"timeouts":{"default_seconds":0,"shell_commands_seconds":-1}}`, tool.DefaultTimeouts()},
		{`{"timeouts":{"default_seconds":"ten"}}`, tool.DefaultTimeouts()},
		{`{"timeouts":{"default_seconds":1.5}}`, tool.Timeouts{DefaultSeconds: 1.5, FileOperationsSeconds: 30, ShellCommandsSeconds: 300}},
	}
	for _, tc := range tests {
		if got := tool.LoadTimeouts(cfgOf(t, tc.tools)); got != tc.want {
			t.Errorf("LoadTimeouts(%s) = %+v, want %+v", tc.tools, got, tc.want)
		}
	}
	if got := tool.FileOperationsTimeout(cfgOf(t, `{"timeouts":{"file_operations_seconds":2}}`)); got != 2*time.Second {
		t.Errorf("FileOperationsTimeout = %v, want 2s", got)
	}
	if got := tool.Seconds(1e300); got <= 0 {
		t.Errorf("Seconds(1e300) = %v, want a saturated positive duration", got)
	}
}
