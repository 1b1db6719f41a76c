package mutants

import (
	"encoding/json"
	"strings"

	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/impl/toolerr"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// exeHoleMutants are holes `make mutate` found in the executor: error
// results of the kinds a tool or the planner names left untruncated
// (FR-OUT-04's scope is every result), an ExecutionFailed message that is
// JSON but no object passed through (FR-ERR-JSON-TOOL-01 passes objects
// only), and a cancelled turn left unended in the journal, so that a
// restart's recovery resumes it (FR-EXE-04: no auto-resume). Each is a
// part the engine or the journal takes (executor.Options.Truncate and
// ResultText, reference.Options.WrapJournal): no tool wrapper sees them.
func exeHoleMutants() []Mutant {
	return []Mutant{
		{
			Name: "tool-errors-untruncated", Doc: "error results of every kind but ExecutionFailed (bad arguments, unknown tool, sandbox, patch, timeout, duplicate id, disabled) keep their whole text under a small max_output_bytes",
			Specs: []string{"tool_executor"}, Run: turnRun,
			Breaks:  ids("tool_executor", "FR-OUT-04"),
			Options: engine(executor.Options{Truncate: toolErrorsUntruncated}),
		},
		{
			Name: "json-value-passthrough", Doc: "an ExecutionFailed message that is any JSON value (null, a string, an array) is passed through verbatim, not only an object",
			Specs: []string{"tool_executor"}, Run: turnRun,
			Breaks:  ids("tool_executor", "FR-ERR-JSON-TOOL-01"),
			Options: engine(executor.Options{ResultText: jsonValuePassthrough}),
		},
		{
			Name: "cancelled-turn-unended", Doc: "the journal does not record the end of a cancelled turn, so a later recovery finds its batch complete and resumes the model with it",
			Specs: []string{"tool_executor"}, Run: durableRun, Process: true,
			Breaks:  ids("tool_executor", "FR-EXE-04"),
			Options: reference.Options{WrapJournal: cancelUnended},
		},
	}
}

// toolErrorsUntruncated truncates every result but an error whose
// ToolError is of another kind than ExecutionFailed.
func toolErrorsUntruncated(res executor.Result, max int64) string {
	if res.IsError && res.Err != nil && res.Err.Kind != toolerr.ExecutionFailed {
		return res.Content
	}
	return executor.TruncateAll(res, max)
}

// jsonValuePassthrough renders as the reference does, except that an
// ExecutionFailed message that is any JSON value is the content verbatim.
func jsonValuePassthrough(te *toolerr.Error) (string, bool) {
	if te.Kind == toolerr.ExecutionFailed && strings.TrimSpace(te.Message) != "" && json.Valid([]byte(te.Message)) {
		return te.Message, true
	}
	return executor.ReferenceText(te)
}

// unendedJournal records everything but the end of a cancelled turn.
type unendedJournal struct{ executor.Journal }

func (j unendedJournal) Ended(end string) error {
	if end == fcp.EndCancelled {
		return nil
	}
	return j.Journal.Ended(end)
}

func cancelUnended(j executor.Journal, ui executor.UI) (executor.Journal, executor.UI) {
	return unendedJournal{j}, ui
}
