// Package tool is the reference executor's core: the ToolExecutor trait of
// TOOL_EXECUTOR_SRD.md §3.1 as a Go interface, the per-call context
// (FR-REG-04), and a registry (FR-REG-03) that validates arguments against
// each tool's JSON Schema, Draft 2020-12 (FR-VAL-01), before the tool runs.
package tool

import (
	"context"
	"encoding/json"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/sandbox"
	"github.com/forge-conform/forge-conform/impl/session"
)

// RiskLevel is the approval UX's risk level (FR-APR-03).
type RiskLevel string

// The risk levels.
const (
	Low    RiskLevel = "Low"
	Medium RiskLevel = "Medium"
	High   RiskLevel = "High"
)

// Tool is one executor. Execute receives arguments that already passed the
// tool's schema; it parses them once into a typed struct (FR-REG-02) and
// returns the result string or a *toolerr.Error.
type Tool interface {
	Name() string
	Description() string
	// Schema is the JSON Schema of the arguments.
	Schema() json.RawMessage
	SideEffecting() bool
	RequiresApproval() bool
	RiskLevel() RiskLevel
	// ApprovalSummary must not touch the filesystem (FR-REG-01a).
	ApprovalSummary(args json.RawMessage, cfg config.Config) (string, error)
	Execute(ctx context.Context, args json.RawMessage, c *Ctx) (string, error)
}

// Ctx is the per-call context (ToolCtx), built fresh for every call.
type Ctx struct {
	// FS is the filesystem every tool uses; afero.NewOsFs in production,
	// a permission-emulating or fault-injecting wrapper in tests.
	FS afero.Fs
	// Sandbox validates every path a call names (FR-VAL-04).
	Sandbox *sandbox.Sandbox
	// WorkingDir is the resolved working directory.
	WorkingDir string
	// MaxOutputBytes and AvailableCapacityBytes give effective_max.
	MaxOutputBytes         int64
	AvailableCapacityBytes int64
	// AllowTruncation starts true; a self-limiting tool sets it false.
	AllowTruncation bool
	ToolCallID      string
	Config          config.Config
	// Session is the conversation the call belongs to (read cache).
	Session *session.State
	// Output is the bounded channel of streamed output (ToolCtx.output_tx,
	// FR-OUT-01); nil discards. Tools write with Send.
	Output chan<- Chunk
}

// EffectiveMax is min(max_output_bytes, available_capacity_bytes).
func (c *Ctx) EffectiveMax() int64 { return min(c.MaxOutputBytes, c.AvailableCapacityBytes) }
