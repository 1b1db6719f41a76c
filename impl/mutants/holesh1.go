package mutants

import (
	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/executor/sanitize"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/impl/tui"
)

// holesH1Mutants are three holes `make mutate` found in the output's way
// to the screen: a TUI that shows no output region for a call that
// streamed exactly one complete line, a TUI that never shows the text
// after a call's last newline (FR-TUI-03), and a sanitizer whose fast path
// lets a chunk or result made only of bytes >= 0x80 through unchanged, C1
// controls included (FR-OUT-02).
func holesH1Mutants() []Mutant {
	return []Mutant{
		{
			Name: "tui-hides-one-line-output", Doc: "the output region is left out while the call has streamed exactly one complete line",
			// The output cases only: tui-progress's golden end screen holds
			// fcp_sleep's one line of output, which its checks (FR-TUI-02's
			// states) leave alone, but a strict golden charges to them.
			Specs: []string{"tool_executor"}, Run: []string{"tool_executor/tui-output-*"},
			Breaks:  ids("tool_executor", "FR-TUI-03"),
			Options: reference.Options{TUI: tui.Look{OutputRows: hideOneLine}},
		},
		{
			Name: "tui-hides-unterminated-line", Doc: "the output region shows only complete lines: the text after the last newline is never shown",
			Specs: []string{"tool_executor"}, Run: screenCases,
			Breaks:  ids("tool_executor", "FR-TUI-03"),
			Options: reference.Options{TUI: tui.Look{OutputRows: completeOnly}},
		},
		{
			Name: "sanitize-non-ascii-only-raw", Doc: "the sanitizer passes a chunk or result with no ASCII byte (non-ASCII text and C1 controls, a lone 8-bit CSI) through unchanged",
			Specs: []string{"tool_executor"}, Run: turnRun,
			Breaks: ids("tool_executor", "FR-OUT-02"),
			Options: engine(executor.Options{
				Stream:  func() executor.Sanitizer { return &rawWhen{raw: nonASCIIOnly, s: sanitize.Options{}.Stream()} },
				Results: func(s string) string { return rawIf(nonASCIIOnly, s, sanitize.String) },
			}),
		},
	}
}

// hideOneLine shows the lines as the reference does, except none when
// there is exactly one complete line and nothing after it.
func hideOneLine(complete []string, partial string) []string {
	if len(complete) == 1 && partial == "" {
		return nil
	}
	return append(append([]string{}, complete...), nonEmpty(partial)...)
}

// completeOnly shows the complete lines only.
func completeOnly(complete []string, _ string) []string {
	return append([]string{}, complete...)
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// nonASCIIOnly reports whether s is non-empty and every byte of it is at
// least 0x80.
func nonASCIIOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x80 {
			return false
		}
	}
	return s != ""
}
