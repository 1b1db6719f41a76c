package policy

import (
	"encoding/json"
	"testing"

	"github.com/forge-conform/forge-conform/impl/config"
)

func TestDecide(t *testing.T) {
	read := Tool{Name: "read_file"}
	write := Tool{Name: "write_file", SideEffecting: true}
	cmd := Tool{Name: "run_command", SideEffecting: true, RequiresApproval: true}
	guarded := Tool{Name: "fcp_guarded", RequiresApproval: true}
	pass := func() bool { return true }
	fail := func() bool { return false }
	tests := []struct {
		id      string
		a       Approval
		t       Tool
		sandbox Step
		want    Verdict
		stopped bool
	}{
		{"FR-APR-04a disabled", Approval{Enabled: false, Mode: Auto}, read, pass, DeniedDisabled, false},
		{"FR-APR-05 disabled before denylist", Approval{Enabled: false, Mode: Auto, Denylist: []string{"read_file"}}, read, pass, DeniedDisabled, false},
		{"FR-APR-04b denylist in auto", Approval{Enabled: true, Mode: Auto, Denylist: []string{"read_file"}}, read, pass, DeniedDenylist, false},
		{"FR-APR-04b denylist beats allowlist", Approval{Enabled: true, Mode: Prompt, Allowlist: []string{"read_file"}, Denylist: []string{"read_file"}}, read, pass, DeniedDenylist, false},
		{"FR-APR-05 denylist before sandbox", Approval{Enabled: true, Mode: Auto, Denylist: []string{"read_file"}}, read, fail, DeniedDenylist, false},
		{"FR-APR-05 sandbox before mode", Approval{Enabled: true, Mode: Deny}, read, fail, Execute, true},
		{"FR-APR-04c deny mode not allowlisted", Approval{Enabled: true, Mode: Deny}, read, pass, DeniedNotAllowed, false},
		{"FR-APR-04c deny mode allowlisted", Approval{Enabled: true, Mode: Deny, Allowlist: []string{"read_file"}}, read, pass, Execute, false},
		{"FR-APR-04c deny mode allowlisted still requires_approval", Approval{Enabled: true, Mode: Deny, Allowlist: []string{"fcp_guarded"}}, guarded, pass, Confirm, false},
		{"FR-APR-04d prompt side effects", Approval{Enabled: true, Mode: Prompt, PromptSideEffects: true}, write, pass, Confirm, false},
		{"FR-APR-04d prompt side effects allowlisted", Approval{Enabled: true, Mode: Prompt, PromptSideEffects: true, Allowlist: []string{"write_file"}}, write, pass, Execute, false},
		{"FR-APR-04d prompt without prompt_side_effects", Approval{Enabled: true, Mode: Prompt}, write, pass, Execute, false},
		{"FR-APR-04d read-only in prompt", Approval{Enabled: true, Mode: Prompt, PromptSideEffects: true}, read, pass, Execute, false},
		{"FR-APR-04d allowlisted but tool-required", Approval{Enabled: true, Mode: Prompt, PromptSideEffects: true, Allowlist: []string{"run_command"}}, cmd, pass, Confirm, false},
		{"FR-APR-04e auto still requires_approval", Approval{Enabled: true, Mode: Auto}, guarded, pass, Confirm, false},
		{"auto executes", Approval{Enabled: true, Mode: Auto}, write, pass, Execute, false},
		{"I-EXE-23 prompt-read-only asks for read-only", Approval{Enabled: true, Mode: Prompt, PromptUnlisted: true}, read, pass, Confirm, false},
		{"I-EXE-23 prompt-read-only allowlisted", Approval{Enabled: true, Mode: Prompt, PromptUnlisted: true, Allowlist: []string{"read_file"}}, read, pass, Execute, false},
		{"I-EXE-23 prompt-read-only not in auto", Approval{Enabled: true, Mode: Auto, PromptUnlisted: true}, read, pass, Execute, false},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			v, stopped := tc.a.Decide(tc.t, tc.sandbox)
			if v != tc.want || stopped != tc.stopped {
				t.Errorf("Decide = %v, stopped %v; want %v, %v", v, stopped, tc.want, tc.stopped)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	l, err := Load(config.Config{})
	if err != nil {
		t.Fatal(err)
	}
	// FR-LIM-01..03 defaults, run_command denylisted (FR-TOOL-CMD-01).
	if l.MaxCallsPerBatch != 8 || l.MaxIterationsPerTurn != 4 || l.MaxArgsBytes != 262144 ||
		l.Approval.Denylist[0] != "run_command" || !l.Approval.Enabled || l.Approval.Mode != Prompt {
		t.Errorf("defaults: %+v", l)
	}
	cfg, _ := config.Parse(json.RawMessage(`{"tools":{"mode":"enabled","max_tool_calls_per_batch":2,
		"approval":{"denylist":[],"mode":"auto"},"definitions":[{"name":"x","description":"d","parameters":{"type":"object"}}]}}`))
	l, err = Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if l.Mode != Enabled || l.MaxCallsPerBatch != 2 || len(l.Approval.Denylist) != 0 || l.Approval.Mode != Auto ||
		!l.Approval.Enabled || len(l.Definitions) != 1 {
		t.Errorf("configured: %+v", l)
	}
	for _, bad := range []string{`{"tools":{"mode":"on"}}`, `{"tools":{"max_tool_calls_per_batch":-1}}`,
		`{"tools":{"approval":{"mode":"ask"}}}`, `{"tools":{"definitions":{}}}`} {
		cfg, _ := config.Parse(json.RawMessage(bad))
		if _, err := Load(cfg); err == nil {
			t.Errorf("%s: want an error", bad)
		}
	}
}
