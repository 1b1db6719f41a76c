package mutants

import (
	"context"
	"fmt"
	"slices"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/executor/policy"
	"github.com/forge-conform/forge-conform/impl/executor/sanitize"
	"github.com/forge-conform/forge-conform/impl/journal"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// turnRun selects the executor's turn cases.
var turnRun = []string{"tool_executor/turn-*"}

// engine builds a reference whose tool loop has o's parts.
func engine(o executor.Options) reference.Options { return reference.Options{Executor: o} }

// engineMutants are defects of the tool loop itself (TOOL_EXECUTOR_SRD.md
// §2.6 modes, §2.7 limits, §3.4.5 planning-time validation, §3.7
// sanitization and truncation, §3.4 approval, §3.8.5 recovery): the engine
// decides them before or around a tool's Execute, so no wrapper of a tool
// can express them. Each gives the engine other parts (executor.Options:
// its planner's steps, its loop policy, its batch handlers, its stream
// sanitizer, its truncation); recovery's decides when to prompt
// (reference.Options.RecoverPrompt).
func engineMutants() []Mutant {
	return []Mutant{
		{
			Name: "precedence-swapped", Doc: "the executor checks the denylist before the global disabled switch (FR-APR-05's steps 1 and 2 swapped)",
			Specs: []string{"tool_executor"}, Run: turnRun,
			Breaks:  ids("tool_executor", "FR-APR-05"),
			Options: engine(executor.Options{Plan: swapSteps(executor.DefaultPlan(), executor.StepDisabled, executor.StepDenylist)}),
		},
		{
			Name: "stop-on-failure", Doc: "the executor stops a batch at its first failed call",
			Specs: []string{"tool_executor"}, Run: turnRun,
			// The later calls of the timeout, cancel, panic and JSON cases
			// lose their own results too.
			Breaks:  ids("tool_executor", "FR-EXE-02", "NFR-REL-01", "T-TMO-01", "T-CAN-01", "FR-ERR-JSON-TOOL-01"),
			Options: engine(executor.Options{Modes: executor.Modes{Enabled: stopOnFailure}}),
		},
		{
			Name: "marker-outside-limit", Doc: "the executor cuts output to the full limit and appends the truncation marker after it",
			Specs: []string{"tool_executor"}, Run: turnRun,
			Breaks:  ids("tool_executor", "T-OUT-01", "FR-OUT-04", "FR-OUT-04a", "FR-REG-04a"),
			Options: engine(executor.Options{Truncate: markerOutsideLimit}),
		},
		{
			Name: "prompting-after-running", Doc: "the executor runs the calls that need confirmation, then asks the user",
			Specs: []string{"tool_executor"}, Run: turnRun,
			// Denied calls have run: their side effects are in the tree.
			Breaks:  ids("tool_executor", "T-APR-01", "T-APR-02", "NFR-SEC-04", "FR-APR-04d"),
			Options: engine(executor.Options{Modes: executor.Modes{Enabled: promptAfterRunning}}),
		},
		{
			Name: "disabled-runs-calls", Doc: "disabled mode advertises no tool but runs the calls the model sends anyway",
			Specs: []string{"tool_executor"}, Run: turnRun,
			Breaks:  ids("tool_executor", "T-MODE-01"),
			Options: engine(executor.Options{Modes: executor.Modes{Disabled: executor.RunBatch}}),
		},
		{
			Name: "parse-only-runs-read-only", Doc: "parse-only mode runs the calls of tools without side effects itself and surfaces only the others as pending",
			Specs: []string{"tool_executor"}, Run: turnRun,
			Breaks:  ids("tool_executor", "T-MODE-02"),
			Options: engine(executor.Options{Modes: executor.Modes{ParseOnly: parseOnlyRunsReadOnly}}),
		},
		{
			Name: "batch-limit-off-by-one", Doc: "the executor runs max_tool_calls_per_batch+1 calls of a batch before pre-resolving the extras",
			Specs: []string{"tool_executor"}, Run: turnRun,
			// turn-limit-batch-default runs a ninth call too.
			Breaks: ids("tool_executor", "T-LIM-01", "FR-LIM-01"),
			Options: engine(executor.Options{Policy: func(cfg config.Config) (policy.Loop, error) {
				l, err := policy.Load(cfg)
				l.MaxCallsPerBatch++
				return l, err
			}}),
		},
		{
			Name: "unknown-tool-prompts", Doc: "the executor asks the user to confirm a call of an unknown tool and fails it only when it would run",
			Specs: []string{"tool_executor"}, Run: turnRun,
			// The mixed batch's confirmation asks for its unknown call too.
			Breaks:  ids("tool_executor", "T-VAL-01", "T-APR-01"),
			Options: engine(executor.Options{Plan: replaceStep(executor.DefaultPlan(), executor.StepLookup, unknownToolPrompts)}),
		},
		{
			Name: "no-schema-validation", Doc: "the planner does not validate arguments against the tool's schema: a call its tool can still decode is prompted for and runs",
			Specs: []string{"tool_executor"}, Run: turnRun,
			Breaks:  ids("tool_executor", "T-VAL-02"),
			Options: engine(executor.Options{Plan: slices.DeleteFunc(executor.DefaultPlan(), func(s executor.PlanStep) bool { return s.Name == executor.StepSchema })}),
		},
		{
			Name: "sanitize-per-chunk", Doc: "the executor sanitizes each output chunk on its own, so an escape sequence split across two chunks leaves its tail as text (and a character split across two chunks becomes replacement characters)",
			Specs: []string{"tool_executor"}, Run: turnRun,
			Breaks:  ids("tool_executor", "T-OUT-02", "FR-OUT-02"),
			Options: engine(executor.Options{Stream: func() executor.Sanitizer { return perChunk{} }}),
		},
		{
			Name: "recover-prompt-needs-result", Doc: "recovery prompts only when the interrupted batch has a journaled result, so a crash during a batch's first call resumes without asking",
			Specs: []string{"tool_executor"}, Run: durableRun, Process: true,
			Breaks: ids("tool_executor", "IT-JRN-02"),
			Options: reference.Options{RecoverPrompt: func(rec *journal.Recovery) bool {
				return rec.Prompt() && len(rec.Batch.Results) > 0
			}},
		},
	}
}

// swapSteps returns plan with the steps named a and b swapped.
func swapSteps(plan []executor.PlanStep, a, b string) []executor.PlanStep {
	i := slices.IndexFunc(plan, func(s executor.PlanStep) bool { return s.Name == a })
	j := slices.IndexFunc(plan, func(s executor.PlanStep) bool { return s.Name == b })
	plan[i], plan[j] = plan[j], plan[i]
	return plan
}

// replaceStep returns plan with the step named name checked by check.
func replaceStep(plan []executor.PlanStep, name string, check func(*executor.Planning) bool) []executor.PlanStep {
	for i := range plan {
		if plan[i].Name == name {
			plan[i].Check = check
		}
	}
	return plan
}

// unknownToolPrompts is a lookup step that sends a call of an unknown tool
// to the confirmation prompt, as a high-risk call that fails as unknown
// when approved (FR-VAL-02).
func unknownToolPrompts(s *executor.Planning) bool {
	t, err := s.Lookup()
	if err != nil {
		s.Confirm(s.Call.Name, tool.High, s.ToolError(err))
		return true
	}
	s.Tool = t
	return false
}

// stopOnFailure is an enabled-mode batch that stops at the first failed
// call: the calls after it get an error result without running
// (FR-EXE-02).
func stopOnFailure(ctx context.Context, b *executor.Batch) ([]fcp.Message, string, error) {
	plan := b.Plan()
	if err := b.Confirm(ctx, plan); err != nil {
		return nil, "", err
	}
	failed := false
	return b.Finish(ctx, plan, func(ctx context.Context, p *executor.Planned) (executor.Result, error) {
		if p.Disposition() == executor.PreResolved {
			return b.Step(ctx, p)
		}
		if failed {
			return b.Error("not run: an earlier call failed"), nil
		}
		runs := !b.Cancelled() && ctx.Err() == nil
		res, err := b.Step(ctx, p)
		failed = failed || runs && res.IsError
		return res, err
	})
}

// promptAfterRunning is an enabled-mode batch that runs the calls needing
// confirmation first and asks the user afterwards (T-APR-01, FR-APR-03):
// an approved call keeps the result it already has, a denied one gets the
// denial, its side effects done.
func promptAfterRunning(ctx context.Context, b *executor.Batch) ([]fcp.Message, string, error) {
	plan := b.Plan()
	ran := map[*executor.Planned]executor.Result{}
	for _, p := range plan {
		if p.Disposition() == executor.RequiresConfirmation && ctx.Err() == nil {
			res, err := b.Execute(ctx, p)
			if err != nil {
				return nil, "", err
			}
			ran[p] = res
		}
	}
	if err := b.Confirm(ctx, plan); err != nil {
		return nil, "", err
	}
	for p, res := range ran {
		if p.Disposition() == executor.ExecuteNow {
			p.Resolve(res)
		}
	}
	return b.Finish(ctx, plan, b.Step)
}

// parseOnlyRunsReadOnly is a parse-only batch that runs the calls of a
// known tool without side effects and valid arguments itself and
// surfaces only the others as pending (FR-MODE-02).
func parseOnlyRunsReadOnly(ctx context.Context, b *executor.Batch) ([]fcp.Message, string, error) {
	ran := map[string]executor.Result{}
	for _, c := range b.Calls {
		p, t, ok := b.Prepare(c)
		if !ok || t.SideEffecting() {
			continue
		}
		res, err := b.Execute(ctx, p)
		if err != nil {
			return nil, "", err
		}
		ran[c.ID] = res
	}
	return b.Surface(ctx, b.Calls, ran)
}

// markerOutsideLimit cuts a result to the full limit and appends the
// truncation marker after it (FR-OUT-04a).
func markerOutsideLimit(res executor.Result, max int64) string {
	if int64(len(res.Content)) > max {
		return fmt.Sprintf("%s\n\n... [output truncated]", res.Content[:max])
	}
	return res.Content
}

// perChunk sanitizes every chunk on its own, without the stream's state.
type perChunk struct{}

func (perChunk) Write(chunk string) string { return sanitize.String(chunk) }
func (perChunk) Flush() string             { return "" }
