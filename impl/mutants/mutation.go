package mutants

import "github.com/forge-conform/forge-conform/impl/executor"

// mutationMutants are the holes `make mutate` (scripts/mutate) found: a
// mutant of the reference's source that survived the corpus although it
// changes what the SRD requires. Each has a case now; the defect here is
// the same one, written as a part of the reference, so the suite's
// self-test keeps the case honest.
func mutationMutants() []Mutant {
	return []Mutant{
		{
			Name: "whole-marker-under-limit", Doc: "the executor returns the whole truncation marker when the limit is below the marker's length (FR-OUT-04a: the marker's first effective_max bytes)",
			Specs: []string{"tool_executor"}, Run: turnRun,
			// turn-limit-iterations-truncated's limit is below the marker too.
			Breaks:  ids("tool_executor", "FR-OUT-04", "FR-OUT-04a"),
			Options: engine(executor.Options{Truncate: wholeMarkerUnderLimit}),
		},
		{
			Name: "engine-errors-untruncated", Doc: "the executor leaves its own pre-resolved errors (max iterations reached, denied by user) untruncated (FR-OUT-04's scope takes in pre-resolved errors)",
			Specs: []string{"tool_executor"}, Run: turnRun,
			Breaks:  ids("tool_executor", "FR-OUT-04"),
			Options: engine(executor.Options{Truncate: engineErrorsUntruncated}),
		},
	}
}

// engineErrorsUntruncated truncates every result but the errors the
// engine writes itself (an error result without a tool error).
func engineErrorsUntruncated(res executor.Result, max int64) string {
	if res.IsError && res.Err == nil {
		return res.Content
	}
	return executor.TruncateAll(res, max)
}

// wholeMarkerUnderLimit truncates as FR-OUT-04a asks but for a limit not
// above the marker's length, where it returns the whole marker.
func wholeMarkerUnderLimit(res executor.Result, max int64) string {
	const marker = "\n\n... [output truncated]"
	if int64(len(res.Content)) > max && max <= int64(len(marker)) {
		return marker
	}
	return executor.TruncateAll(res, max)
}
