package mutants

import (
	"regexp"
	"strings"

	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/executor/sanitize"
	"github.com/forge-conform/forge-conform/impl/tool"
)

// sanitizeEndsMutants are sanitizers that misjudge where a control
// sequence ends, or which characters are controls, and a summarizer that
// forgets bearer tokens. The first two are parts of the engine
// (executor.Options' Stream and Results: a wrapper of a tool cannot reach
// the chunks after the engine receives them); the third is its Summarize.
func sanitizeEndsMutants() []Mutant {
	return []Mutant{
		{
			Name: "sanitize-sequence-ends-missed", Doc: "the sanitizer ends a string control only at BEL (not at ST), a CSI only at a letter, and takes a digit after ESC for an intermediate byte: the printable text after such a sequence is lost",
			Specs: []string{"tool_executor"}, Run: turnRun,
			Breaks: ids("tool_executor", "FR-OUT-02"),
			Options: engine(executor.Options{
				Stream:  func() executor.Sanitizer { return &misreadEnds{s: sanitize.Options{}.Stream()} },
				Results: func(s string) string { return sanitize.String(misreadEnd(s)) },
			}),
		},
		{
			Name: "sanitize-c1-edges-raw", Doc: "the sanitizer lets U+0080, U+009F and a DEL after non-ASCII text through (its control ranges are one off)",
			Specs: []string{"tool_executor"}, Run: turnRun,
			Breaks: ids("tool_executor", "FR-OUT-02"),
			Options: engine(executor.Options{
				Stream:  func() executor.Sanitizer { return &rawWhen{raw: edgeControlsOnly, s: sanitize.Options{}.Stream()} },
				Results: func(s string) string { return rawIf(edgeControlsOnly, s, sanitize.String) },
			}),
		},
		{
			Name: "summary-keeps-bearer", Doc: "the approval summary redacts every secret but a bearer token",
			Specs: []string{"tool_executor"}, Run: []string{"tool_executor/summary-*"},
			Breaks:  ids("tool_executor", "FR-APR-01"),
			Options: engine(executor.Options{Summarize: summarizeKeepingBearer}),
		},
	}
}

// sequenceEnd matches what misreadEnd rewrites: an ST (ESC \ or U+009C), a
// CSI up to a final byte that is no letter, and ESC (with intermediates)
// followed by the digit 0.
var sequenceEnd = regexp.MustCompile("\x1b\\\\|\u009c|\x1b\\[[0-?]*[ -/]*[@-~]|\x1b[ -/]*0")

// misreadEnd rewrites s so that the reference's sanitizer reads it as a
// sanitizer with the defect would: an ST is dropped (the string goes on to
// the next BEL), a CSI's final byte that is no letter is dropped (the next
// character ends it), and the 0 after ESC becomes an intermediate byte (the
// next character ends the escape).
func misreadEnd(s string) string {
	return sequenceEnd.ReplaceAllStringFunc(s, func(m string) string {
		switch {
		case m == "\x1b\\" || m == "\u009c":
			return ""
		case strings.HasPrefix(m, "\x1b["):
			if f := m[len(m)-1]; f >= 'A' && f <= 'Z' || f >= 'a' && f <= 'z' {
				return m
			}
			return m[:len(m)-1]
		}
		return m[:len(m)-1] + " "
	})
}

// misreadEnds is the reference's stream sanitizer reading each chunk as
// misreadEnd rewrites it.
type misreadEnds struct{ s *sanitize.Stream }

func (m *misreadEnds) Write(chunk string) string { return m.s.Write(misreadEnd(chunk)) }

func (m *misreadEnds) Flush() string { return m.s.Flush() }

// edgeControlsOnly reports whether the only controls of s (as FR-OUT-02
// counts them: C0 but newline and tab, DEL, C1) are U+0080, U+009F, and DEL
// after a non-ASCII character, and it has one.
func edgeControlsOnly(s string) bool {
	found, nonASCII := false, false
	for _, r := range s {
		switch {
		case r == 0x80 || r == 0x9f || r == 0x7f && nonASCII:
			found = true
		case r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f:
			return false
		}
		nonASCII = nonASCII || r >= 0x80
	}
	return found
}

// bearerCredential matches an HTTP bearer credential.
var bearerCredential = regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9\-._~+/]+=*`)

// summarizeKeepingBearer is tool.Summarize except that bearer credentials
// are left as they are.
func summarizeKeepingBearer(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range bearerCredential.FindAllStringIndex(s, -1) {
		b.WriteString(tool.Redact(s[last:m[0]]))
		b.WriteString(s[m[0]:m[1]])
		last = m[1]
	}
	b.WriteString(tool.Redact(s[last:]))
	return tool.Truncate(b.String(), tool.MaxSummaryChars)
}
