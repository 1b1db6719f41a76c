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

// Planned is one call of a batch after planning.
type Planned struct {
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
	if t.Name() == applypatch.Name { // FR-VAL-07: its paths are its sections'
		return applypatch.PreflightPaths(args)
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

// PlanStep is one named step of the planner (FR-VAL-02, FR-VAL-02a,
// FR-LIM-01..04, FR-APR-04..06). Check looks at one call and returns true
// when it has decided the call (pre-resolved it or asked for its
// confirmation): the later steps are then skipped. A call no step decides
// executes now.
type PlanStep struct {
	Name  string
	Check func(*Planning) bool
}

// The steps' names.
const (
	StepDuplicateID = "duplicate-id" // FR-VAL-02a
	StepBatchLimit  = "batch-limit"  // FR-LIM-01, T-LIM-01
	StepDisabled    = "disabled"     // FR-APR-05 1, FR-APR-04a
	StepDenylist    = "denylist"     // FR-APR-05 2, FR-APR-04b
	StepArgsSize    = "args-size"    // FR-LIM-03
	StepLookup      = "lookup"       // FR-VAL-02: the tool exists
	StepSchema      = "schema"       // FR-VAL-01, FR-VAL-02
	StepPatchSize   = "patch-size"   // FR-LIM-04
	StepSummary     = "summary"      // FR-APR-06, after the schema
	StepPolicy      = "policy"       // FR-APR-05 3..6: sandbox, mode, requires_approval
)

// DefaultPlan is the reference planner's steps: duplicate id, batch limit,
// disabled, denylist, argument size, tool lookup, schema, patch size, the
// approval summary, then the policy (I-EXE-08).
func DefaultPlan() []PlanStep {
	return []PlanStep{
		{StepDuplicateID, duplicateID}, {StepBatchLimit, batchLimit},
		{StepDisabled, disabled}, {StepDenylist, denylisted},
		{StepArgsSize, argsTooLarge}, {StepLookup, lookup}, {StepSchema, schema},
		{StepPatchSize, patchSize}, {StepSummary, summarize}, {StepPolicy, decide},
	}
}

// ForgePlan is Forge's planner (Forge's own code, read): apply_patch's
// max_patch_bytes before the tool lookup and the schema, and no summary
// step: the policy step computes the summary of a call that needs
// confirmation only, sanitized before its cut (I-EXE-08 allows both).
func ForgePlan() []PlanStep {
	return []PlanStep{
		{StepDuplicateID, duplicateID}, {StepBatchLimit, batchLimit},
		{StepDisabled, disabled}, {StepDenylist, denylisted},
		{StepArgsSize, argsTooLarge}, {StepPatchSize, patchSize},
		{StepLookup, lookup}, {StepSchema, schema}, {StepPolicy, decide},
	}
}

// Planning is one call being planned: what the steps before have found
// out, and the ways a step decides it.
type Planning struct {
	// Call is the call, Args its arguments' text.
	Call fcp.ModelCall
	Args json.RawMessage
	// Tool is the call's tool, once the lookup step found it.
	Tool tool.Tool
	// Loop is the turn's loop configuration.
	Loop policy.Loop

	r       *turnRun
	p       *Planned
	st      *planState
	summary *string // the summary step's, before its cut
}

// planState is what the steps share across a batch.
type planState struct {
	seen    map[string]bool
	counted int            // calls with a new id so far
	ids     map[string]int // how often each id occurs in the batch
}

// PreResolve decides the call as an error result (FR-APR-02 PreResolved).
func (s *Planning) PreResolve(te *toolerr.Error) {
	s.p.disp, s.p.result = PreResolved, s.r.fromError(te)
}

// Confirm decides that the call needs the user's confirmation, with its
// approval summary (cut and redacted here, FR-APR-06) and risk level.
// failure, when set, is the call's result if it is approved: a step that
// confirms a call it found no Tool for says so.
func (s *Planning) Confirm(summary string, risk tool.RiskLevel, failure *toolerr.Error) {
	s.p.disp = RequiresConfirmation
	s.p.confirm = &fcp.Confirmation{ID: s.Call.ID, Name: s.Call.Name, Summary: s.r.e.Options.Summary(summary),
		RiskLevel: string(risk)}
	if failure != nil {
		s.p.result = s.r.fromError(failure)
	}
}

// Lookup finds the call's tool in the registry.
func (s *Planning) Lookup() (tool.Tool, error) { return s.r.e.Registry.Lookup(s.Call.Name) }

// ToolError is err as a ToolError of the call's tool.
func (s *Planning) ToolError(err error) *toolerr.Error { return asToolErr(s.Call.Name, err) }

// plan classifies every call of a batch, in call order, with the engine's
// steps. It performs no side effect: the sandbox preflight only inspects
// paths.
func (r *turnRun) plan(calls []fcp.ModelCall) []*Planned {
	steps := r.e.Options.plan()
	st := &planState{seen: map[string]bool{}, ids: map[string]int{}}
	for _, c := range calls {
		st.ids[c.ID]++
	}
	out := make([]*Planned, 0, len(calls))
	for _, c := range calls {
		p := &Planned{call: c, args: []byte(c.ArgsText())}
		out = append(out, p)
		s := &Planning{Call: c, Args: p.args, Loop: r.env.loop, r: r, p: p, st: st}
		decided := false
		for _, step := range steps {
			if step.Check(s) {
				decided = true
				break
			}
		}
		p.tool = s.Tool
		if !decided {
			p.disp = ExecuteNow
		}
	}
	return out
}

// duplicateID: a repeated id is rejected and never executes (FR-VAL-02a);
// with Options.RejectDuplicates its first call too.
func duplicateID(s *Planning) bool {
	if s.st.seen[s.Call.ID] || s.r.e.Options.RejectDuplicates && s.st.ids[s.Call.ID] > 1 {
		if !s.st.seen[s.Call.ID] {
			s.st.seen[s.Call.ID] = true
			s.st.counted++
		}
		s.PreResolve(&toolerr.Error{Kind: toolerr.DuplicateToolCallID,
			Message: fmt.Sprintf("Duplicate tool call id: %s", s.Call.ID)})
		return true
	}
	s.st.seen[s.Call.ID] = true
	s.st.counted++
	return false
}

// batchLimit: the extras beyond the batch limit (FR-LIM-01, T-LIM-01).
func batchLimit(s *Planning) bool {
	if s.st.counted > s.Loop.MaxCallsPerBatch {
		s.PreResolve(limits(fmt.Sprintf("Exceeded max tool calls per batch (%d); call %s was not run",
			s.Loop.MaxCallsPerBatch, s.Call.ID)))
		return true
	}
	return false
}

// disabled is FR-APR-05's step 1.
func disabled(s *Planning) bool {
	if !s.Loop.Approval.Enabled {
		s.PreResolve(toolerr.Violation(toolerr.Denial{Reason: toolerr.Disabled}))
		return true
	}
	return false
}

// denylisted is FR-APR-05's step 2.
func denylisted(s *Planning) bool {
	if contains(s.Loop.Approval.Denylist, s.Call.Name) {
		s.PreResolve(toolerr.Violation(toolerr.Denial{Reason: toolerr.Denylisted, Tool: s.Call.Name}))
		return true
	}
	return false
}

// argsTooLarge is FR-LIM-03.
func argsTooLarge(s *Planning) bool {
	if n := argsSize(s.Args); n > s.Loop.MaxArgsBytes {
		s.PreResolve(limits(fmt.Sprintf("Tool arguments too large: %d bytes exceed max_tool_args_bytes %d",
			n, s.Loop.MaxArgsBytes)))
		return true
	}
	return false
}

// lookup: the tool exists (FR-VAL-02).
func lookup(s *Planning) bool {
	t, err := s.Lookup()
	if err != nil {
		s.PreResolve(s.ToolError(err))
		return true
	}
	s.Tool = t
	return false
}

// schema validates the arguments against the tool's schema (FR-VAL-01).
func schema(s *Planning) bool {
	if err := s.r.e.Registry.Validate(s.Call.Name, s.Args); err != nil {
		s.PreResolve(s.ToolError(err))
		return true
	}
	return false
}

// patchSize is apply_patch's max_patch_bytes (FR-LIM-04).
func patchSize(s *Planning) bool {
	if s.Call.Name != applypatch.Name {
		return false
	}
	if te, over := s.r.patchTooLarge(s.Args); over {
		s.PreResolve(te)
		return true
	}
	return false
}

// summarize computes the approval summary after schema validation
// (FR-APR-06); an error pre-resolves the call.
func summarize(s *Planning) bool {
	if s.Tool == nil {
		return false
	}
	sum, err := s.Tool.ApprovalSummary(s.Args, s.r.env.cfg)
	if err != nil {
		s.PreResolve(s.ToolError(err))
		return true
	}
	s.summary = &sum
	return false
}

// decide is FR-APR-05's steps 3..6 for a known tool: the sandbox
// preflight, the mode and allowlist, requires_approval. Without a summary
// step before it, it computes the summary of a call that needs
// confirmation, sanitized before its cut.
func decide(s *Planning) bool {
	t := s.Tool
	if t == nil {
		return false
	}
	r := s.r
	var sbErr error
	a := s.Loop.Approval
	a.PromptUnlisted = r.e.Options.PromptUnlisted
	v, stopped := a.Decide(policy.Tool{Name: s.Call.Name, SideEffecting: t.SideEffecting(),
		RequiresApproval: t.RequiresApproval()}, func() bool {
		for _, path := range r.preflightPaths(t, s.Args) {
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
		s.PreResolve(s.ToolError(sbErr))
	case v == policy.DeniedDisabled:
		s.PreResolve(toolerr.Violation(toolerr.Denial{Reason: toolerr.Disabled}))
	case v == policy.DeniedDenylist || v == policy.DeniedNotAllowed:
		s.PreResolve(toolerr.Violation(toolerr.Denial{Reason: toolerr.Denylisted, Tool: s.Call.Name}))
	case v == policy.Confirm && s.summary == nil:
		sum, err := t.ApprovalSummary(s.Args, r.env.cfg)
		if err != nil {
			s.PreResolve(s.ToolError(err))
			return true
		}
		s.Confirm(r.e.Options.Sanitize.String(sum), t.RiskLevel(), nil)
	case v == policy.Confirm:
		s.Confirm(*s.summary, t.RiskLevel(), nil)
	default:
		return false
	}
	return true
}

func (r *turnRun) patchTooLarge(args json.RawMessage) (*toolerr.Error, bool) {
	cfg := applypatch.DefaultConfig()
	if r.env.cfg.Table("apply_patch", &cfg) != nil || cfg.MaxPatchBytes < 1 {
		cfg = applypatch.DefaultConfig()
	}
	var a struct {
		Patch string `json:"patch"`
	}
	if json.Unmarshal(args, &a) != nil || int64(len(a.Patch)) <= cfg.MaxPatchBytes {
		return nil, false
	}
	return limits(fmt.Sprintf("Patch exceeds max_patch_bytes: %d bytes > %d",
		len(a.Patch), cfg.MaxPatchBytes)), true
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
