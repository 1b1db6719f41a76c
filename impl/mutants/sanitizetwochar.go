package mutants

import (
	"strings"

	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/executor/sanitize"
)

// sanitizeMutants are defects of the stream sanitizer that a stream
// sanitizer of the engine's (executor.Options.Stream) expresses: a tool
// wrapper cannot reach the chunks after the engine receives them.
func sanitizeMutants() []Mutant {
	return []Mutant{
		{
			Name: "sanitize-two-char-escape-eats-text", Doc: "the stream sanitizer reads a two-character escape (ESC 7, ESC c) as one that goes on, and drops the printable character after it",
			Specs: []string{"tool_executor"}, Run: turnRun,
			Breaks:  ids("tool_executor", "FR-OUT-02"),
			Options: engine(executor.Options{Stream: func() executor.Sanitizer { return eatAfterTwoChar{sanitize.Options{}.Stream()} }}),
		},
	}
}

// eatAfterTwoChar drops the character that follows a two-character escape
// sequence of a chunk, then sanitizes the chunk as the reference does.
type eatAfterTwoChar struct{ s *sanitize.Stream }

func (e eatAfterTwoChar) Write(chunk string) string {
	var b strings.Builder
	rs := []rune(chunk)
	for i := 0; i < len(rs); i++ {
		b.WriteRune(rs[i])
		if rs[i] == 0x1b && i+2 < len(rs) && rs[i+1] >= 0x30 && rs[i+1] <= 0x7e && !strings.ContainsRune("[]PX^_", rs[i+1]) {
			b.WriteRune(rs[i+1])
			i += 2 // the character after the sequence is lost
		}
	}
	return e.s.Write(b.String())
}

func (e eatAfterTwoChar) Flush() string { return e.s.Flush() }
