package executor

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/forge-conform/forge-conform/impl/executor/policy"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
	"github.com/forge-conform/forge-conform/impl/tools/applypatch"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// Disposition is the planner's classification of a call (FR-APR-02).
type Disposition int

// The dispositions.
const (
	ExecuteNow Disposition = iota
	RequiresConfirmation
	PreResolved
)

// planned is one call of a batch after planning.
type planned struct {
	call    fcp.ModelCall
	args    json.RawMessage
	tool    tool.Tool
	disp    Disposition
	result  Result            // PreResolved
	confirm *fcp.Confirmation // RequiresConfirmation
}

// Preflighter is implemented by tools that name sandboxed paths in their
// arguments, so the planner can validate them before prompting (FR-VAL-02).
type Preflighter interface {
	PreflightPaths(args json.RawMessage) []string
}

// builtinPathArg names the path argument of the built-in path tools, which
// the planner preflights (FR-VAL-07).
var builtinPathArg = map[string]string{
	"read_file": "path", "list_directory": "path", "write_file": "path", "search_files": "path",
}

func (r *turnRun) preflightPaths(t tool.Tool, args json.RawMessage) []string {
	if p, ok := t.(Preflighter); ok {
		return p.PreflightPaths(args)
	}
	key, ok := builtinPathArg[t.Name()]
	if !ok {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return nil
	}
	var p string
	if json.Unmarshal(m[key], &p) != nil {
		return nil
	}
	return []string{p}
}

// plan classifies every call of a batch, in call order (FR-VAL-02,
// FR-VAL-02a, FR-LIM-01..04, FR-APR-04..06). It performs no side effect:
// the sandbox preflight only inspects paths.
func (r *turnRun) plan(calls []fcp.ModelCall) []*planned {
	loop := r.env.loop
	seen := map[string]bool{}
	counted := 0
	out := make([]*planned, 0, len(calls))
	for _, c := range calls {
		p := &planned{call: c, args: []byte(c.ArgsText())}
		out = append(out, p)
		pre := func(res Result) { p.disp, p.result = PreResolved, res }
		// FR-VAL-02a: a repeated id is rejected and never executes.
		if seen[c.ID] {
			pre(r.fromError(&toolerr.Error{Kind: toolerr.DuplicateToolCallID,
				Message: fmt.Sprintf("Duplicate tool call id: %s", c.ID)}))
			continue
		}
		seen[c.ID] = true
		counted++
		// FR-LIM-01, T-LIM-01: the extras beyond the batch limit.
		limit := loop.MaxCallsPerBatch
		if r.e.Defects.BatchLimitOffByOne {
			limit++
		}
		if counted > limit {
			pre(r.fromError(limits(fmt.Sprintf("Exceeded max tool calls per batch (%d); call %s was not run",
				loop.MaxCallsPerBatch, c.ID))))
			continue
		}
		// FR-APR-05 1 and 2, before anything that looks at the tool.
		a := loop.Approval
		if r.e.Defects.DenylistBeforeDisabled && contains(a.Denylist, c.Name) {
			pre(r.fromError(toolerr.Violation(toolerr.Denial{Reason: toolerr.Denylisted, Tool: c.Name})))
			continue
		}
		if !a.Enabled {
			pre(r.fromError(toolerr.Violation(toolerr.Denial{Reason: toolerr.Disabled})))
			continue
		}
		if contains(a.Denylist, c.Name) {
			pre(r.fromError(toolerr.Violation(toolerr.Denial{Reason: toolerr.Denylisted, Tool: c.Name})))
			continue
		}
		// FR-LIM-03
		if n := argsSize(p.args); n > loop.MaxArgsBytes {
			pre(r.fromError(limits(fmt.Sprintf("Tool arguments too large: %d bytes exceed max_tool_args_bytes %d",
				n, loop.MaxArgsBytes))))
			continue
		}
		// FR-VAL-02: existence, then schema (FR-VAL-01).
		t, err := r.e.Registry.Lookup(c.Name)
		if err != nil && r.e.Defects.UnknownToolPrompts {
			p.disp, p.result = RequiresConfirmation, r.fromError(asToolErr(c.Name, err))
			p.confirm = &fcp.Confirmation{ID: c.ID, Name: c.Name, Summary: tool.Summarize(c.Name),
				RiskLevel: string(tool.High)}
			continue
		}
		if err != nil {
			pre(r.fromError(asToolErr(c.Name, err)))
			continue
		}
		p.tool = t
		if !r.e.Defects.SkipSchemaValidation {
			err = r.e.Registry.Validate(c.Name, p.args)
		}
		if err != nil {
			pre(r.fromError(asToolErr(c.Name, err)))
			continue
		}
		// FR-LIM-04
		if c.Name == "apply_patch" {
			if res, over := r.patchTooLarge(p.args); over {
				pre(res)
				continue
			}
		}
		// FR-APR-06: the summary, after schema validation.
		summary, err := t.ApprovalSummary(p.args, r.env.cfg)
		if err != nil {
			pre(r.fromError(asToolErr(c.Name, err)))
			continue
		}
		// FR-APR-05 3..6
		var sbErr error
		v, stopped := a.Decide(policy.Tool{Name: c.Name, SideEffecting: t.SideEffecting(),
			RequiresApproval: t.RequiresApproval()}, func() bool {
			for _, path := range r.preflightPaths(t, p.args) {
				if _, err := r.env.sandbox.Validate(path); err != nil {
					var te *toolerr.Error
					if errors.As(err, &te) && te.Kind == toolerr.SandboxViolation {
						sbErr = te
						return false
					}
				}
			}
			return true
		})
		switch {
		case stopped:
			pre(r.fromError(asToolErr(c.Name, sbErr)))
		case v == policy.DeniedNotAllowed:
			pre(r.fromError(toolerr.Violation(toolerr.Denial{Reason: toolerr.Denylisted, Tool: c.Name})))
		case v == policy.Confirm:
			p.disp = RequiresConfirmation
			p.confirm = &fcp.Confirmation{ID: c.ID, Name: c.Name, Summary: tool.Summarize(summary),
				RiskLevel: string(t.RiskLevel())}
		default:
			p.disp = ExecuteNow
		}
	}
	return out
}

func (r *turnRun) patchTooLarge(args json.RawMessage) (Result, bool) {
	cfg := applypatch.DefaultConfig()
	if r.env.cfg.Table("apply_patch", &cfg) != nil || cfg.MaxPatchBytes < 1 {
		cfg = applypatch.DefaultConfig()
	}
	var a struct {
		Patch string `json:"patch"`
	}
	if json.Unmarshal(args, &a) != nil || int64(len(a.Patch)) <= cfg.MaxPatchBytes {
		return Result{}, false
	}
	return r.fromError(limits(fmt.Sprintf("Patch exceeds max_patch_bytes: %d bytes > %d",
		len(a.Patch), cfg.MaxPatchBytes))), true
}

func limits(msg string) *toolerr.Error {
	return toolerr.Violation(toolerr.Denial{Reason: toolerr.LimitsExceeded, Message: msg})
}

func asToolErr(name string, err error) *toolerr.Error {
	var te *toolerr.Error
	if errors.As(err, &te) {
		return te
	}
	return toolerr.Failed(name, "%v", err)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
