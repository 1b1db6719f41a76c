package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoBubbleTea keeps the TUI's libraries out of forge-conform: Bubble
// Tea queries the terminal when its package initializes (OSC 11 for the
// background colour, CSI 6n for the cursor), which forge-conform would
// then do before every command on a terminal (issue 17). The TUI is
// cmd/forge-tui, which `forge-conform ref --tui` runs.
func TestNoBubbleTea(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed %d packages: %q", len(deps), deps)
	}
	for _, d := range deps {
		for _, h := range []string{
			"github.com/charmbracelet/bubbletea",
			"github.com/charmbracelet/bubbles/",
			"github.com/charmbracelet/lipgloss",
			"github.com/muesli/termenv",
			"github.com/forge-conform/forge-conform/impl/tui/program",
		} {
			if d == strings.TrimSuffix(h, "/") || strings.HasSuffix(h, "/") && strings.HasPrefix(d, h) {
				t.Errorf("forge-conform links %s: the TUI belongs in cmd/forge-tui (its init queries the terminal)", d)
			}
		}
	}
}

// TestNoTerminalQueries runs the built forge-conform under a
// pseudo-terminal (script(1)) and checks that it writes no terminal query
// (OSC 11 "ESC ] 11 ;", CSI 6n "ESC [ 6 n").
func TestNoTerminalQueries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds forge-conform")
	}
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) is not installed: no pseudo-terminal to run forge-conform on")
	}
	bin := filepath.Join(t.TempDir(), "forge-conform")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, args := range []string{"--run list_directory/default-args", "list --run list_directory/default-args"} {
		t.Run(strings.Fields(args)[0], func(t *testing.T) {
			cmd := exec.Command(script, "-qec", bin+" "+args, "/dev/null")
			cmd.Dir = t.TempDir()
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				t.Fatalf("script -qec %q: %v\n%q", bin+" "+args, err, out.String())
			}
			if out.Len() == 0 || !bytes.Contains(out.Bytes(), []byte("\n")) {
				t.Fatalf("no line on the terminal: %q", out.String())
			}
			for _, q := range []string{"\x1b]11;", "\x1b[6n"} {
				if i := strings.Index(out.String(), q); i >= 0 {
					t.Errorf("forge-conform %s wrote the terminal query %q at byte %d: %q", args, q, i, out.String()[:min(out.Len(), i+40)])
				}
			}
		})
	}
}

// TestRefTUIMissing: without forge-tui beside forge-conform or on PATH,
// `ref --tui` exits 2 and says how to build it.
func TestRefTUIMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var stdout, stderr bytes.Buffer
	code := run([]string{"ref", "--tui", "--case", "tool_executor/tui-prompt"}, strings.NewReader(""), &stdout, &stderr)
	if code != exitHarness {
		t.Errorf("exit status %d, want %d", code, exitHarness)
	}
	if want := "go install ./cmd/forge-tui"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr does not say %q:\n%s", want, stderr.String())
	}
}
