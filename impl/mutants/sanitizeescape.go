package mutants

import (
	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/executor/sanitize"
)

// sanitizeMutants are defects of the stream sanitizer that a stream
// sanitizer of the engine's (executor.Options.Stream) expresses: a tool
// wrapper cannot reach the chunks after the engine receives them.
func sanitizeMutants() []Mutant {
	return []Mutant{
		{
			Name: "sanitize-intermediate-escape-eats-text", Doc: "the stream sanitizer never ends an escape sequence with an intermediate byte (ESC ( B): the rest of the stream is lost",
			Specs: []string{"tool_executor"}, Run: turnRun,
			Breaks:  ids("tool_executor", "FR-OUT-02"),
			Options: engine(executor.Options{Stream: func() executor.Sanitizer { return &eatAfterIntermediate{s: sanitize.Options{}.Stream()} }}),
		},
	}
}

// eatAfterIntermediate sanitizes a stream as the reference does up to the
// first ESC followed by an intermediate byte (0x20..0x2F), and drops
// everything from there on.
type eatAfterIntermediate struct {
	s      *sanitize.Stream
	eating bool
}

func (e *eatAfterIntermediate) Write(chunk string) string {
	if e.eating {
		return ""
	}
	for i := 0; i+1 < len(chunk); i++ {
		if chunk[i] == 0x1b && chunk[i+1] >= 0x20 && chunk[i+1] <= 0x2f {
			e.eating = true
			return e.s.Write(chunk[:i])
		}
	}
	return e.s.Write(chunk)
}

func (e *eatAfterIntermediate) Flush() string {
	if e.eating {
		return ""
	}
	return e.s.Flush()
}
