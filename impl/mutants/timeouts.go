package mutants

import (
	"time"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/tool"
)

// timeoutMutants break FR-EXE-03 for a call through the FCP call op: the
// limit a call runs under must be the configured one, and a call that
// outlives it yields Timeout whatever the tool itself answers later.
func timeoutMutants() []Mutant {
	return []Mutant{
		{
			Name: "write-file-fixed-timeout", Doc: "write_file runs under a fixed 30 s limit of its own, ignoring both [tools.timeouts] file_operations_seconds and default_seconds: a write slower than the configured limit ends with its own failure instead of Timeout",
			Specs: []string{"tool_executor"}, Run: []string{"write_file/write-outlives-any-timeout"},
			Breaks:  ids("tool_executor", "FR-EXE-03"),
			Options: wrap(fixedTimeout("write_file", 30*time.Second)),
		},
	}
}

// fixedLimit is a tool whose own timeout ignores the configuration.
type fixedLimit struct {
	tool.Tool
	limit time.Duration
}

func (f fixedLimit) Timeout(config.Config) time.Duration { return f.limit }

// fixedTimeout gives the tool called name the timeout d, whatever the
// configuration says.
func fixedTimeout(name string, d time.Duration) func(tool.Tool) tool.Tool {
	return func(t tool.Tool) tool.Tool {
		if t.Name() != name {
			return t
		}
		return fixedLimit{Tool: t, limit: d}
	}
}
