// Package policy reads the tool loop's configuration (CFG-TOOLS-01 mode and
// limits, CFG-APR-01 approval policy, CFG-TOOLS-02 manual definitions) and
// decides a call's approval disposition in FR-APR-05's order.
package policy

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/forge-conform/forge-conform/impl/config"
)

// Mode is the tool loop mode (§2.6).
type Mode string

// The modes.
const (
	Disabled  Mode = "disabled"
	ParseOnly Mode = "parse_only"
	Enabled   Mode = "enabled"
)

// ApprovalMode is CFG-APR-01's mode.
type ApprovalMode string

// The approval modes (FR-APR-04).
const (
	Auto   ApprovalMode = "auto"
	Prompt ApprovalMode = "prompt"
	Deny   ApprovalMode = "deny"
)

// Approval is the [tools.approval] table (FR-APR-04's Policy).
type Approval struct {
	Enabled           bool         `json:"enabled"`
	Mode              ApprovalMode `json:"mode"`
	Allowlist         []string     `json:"allowlist"`
	Denylist          []string     `json:"denylist"`
	PromptSideEffects bool         `json:"prompt_side_effects"`
	// PromptUnlisted: in prompt mode every tool not allowlisted needs
	// confirmation, read-only ones included (FR-APR-04d allows it; not a
	// configuration key: a reading of the implementation, I-EXE-23).
	PromptUnlisted bool `json:"-"`
}

// Definition is one manual tool definition (CFG-TOOLS-02).
type Definition struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Loop is the configuration of the tool loop.
type Loop struct {
	Mode                  Mode
	MaxCallsPerBatch      int
	MaxIterationsPerTurn  int
	MaxArgsBytes          int64
	Definitions           []Definition
	DefinitionsConfigured bool
	Approval              Approval
}

// Defaults of FR-LIM-01..03 and CFG-APR-01 (I-EXE-01, I-EXE-02).
const (
	DefaultMaxCallsPerBatch     = 8
	DefaultMaxIterationsPerTurn = 4
	DefaultMaxArgsBytes         = 256 << 10
	DefaultMode                 = ParseOnly
)

// DefaultApproval is CFG-APR-01's example, read as the defaults (I-EXE-02):
// run_command denylisted (FR-TOOL-CMD-01, NFR-SEC-06).
func DefaultApproval() Approval {
	return Approval{Enabled: true, Mode: Prompt, Allowlist: []string{"read_file"},
		Denylist: []string{"run_command"}, PromptSideEffects: true}
}

// Load reads the loop configuration from cfg over the defaults. Errors name
// the key and say what it accepts.
func Load(cfg config.Config) (Loop, error) {
	l := Loop{Mode: DefaultMode, MaxCallsPerBatch: DefaultMaxCallsPerBatch,
		MaxIterationsPerTurn: DefaultMaxIterationsPerTurn, MaxArgsBytes: DefaultMaxArgsBytes,
		Approval: DefaultApproval()}
	if raw, ok := cfg.Tools["mode"]; ok {
		if err := json.Unmarshal(raw, &l.Mode); err != nil {
			return l, fmt.Errorf("[tools] mode: %v; use \"disabled\", \"parse_only\" or \"enabled\"", err)
		}
		if !slices.Contains([]Mode{Disabled, ParseOnly, Enabled}, l.Mode) {
			return l, fmt.Errorf("[tools] mode %q is unknown; use \"disabled\", \"parse_only\" or \"enabled\"", l.Mode)
		}
	}
	ints := []struct {
		key string
		dst *int64
	}{
		{"max_tool_calls_per_batch", nil}, {"max_tool_iterations_per_user_turn", nil}, {"max_tool_args_bytes", &l.MaxArgsBytes},
	}
	var calls, iters int64 = int64(l.MaxCallsPerBatch), int64(l.MaxIterationsPerTurn)
	ints[0].dst, ints[1].dst = &calls, &iters
	for _, k := range ints {
		raw, ok := cfg.Tools[k.key]
		if !ok {
			continue
		}
		var v int64
		if err := json.Unmarshal(raw, &v); err != nil || v < 0 {
			return l, fmt.Errorf("[tools] %s must be an integer >= 0, got %s", k.key, raw)
		}
		*k.dst = v
	}
	l.MaxCallsPerBatch, l.MaxIterationsPerTurn = int(calls), int(iters)
	if raw, ok := cfg.Tools["definitions"]; ok {
		if err := json.Unmarshal(raw, &l.Definitions); err != nil {
			return l, fmt.Errorf("[[tools.definitions]]: %v; each needs name, description and parameters", err)
		}
		l.DefinitionsConfigured = true
	}
	if err := cfg.Table("approval", &l.Approval); err != nil {
		return l, err
	}
	if !slices.Contains([]ApprovalMode{Auto, Prompt, Deny}, l.Approval.Mode) {
		return l, fmt.Errorf("[tools.approval] mode %q is unknown; use \"auto\", \"prompt\" or \"deny\"", l.Approval.Mode)
	}
	return l, nil
}

// Tool is what the policy needs to know of a tool.
type Tool struct {
	Name             string
	SideEffecting    bool
	RequiresApproval bool
}

// Verdict is the policy's answer for one call.
type Verdict int

// The verdicts.
const (
	Execute Verdict = iota
	Confirm
	DeniedDisabled   // FR-APR-04a
	DeniedDenylist   // FR-APR-04b
	DeniedNotAllowed // FR-APR-04c: deny mode, not allowlisted
)

// Step is a point of FR-APR-05's order at which the caller runs its own
// check (the sandbox preflight, step 3). It returns false to stop.
type Step func() bool

// Decide evaluates the policy for t in FR-APR-05's order: 1 global
// disabled, 2 denylist, 3 sandbox (preflight, run by the caller; when it
// returns false, Decide returns Execute and the caller uses its own
// error), 4 mode and allowlist, 5 requires_approval, 6 execute.
func (a Approval) Decide(t Tool, sandbox Step) (v Verdict, stopped bool) {
	if !a.Enabled {
		return DeniedDisabled, false
	}
	if slices.Contains(a.Denylist, t.Name) {
		return DeniedDenylist, false
	}
	if sandbox != nil && !sandbox() {
		return Execute, true
	}
	allowlisted := slices.Contains(a.Allowlist, t.Name)
	confirm := false
	switch a.Mode {
	case Deny:
		if !allowlisted {
			return DeniedNotAllowed, false
		}
	case Prompt:
		if !allowlisted && (a.PromptUnlisted || a.PromptSideEffects && t.SideEffecting) {
			confirm = true
		}
	}
	if t.RequiresApproval {
		confirm = true
	}
	if confirm {
		return Confirm, false
	}
	return Execute, false
}
