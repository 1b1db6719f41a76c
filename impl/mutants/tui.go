package mutants

import (
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/impl/tui"
)

// screenCases are the cases that ask for screens (FR-TUI-01..04): the TUI
// mutants run on them only.
var screenCases = []string{"tool_executor/tui-*"}

// tuiMutants break the reference TUI's screens (the screen op,
// spec/PROTOCOL.md §11) through tui.Defects.
func tuiMutants() []Mutant {
	m := func(name, doc string, d tui.Defects, breaks ...string) Mutant {
		return Mutant{Name: name, Doc: doc, Specs: []string{"tool_executor"}, Run: screenCases,
			Breaks: ids("tool_executor", breaks...), Options: reference.Options{Defects: reference.Defects{TUI: d}}}
	}
	return []Mutant{
		m("tui-no-risk-indicator", "the approval prompt shows no risk level (neither word nor colour)",
			tui.Defects{NoRiskIndicator: true}, "FR-TUI-01"),
		m("tui-no-warning-banner", "the approval prompt shows no warning banner for run_command",
			tui.Defects{NoWarningBanner: true}, "FR-APR-06", "FR-TUI-01"),
		m("tui-unsanitized", "strings reach the screen raw: an approval summary's escape sequence and bidi override",
			tui.Defects{Unsanitized: true}, "FR-OUT-02", "NFR-SEC-05"),
		m("tui-summary-colour", "a red colour sequence in an approval summary is honoured: the sanitized summary is shown in the high-risk colour",
			tui.Defects{SummaryColour: true}, "FR-OUT-02", "NFR-SEC-05"),
		m("tui-51-output-lines", "the output region keeps the last 51 lines",
			tui.Defects{OutputLines: 51}, "FR-TUI-03"),
		m("tui-no-denied-reason", "a denied or pre-resolved call shows ⊘ without its reason",
			tui.Defects{NoDeniedReason: true}, "FR-TUI-02"),
	}
}
