package mutants

import (
	"strings"

	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/impl/tui"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// screenCases are the cases that ask for screens (FR-TUI-01..04): the TUI
// mutants run on them only.
var screenCases = []string{"tool_executor/tui-*"}

// tuiMutants break the reference TUI's screens (the screen op,
// spec/PROTOCOL.md §11) by drawing them with other parts (tui.Look).
func tuiMutants() []Mutant {
	m := func(name, doc string, look tui.Look, breaks ...string) Mutant {
		return Mutant{Name: name, Doc: doc, Specs: []string{"tool_executor"}, Run: screenCases,
			Breaks: ids("tool_executor", breaks...), Options: reference.Options{TUI: look}}
	}
	none := func() string { return "" }
	return []Mutant{
		m("tui-no-risk-indicator", "the approval prompt shows no risk level (neither word nor colour)",
			tui.Look{Risk: func(string) string { return "" }}, "FR-TUI-01"),
		m("tui-no-warning-banner", "the approval prompt shows no warning banner for run_command",
			tui.Look{Banner: none}, "FR-APR-06", "FR-TUI-01"),
		m("tui-unsanitized", "strings reach the screen raw: an approval summary's escape sequence and bidi override",
			tui.Look{Clean: func(s string) string { return strings.ReplaceAll(s, "\n", "⏎") }}, "FR-OUT-02", "NFR-SEC-05"),
		m("tui-summary-colour", "a red colour sequence in an approval summary is honoured: the sanitized summary is shown in the high-risk colour",
			tui.Look{SummaryClass: func(s string) string {
				if strings.Contains(s, "\x1b[31m") {
					return fcp.ClassRiskHigh
				}
				return ""
			}}, "FR-OUT-02", "NFR-SEC-05"),
		m("tui-51-output-lines", "the output region keeps the last 51 lines",
			tui.Look{OutputLines: 51}, "FR-TUI-03"),
		m("tui-no-denied-reason", "a denied or pre-resolved call shows ⊘ without its reason",
			tui.Look{NotRun: func(string) string { return "not run" }}, "FR-TUI-02"),
	}
}
