package mutants

import (
	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/executor/policy"
)

// argsDefaultMutants are defects of FR-LIM-03's default: the loop policy
// with no max_tool_args_bytes key (I-EXE-34).
func argsDefaultMutants() []Mutant {
	return []Mutant{
		{
			Name: "args-default-doubled", Doc: "with no max_tool_args_bytes key the executor allows 512 KB of arguments instead of 256 KB",
			Specs: []string{"tool_executor"}, Run: turnRun,
			Breaks:  ids("tool_executor", "FR-LIM-03"),
			Options: engine(executor.Options{Policy: doubledArgsDefault}),
		},
	}
}

// doubledArgsDefault loads the loop policy with twice the default
// max_tool_args_bytes; a configured value is kept.
func doubledArgsDefault(cfg config.Config) (policy.Loop, error) {
	l, err := policy.Load(cfg)
	if _, set := cfg.Tools["max_tool_args_bytes"]; !set {
		l.MaxArgsBytes *= 2
	}
	return l, err
}
