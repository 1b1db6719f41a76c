package runner

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

func TestWithPath(t *testing.T) {
	for _, c := range []struct {
		name string
		env  []string
		want []string
	}{
		{"prepended", []string{"A=1", "PATH=/usr/bin:/bin"}, []string{"A=1", "PATH=/fake:/usr/bin:/bin"}},
		{"last PATH wins", []string{"PATH=/x", "B=2", "PATH=/y"}, []string{"B=2", "PATH=/fake:/y"}},
		{"no PATH", []string{"A=1"}, []string{"A=1", "PATH=/fake"}},
	} {
		if got := WithPath(c.env, "/fake"); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestFakeScript: the old backends print their banner for --version and
// -V, and otherwise find nothing (exit 1, no output).
func TestFakeScript(t *testing.T) {
	p := filepath.Join(t.TempDir(), "rg")
	if err := os.WriteFile(p, []byte(fakeScript(oldBackends["rg"])), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		out  string
		code int
	}{
		{[]string{"--version"}, "ripgrep 0.0.0\n", 0},
		{[]string{"-V"}, "ripgrep 0.0.0\n", 0},
		{[]string{"--no-config", "-e", "x", "."}, "", 1},
	} {
		out, err := exec.Command(p, c.args...).Output()
		code := 0
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if string(out) != c.out || code != c.code {
			t.Errorf("%q: %q exit %d, want %q exit %d", c.args, out, code, c.out, c.code)
		}
	}
}
