package mutants

import (
	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/reference"
)

// turnRun selects the executor's turn cases.
var turnRun = []string{"tool_executor/turn-*"}

// engineMutants are defects of the tool loop itself (TOOL_EXECUTOR_SRD.md
// §2.6 modes, §2.7 limits, §3.4.5 planning-time validation, §3.7.2
// sanitization, §3.8.5 recovery): the engine decides them before or around
// a tool's Execute, so no wrapper of a tool can express them, and they are
// executor.Defects (reference.Defects for recovery) switched on.
func engineMutants() []Mutant {
	engine := func(d executor.Defects) reference.Options {
		return reference.Options{Defects: reference.Defects{Executor: d}}
	}
	return []Mutant{
		{
			Name: "disabled-runs-calls", Doc: "disabled mode advertises no tool but runs the calls the model sends anyway",
			Specs: []string{"tool_executor"}, Run: turnRun,
			Breaks:  ids("tool_executor", "T-MODE-01"),
			Options: engine(executor.Defects{DisabledRunsCalls: true}),
		},
		{
			Name: "parse-only-runs-read-only", Doc: "parse-only mode runs the calls of tools without side effects itself and surfaces only the others as pending",
			Specs: []string{"tool_executor"}, Run: turnRun,
			Breaks:  ids("tool_executor", "T-MODE-02"),
			Options: engine(executor.Defects{ParseOnlyRunsReadOnly: true}),
		},
		{
			Name: "batch-limit-off-by-one", Doc: "the executor runs max_tool_calls_per_batch+1 calls of a batch before pre-resolving the extras",
			Specs: []string{"tool_executor"}, Run: turnRun,
			// turn-limit-batch-default runs a ninth call too.
			Breaks:  ids("tool_executor", "T-LIM-01", "FR-LIM-01"),
			Options: engine(executor.Defects{BatchLimitOffByOne: true}),
		},
		{
			Name: "unknown-tool-prompts", Doc: "the executor asks the user to confirm a call of an unknown tool and fails it only when it would run",
			Specs: []string{"tool_executor"}, Run: turnRun,
			// The mixed batch's confirmation asks for its unknown call too.
			Breaks:  ids("tool_executor", "T-VAL-01", "T-APR-01"),
			Options: engine(executor.Defects{UnknownToolPrompts: true}),
		},
		{
			Name: "no-schema-validation", Doc: "the planner does not validate arguments against the tool's schema: a call its tool can still decode is prompted for and runs",
			Specs: []string{"tool_executor"}, Run: turnRun,
			Breaks:  ids("tool_executor", "T-VAL-02"),
			Options: engine(executor.Defects{SkipSchemaValidation: true}),
		},
		{
			Name: "sanitize-per-chunk", Doc: "the executor sanitizes each output chunk on its own, so an escape sequence split across two chunks leaves its tail as text",
			Specs: []string{"tool_executor"}, Run: turnRun,
			Breaks:  ids("tool_executor", "T-OUT-02"),
			Options: engine(executor.Defects{SanitizePerChunk: true}),
		},
		{
			Name: "recover-prompt-needs-result", Doc: "recovery prompts only when the interrupted batch has a journaled result, so a crash during a batch's first call resumes without asking",
			Specs: []string{"tool_executor"}, Run: durableRun, Process: true,
			Breaks:  ids("tool_executor", "IT-JRN-02"),
			Options: reference.Options{Defects: reference.Defects{RecoverPromptNeedsResult: true}},
		},
	}
}
