// Package fcptest holds the test-double tools of FCP/1's turn
// (spec/PROTOCOL.md §9.6): fcp_echo, fcp_fail, fcp_panic, fcp_sleep,
// fcp_touch and fcp_guarded, each with exact behaviour so that the
// framework's rules (streaming, JSON passthrough, panic safety, timeouts,
// abort, side effects, tool-level approval) can be checked. An
// implementation registers them only when hello asks for test_tools.
package fcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// Tools returns every test tool.
func Tools() []tool.Tool {
	return []tool.Tool{Echo{}, Fail{}, Panic{}, Sleep{}, Touch{}, Guarded{}}
}

// base gives the metadata of a read-only, Low-risk tool without approval.
type base struct{}

func (base) SideEffecting() bool       { return false }
func (base) RequiresApproval() bool    { return false }
func (base) RiskLevel() tool.RiskLevel { return tool.Low }

func decode(name string, raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return toolerr.New(toolerr.BadArgs, "arguments of %s: %v", name, err)
	}
	return nil
}

func summaryOr(s *string, def string) string {
	if s != nil {
		return *s
	}
	return def
}

// Echo is fcp_echo: emits chunks, returns result repeated.
type Echo struct{ base }

type echoArgs struct {
	Result  string  `json:"result"`
	Repeat  *int    `json:"repeat"`
	Summary *string `json:"summary"`
	Chunks  []struct {
		Stream string `json:"stream"`
		Text   string `json:"text"`
	} `json:"chunks"`
}

func (Echo) Name() string        { return "fcp_echo" }
func (Echo) Description() string { return "Test tool: emit the given chunks, return result repeated" }
func (Echo) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"result":{"type":"string"},"repeat":{"type":"integer","minimum":0},` +
		`"summary":{"type":"string"},"chunks":{"type":"array","items":{"type":"object","properties":{"stream":{"enum":["stdout","stderr"]},` +
		`"text":{"type":"string"}},"required":["stream","text"],"additionalProperties":false}}},"required":["result"],"additionalProperties":false}`)
}
func (t Echo) ApprovalSummary(raw json.RawMessage, _ config.Config) (string, error) {
	var a echoArgs
	if err := decode(t.Name(), raw, &a); err != nil {
		return "", err
	}
	return summaryOr(a.Summary, "Echo "+a.Result), nil
}
func (t Echo) Execute(ctx context.Context, raw json.RawMessage, c *tool.Ctx) (string, error) {
	var a echoArgs
	if err := decode(t.Name(), raw, &a); err != nil {
		return "", err
	}
	for _, ch := range a.Chunks {
		if !c.Send(ctx, tool.Stream(ch.Stream), ch.Text) {
			return "", ctx.Err()
		}
	}
	n := 1
	if a.Repeat != nil {
		n = *a.Repeat
	}
	return strings.Repeat(a.Result, n), nil
}

// Fail is fcp_fail: ExecutionFailed with the message exactly.
type Fail struct{ base }

func (Fail) Name() string        { return "fcp_fail" }
func (Fail) Description() string { return "Test tool: fail with ExecutionFailed and the given message" }
func (Fail) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"],"additionalProperties":false}`)
}
func (t Fail) ApprovalSummary(json.RawMessage, config.Config) (string, error) { return "Fail", nil }
func (t Fail) Execute(_ context.Context, raw json.RawMessage, _ *tool.Ctx) (string, error) {
	var a struct {
		Message string `json:"message"`
	}
	if err := decode(t.Name(), raw, &a); err != nil {
		return "", err
	}
	return "", &toolerr.Error{Kind: toolerr.ExecutionFailed, Tool: t.Name(), Message: a.Message}
}

// Panic is fcp_panic: panics with the message as payload.
type Panic struct{ base }

func (Panic) Name() string        { return "fcp_panic" }
func (Panic) Description() string { return "Test tool: panic with the given message" }
func (Panic) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"],"additionalProperties":false}`)
}
func (t Panic) ApprovalSummary(json.RawMessage, config.Config) (string, error) { return "Panic", nil }
func (t Panic) Execute(_ context.Context, raw json.RawMessage, _ *tool.Ctx) (string, error) {
	var a struct {
		Message string `json:"message"`
	}
	if err := decode(t.Name(), raw, &a); err != nil {
		return "", err
	}
	panic(a.Message)
}

// Sleep is fcp_sleep: emits "sleeping\n", sleeps, returns "slept"; its own
// timeout is timeout_ms when given.
type Sleep struct{ base }

