package mutants

import (
	"strings"

	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/executor/sanitize"
	"github.com/forge-conform/forge-conform/impl/executor/truncate"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/impl/tui"
)

// controlsOnlyMutants are sanitizer fast paths that let text made of
// control characters (or of DEL) alone through, a truncation that also cuts a result
// of exactly the limit, and a TUI that keeps U+061C ARABIC LETTER MARK on
// the screen. The first two are parts of the engine (executor.Options'
// Stream, Results, Truncate), which no wrapper of a tool reaches; the third
// draws with another tui.Look.Clean.
func controlsOnlyMutants() []Mutant {
	return []Mutant{
		{
			Name: "sanitize-controls-only-raw", Doc: "the sanitizer passes a chunk or result made only of control characters (no printable byte) through unchanged",
			Specs: []string{"tool_executor"}, Run: turnRun,
			Breaks: ids("tool_executor", "FR-OUT-02"),
			Options: engine(executor.Options{
				Stream:  func() executor.Sanitizer { return &rawWhen{raw: controlsOnly, s: sanitize.Options{}.Stream()} },
				Results: func(s string) string { return rawIf(controlsOnly, s, sanitize.String) },
			}),
		},
		{
			Name: "sanitize-del-only-raw", Doc: "the sanitizer passes a chunk or result made only of DEL (U+007F) through unchanged",
			Specs: []string{"tool_executor"}, Run: turnRun,
			Breaks: ids("tool_executor", "FR-OUT-02"),
			Options: engine(executor.Options{
				Stream:  func() executor.Sanitizer { return &rawWhen{raw: delOnly, s: sanitize.Options{}.Stream()} },
				Results: func(s string) string { return rawIf(delOnly, s, sanitize.String) },
			}),
		},
		{
			Name: "truncate-at-limit", Doc: "the executor truncates a result of exactly effective_max bytes too",
			Specs: []string{"tool_executor"}, Run: turnRun,
			Breaks:  ids("tool_executor", "FR-OUT-04"),
			Options: engine(executor.Options{Truncate: truncateAtLimit}),
		},
		{
			Name: "tui-keeps-arabic-letter-mark", Doc: "the TUI removes every bidirectional formatting character but U+061C ARABIC LETTER MARK",
			Specs: []string{"tool_executor"}, Run: screenCases,
			Breaks:  ids("tool_executor", "FR-OUT-02", "NFR-SEC-05"),
			Options: reference.Options{TUI: tui.Look{Clean: keepALM}},
		},
	}
}

// controlsOnly reports whether s is non-empty and every byte of it is below
// 0x20.
func controlsOnly(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool { return r >= 0x20 })
}

// delOnly reports whether s is non-empty and every byte of it is DEL.
func delOnly(s string) bool {
	return s != "" && strings.Trim(s, "\x7f") == ""
}

// rawIf returns s unchanged when raw(s), else clean(s).
func rawIf(raw func(string) bool, s string, clean func(string) string) string {
	if raw(s) {
		return s
	}
	return clean(s)
}

// rawWhen is the reference's stream sanitizer except that a chunk raw
// accepts passes as it is, the sanitizer's state untouched.
type rawWhen struct {
	raw func(string) bool
	s   *sanitize.Stream
}

func (c *rawWhen) Write(chunk string) string { return rawIf(c.raw, chunk, c.s.Write) }

func (c *rawWhen) Flush() string { return c.s.Flush() }

// truncateAtLimit truncates results that reach effective_max, not only
// those that exceed it.
func truncateAtLimit(res executor.Result, max int64) string {
	if int64(len(res.Content)) == max && max > 0 {
		return truncate.Output(res.Content+" ", max)
	}
	return truncate.Output(res.Content, max)
}

// keepALM is the reference's tui.Line except that U+061C stays.
func keepALM(s string) string {
	parts := strings.Split(s, "\u061c")
	for i, p := range parts {
		parts[i] = tui.Line(p)
	}
	return strings.Join(parts, "\u061c")
}
