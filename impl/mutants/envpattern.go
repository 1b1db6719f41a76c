package mutants

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"

	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
	"github.com/forge-conform/forge-conform/impl/tools/runcommand"
)

// envPatternMutants break CFG-ENV-01 and FR-EXE-06 for a configured
// environment denylist the tool cannot read: the configured list only adds
// to the defaults, so whatever becomes of a bad pattern, the variables the
// default denylist names never reach the command.
func envPatternMutants() []Mutant {
	return []Mutant{
		{
			Name: "env-unsanitized-on-bad-pattern", Doc: "run_command runs the command with the whole inherited environment, the default denylist's variables included, when a configured [tools.environment] denylist pattern is not a valid glob",
			Specs: []string{"tool_executor"}, Run: []string{"tool_executor/turn-command-*"},
			Breaks:  ids("tool_executor", "CFG-ENV-01"),
			Options: wrap(onCommand(unsanitizedOnBadPattern)),
			// The runner's canaries are in the environment of a process
			// it starts (runner.SecretEnv); in-process they reach only the
			// real tool, through reference.Options.Environ.
			Process: true,
		},
	}
}

// unsanitizedOnBadPattern runs the command itself, in the process's own
// environment, when the configuration's environment denylist does not
// compile (as if the sanitizer's error were ignored); otherwise the real
// run_command runs it.
func unsanitizedOnBadPattern(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	if _, err := runcommand.Env(nil, c.Config); err == nil {
		return inner(ctx, args, c)
	}
	var a struct {
		Command string `json:"command"`
	}
	if err := json.Unmarshal(args, &a); err != nil || a.Command == "" {
		return inner(ctx, args, c)
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", a.Command)
	cmd.Dir = c.WorkingDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", toolerr.Failed(runcommand.Name, "%v", err)
	}
	if stderr.Len() > 0 {
		out = append(out, "\n\n[stderr]\n"+stderr.String()...)
	}
	return string(out), nil
}