type sleepArgs struct {
	MS         int64 `json:"ms"`
	TimeoutMS  int64 `json:"timeout_ms"`
	HonorAbort *bool `json:"honor_abort"`
}

func (Sleep) Name() string        { return "fcp_sleep" }
func (Sleep) Description() string { return "Test tool: sleep for ms milliseconds" }
func (Sleep) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer","minimum":0},"timeout_ms":{"type":"integer","minimum":1},` +
		`"honor_abort":{"type":"boolean"}},"required":["ms"],"additionalProperties":false}`)
}
func (t Sleep) ApprovalSummary(raw json.RawMessage, _ config.Config) (string, error) {
	var a sleepArgs
	if err := decode(t.Name(), raw, &a); err != nil {
		return "", err
	}
	return fmt.Sprintf("Sleep %dms", a.MS), nil
}

// TimeoutFor is the call's own timeout (executor.timeout()): timeout_ms, or
// zero for none.
func (Sleep) TimeoutFor(raw json.RawMessage) time.Duration {
	var a sleepArgs
	if json.Unmarshal(raw, &a) != nil || a.TimeoutMS < 1 {
		return 0
	}
	return time.Duration(a.TimeoutMS) * time.Millisecond
}
func (t Sleep) Execute(ctx context.Context, raw json.RawMessage, c *tool.Ctx) (string, error) {
	var a sleepArgs
	if err := decode(t.Name(), raw, &a); err != nil {
		return "", err
	}
	c.Send(ctx, tool.Stdout, "sleeping\n")
	d := time.Duration(a.MS) * time.Millisecond
	if a.HonorAbort != nil && !*a.HonorAbort {
		time.Sleep(d)
		return "slept", nil
	}
	select {
	case <-time.After(d):
		return "slept", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Touch is fcp_touch: writes content to a sandboxed path.
type Touch struct{}

type touchArgs struct {
	Path    string  `json:"path"`
	Content string  `json:"content"`
	Summary *string `json:"summary"`
}

func (Touch) Name() string              { return "fcp_touch" }
func (Touch) Description() string       { return "Test tool: write content to path" }
func (Touch) SideEffecting() bool       { return true }
func (Touch) RequiresApproval() bool    { return false }
func (Touch) RiskLevel() tool.RiskLevel { return tool.Medium }
func (Touch) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"},"summary":{"type":"string"}},` +
		`"required":["path","content"],"additionalProperties":false}`)
}
func (t Touch) ApprovalSummary(raw json.RawMessage, _ config.Config) (string, error) {
	var a touchArgs
	if err := decode(t.Name(), raw, &a); err != nil {
		return "", err
	}
	return summaryOr(a.Summary, "Write "+a.Path), nil
}

// PreflightPaths names the sandboxed path (FR-VAL-02's preflight).
func (Touch) PreflightPaths(raw json.RawMessage) []string {
	var a touchArgs
	if json.Unmarshal(raw, &a) != nil {
		return nil
	}
	return []string{a.Path}
}
func (t Touch) Execute(_ context.Context, raw json.RawMessage, c *tool.Ctx) (string, error) {
	var a touchArgs
	if err := decode(t.Name(), raw, &a); err != nil {
		return "", err
	}
	p, err := c.Sandbox.Validate(a.Path)
	if err != nil {
		return "", err
	}
	if err := afero.WriteFile(c.FS, p, []byte(a.Content), 0o644); err != nil {
		return "", toolerr.Failed(t.Name(), "writing %s: %v", a.Path, err)
	}
	return "wrote " + a.Path, nil
}

// Guarded is fcp_guarded: requires approval, returns result.
type Guarded struct{ base }

func (Guarded) Name() string           { return "fcp_guarded" }
func (Guarded) Description() string    { return "Test tool: requires approval, returns result" }
func (Guarded) RequiresApproval() bool { return true }
func (Guarded) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"result":{"type":"string"},"summary":{"type":"string"}},"required":["result"],"additionalProperties":false}`)
}
func (t Guarded) ApprovalSummary(raw json.RawMessage, _ config.Config) (string, error) {
	var a struct {
		Result  string  `json:"result"`
		Summary *string `json:"summary"`
	}
	if err := decode(t.Name(), raw, &a); err != nil {
		return "", err
	}
	return summaryOr(a.Summary, "Guarded "+a.Result), nil
}
func (t Guarded) Execute(_ context.Context, raw json.RawMessage, _ *tool.Ctx) (string, error) {
	var a struct {
		Result string `json:"result"`
	}
	if err := decode(t.Name(), raw, &a); err != nil {
		return "", err
	}
	return a.Result, nil
}
