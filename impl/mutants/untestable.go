package mutants

import (
	"encoding/json"
	"fmt"

	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/executor/sanitize"
)

// untestableMutants are defects of requirements once called untestable
// that the turn op (spec/PROTOCOL.md §9) and the screen op (§11) observe
// (issue 18): panic safety, the global policy over list_directory, and
// the framework's sanitization of the JSON results of list_directory and
// search_files. The engine catches a panic, plans and sanitizes, so each
// gives it other parts (executor.Options); no wrapper of a tool can
// express them.
func untestableMutants() []Mutant {
	return []Mutant{
		{
			Name: "panic-as-failure", Doc: `a panicking tool's result is an ordinary failure ("fcp_panic failed: <payload>"), not "Tool panicked: <message>"`,
			Specs: []string{"tool_executor"}, Run: turnRun,
			// turn-exec-panic states the prefix too, under NFR-REL-01.
			Breaks: ids("tool_executor", "FR-EXE-04b", "NFR-REL-01"),
			Options: engine(executor.Options{Panicked: func(tool string, payload any) string {
				return tool + " failed: " + fmt.Sprint(payload)
			}}),
		},
		{
			Name: "json-results-unsanitized", Doc: "the executor does not sanitize a result that is valid JSON, as if JSON's escaping neutralized every control (it leaves DEL and C1 controls raw)",
			Specs: []string{"list_directory", "search_files"},
			Run:   []string{"list_directory/turn-*", "search_files/turn-*"},
			Breaks: append(ids("list_directory", "NFR-LD-SEC-02", "C-04"),
				ids("search_files", "NFR-SF-SEC-02", "C-04")...),
			Options: engine(executor.Options{Results: func(content string) string {
				if json.Valid([]byte(content)) {
					return content
				}
				return sanitize.String(content)
			}}),
		},
		{
			Name: "list-directory-outside-policy", Doc: "the planner applies the global tool policy (denylist, mode, allowlist) to every tool but list_directory, which always runs",
			Specs: []string{"list_directory"}, Run: []string{"list_directory/turn-*"},
			Breaks:  ids("list_directory", "FR-LD-DEF-05"),
			Options: engine(executor.Options{Plan: exempt(executor.DefaultPlan(), "list_directory", executor.StepDenylist, executor.StepPolicy)}),
		},
	}
}

// exempt returns plan with the steps named by steps skipped for calls of
// the tool name.
func exempt(plan []executor.PlanStep, name string, steps ...string) []executor.PlanStep {
	for i := range plan {
		for _, s := range steps {
			if plan[i].Name != s {
				continue
			}
			check := plan[i].Check
			plan[i].Check = func(p *executor.Planning) bool {
				return p.Call.Name != name && check(p)
			}
		}
	}
	return plan
}
