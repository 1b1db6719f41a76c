package runner_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/forge-conform/forge-conform/conformance/leftover"
	"github.com/forge-conform/forge-conform/conformance/runner"
)

// TestSweepDirs: the temp dirs of a dead runner go, unreadable corners
// included; a live runner's and an older run's (no owner in the name)
// stay.
func TestSweepDirs(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	self := leftover.Self()
	dead := leftover.Owner{Pid: cmd.Process.Pid, Start: self.Start, NS: self.NS}
	tmp := t.TempDir()
	stale := filepath.Join(tmp, "forge-conform-run@"+dead.String()+"-1")
	live := filepath.Join(tmp, leftover.Name("layouts")+"2")
	old := filepath.Join(tmp, "forge-conform-3")
	for _, d := range []string{filepath.Join(stale, "root", "locked"), live, old} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(stale, "root"), 0o500); err != nil {
		t.Fatal(err)
	}
	done := runner.Sweep(tmp)
	if !slices.Contains(done, "temp dir "+stale) {
		t.Errorf("Sweep removed %q; want temp dir %s among them", done, stale)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the dead runner's dir is still there: %v", err)
	}
	for _, d := range []string{live, old} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("Sweep removed %s: %v", d, err)
		}
	}
}

// BenchmarkSweep is what every runner start pays when nothing is left:
// the mount table, the cgroup directory, /proc and the temp dir are read.
func BenchmarkSweep(b *testing.B) {
	tmp := b.TempDir()
	for b.Loop() {
		if done := runner.Sweep(tmp); len(done) > 0 {
			b.Logf("swept %q", done)
		}
	}
}
