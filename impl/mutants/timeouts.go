package mutants

import (
	"time"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/tool"
)

// timeoutMutants break FR-EXE-03 for a call through the FCP call op: the
// limit a call runs under must be the configured one, and a call that
// outlives it yields Timeout whatever the tool itself answers later; and
// CFG-TMO-01a, read_file's and search_files' own limit from
// file_operations_seconds.
func timeoutMutants() []Mutant {
	return []Mutant{
		{
			Name: "write-file-fixed-timeout", Doc: "write_file runs under a fixed 30 s limit of its own, ignoring both [tools.timeouts] file_operations_seconds and default_seconds: a write slower than the configured limit ends with its own failure instead of Timeout",
			Specs: []string{"tool_executor"}, Run: []string{"write_file/write-outlives-any-timeout"},
			Breaks:  ids("tool_executor", "FR-EXE-03"),
			Options: wrap(fixedTimeout("write_file", 30*time.Second)),
		},
		{
			Name: "list-directory-shell-timeout", Doc: "list_directory takes its own limit from the wrong key, [tools.timeouts] shell_commands_seconds (300 s by default), ignoring default_seconds and file_operations_seconds: a listing slower than the configured limit ends with its own failure instead of Timeout",
			Specs: []string{"tool_executor"}, Run: []string{"list_directory/list-outlives-any-timeout"},
			Breaks:  ids("tool_executor", "FR-EXE-03"),
			Options: wrap(shellTimeout("list_directory")),
		},
		{
			Name: "read-file-fixed-timeout", Doc: "read_file runs under a fixed 30 s limit of its own, ignoring both [tools.timeouts] file_operations_seconds and default_seconds: an open slower than the configured limit ends with its own failure instead of Timeout",
			Specs: []string{"tool_executor"}, Run: []string{"tool_executor/read-outlives-any-timeout"},
			Breaks:  ids("tool_executor", "FR-EXE-03"),
			Options: wrap(fixedTimeout("read_file", 30*time.Second)),
		},
		{
			Name: "read-file-no-own-timeout", Doc: "read_file has no timeout of its own: [tools.timeouts] file_operations_seconds is ignored and the context default (default_seconds) applies",
			Specs: []string{"tool_executor"}, Run: []string{"tool_executor/read-file-timeout"},
			// CFG-TMO-01a is a SHOULD: its failure is a warning, which
			// only a strict run fails.
			Strict:  true,
			Breaks:  ids("tool_executor", "CFG-TMO-01a"),
			Options: wrap(noOwnTimeout("read_file")),
		},
		{
			Name: "search-files-fixed-timeout", Doc: "search_files runs under a fixed 30 s limit of its own, ignoring both [tools.timeouts] file_operations_seconds and default_seconds: a listing slower than the configured limit ends with the search's own answer instead of Timeout",
			Specs: []string{"tool_executor"}, Run: []string{"search_files/search-outlives-any-timeout"},
			Breaks:  ids("tool_executor", "FR-EXE-03"),
			Options: wrap(fixedTimeout("search_files", 30*time.Second)),
		},
		{
			Name: "search-files-no-own-timeout", Doc: "search_files has no timeout of its own: [tools.timeouts] file_operations_seconds is ignored and the context default (default_seconds) applies",
			Specs: []string{"tool_executor"}, Run: []string{"search_files/search-files-timeout"},
			// CFG-TMO-01a is a SHOULD: a strict run fails its warning.
			Strict:  true,
			Breaks:  ids("tool_executor", "CFG-TMO-01a"),
			Options: wrap(noOwnTimeout("search_files")),
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

// shellLimit is a tool whose own timeout is [tools.timeouts]
// shell_commands_seconds, whatever the tool does.
type shellLimit struct{ tool.Tool }

func (shellLimit) Timeout(cfg config.Config) time.Duration {
	return tool.Seconds(tool.LoadTimeouts(cfg).ShellCommandsSeconds)
}

// shellTimeout gives the tool called name the shell commands' timeout.
func shellTimeout(name string) func(tool.Tool) tool.Tool {
	return func(t tool.Tool) tool.Tool {
		if t.Name() != name {
			return t
		}
		return shellLimit{t}
	}
}
