package scratch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// runFunc is a Runner made of a function.
type runFunc func() int

func (f runFunc) Run() int { return f() }

func TestWrap(t *testing.T) {
	var st unix.Statfs_t
	if err := unix.Statfs(shm, &st); err != nil || st.Type != unix.TMPFS_MAGIC {
		t.Skipf("%s is not a tmpfs here: Wrap leaves TMPDIR alone, which the TMPDIR-set case covers", shm)
	}
	// t.Setenv then Unsetenv: TMPDIR unset for the run, restored after.
	t.Setenv("TMPDIR", "")
	os.Unsetenv("TMPDIR")

	var dir string
	code := Wrap(runFunc(func() int {
		dir = os.Getenv("TMPDIR")
		fi, err := os.Stat(dir)
		if err != nil {
			t.Fatalf("TMPDIR %q: %v", dir, err)
		}
		if fi.Mode().Perm() != 0o777 || fi.Mode()&os.ModeSticky == 0 {
			t.Errorf("TMPDIR mode %v, want drwxrwxrwt like /tmp", fi.Mode())
		}
		// A test that leaves a directory it cannot read still gets it removed.
		locked := filepath.Join(dir, "locked", "inner")
		if err := os.MkdirAll(locked, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Dir(locked), 0); err != nil {
			t.Fatal(err)
		}
		return 7
	})).Run()

	if code != 7 {
		t.Errorf("Run returned %d, want the tests' 7", code)
	}
	if !strings.HasPrefix(dir, shm+"/forge-conform-scratch@") {
		t.Errorf("TMPDIR during the run = %q, want a forge-conform-scratch@ directory under %s", dir, shm)
	}
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("%s still exists after the run (err %v)", dir, err)
	}
	if _, set := os.LookupEnv("TMPDIR"); set {
		t.Errorf("TMPDIR still set after the run")
	}
}

func TestWrapKeepsUsersTMPDIR(t *testing.T) {
	want := t.TempDir()
	t.Setenv("TMPDIR", want)
	var got string
	Wrap(runFunc(func() int { got = os.Getenv("TMPDIR"); return 0 })).Run()
	if got != want {
		t.Errorf("TMPDIR during the run = %q, want the user's %q", got, want)
	}
}
