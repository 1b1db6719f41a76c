package mutants

import (
	"context"
	"encoding/json"

	"github.com/forge-conform/forge-conform/impl/tool"
)

// abortMutants break FR-EXE-04's "tools check the abort periodically": the
// tool's walk runs on whatever its abort says, through the whole tree.
// The call is abandoned at its abort, as the executor abandons a tool that
// does not return (impl/executor/run.go), so its result is still Timeout
// (FR-EXE-03 holds); only the work the walk goes on doing on the fixture
// shows the defect (quiet_after_abort, I-EXE-35).
func abortMutants() []Mutant {
	return []Mutant{
		{
			Name: "list-ignores-abort", Doc: "list_directory's walk never checks its abort: the call still ends at its abort with Timeout, but the walk goes on reading the rest of the tree",
			Specs: []string{"tool_executor"}, Run: []string{"list_directory/list-outlives-any-timeout", "list_directory/list-stops-after-abort"},
			Breaks:  ids("tool_executor", "FR-EXE-04"),
			Options: wrap(onTool("list_directory", ignoreAbort)),
		},
		{
			Name: "search-ignores-abort", Doc: "search_files's walk and search never check their abort: the call still ends at its abort with Timeout, but the search goes on through the rest of the tree",
			Specs: []string{"tool_executor"}, Run: []string{"search_files/search-outlives-any-timeout", "search_files/search-stops-after-abort"},
			Breaks:  ids("tool_executor", "FR-EXE-04"),
			Options: wrap(onTool("search_files", ignoreAbort)),
		},
	}
}

// ignoreAbort runs the tool with a context its abort never reaches (no
// cancellation, no deadline), and returns at the abort without waiting
// for it, as if abandoned: the tool goes on in the background.
func ignoreAbort(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := inner(context.WithoutCancel(ctx), args, c)
		done <- result{out, err}
	}()
	select {
	case r := <-done:
		return r.out, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
