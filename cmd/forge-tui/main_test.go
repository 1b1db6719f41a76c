package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestCommandLine: the mistakes forge-tui reports before it starts a turn
// (exit 2), and -h.
func TestCommandLine(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no turn", nil, 2, "give --case NAME"},
		{"both", []string{"--case", "tool_executor/tui-prompt", "--turn", "x.json"}, 2, "give --case or --turn, not both"},
		{"unknown case", []string{"--case", "nope"}, 2, `no turn case "nope"; the turn cases are: `},
		{"not a turn case", []string{"--case", "list_directory/default-args"}, 2, `no turn case "list_directory/default-args"`},
		{"missing turn file", []string{"--turn", "/nonexistent/turn.json"}, 2, "reading the turn request"},
		{"bad policy", []string{"--policy", "nope=1", "--case", "tool_executor/tui-prompt"}, 2, `--policy: unknown policy "nope"`},
		{"unknown mutant", []string{"--mutant", "nope", "--case", "tool_executor/tui-prompt"}, 2, `unknown mutant "nope"`},
		{"bad reading", []string{"--reading", "nope", "--case", "tool_executor/tui-prompt"}, 2, "--reading: "},
		{"argument", []string{"--case", "tool_executor/tui-prompt", "extra"}, 2, `unexpected argument "extra"`},
		{"unknown flag", []string{"--tui"}, 2, "flag provided but not defined: -tui"},
		{"help", []string{"-h"}, 0, "usage: forge-tui"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, strings.NewReader(""), &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, tt.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stderr does not say %q:\n%s", tt.stderr, stderr.String())
			}
		})
	}
}
