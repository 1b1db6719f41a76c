package scratch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runFunc is a Runner made of a function.
type runFunc func() int

func (f runFunc) Run() int { return f() }

func TestWrap(t *testing.T) {
	if _, ok := tmpfsFree(shm); !ok {
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

func TestRAMDir(t *testing.T) {
	_, tmpfs := tmpfsFree(shm)
	tests := []struct {
		name    string
		tmpdir  *string // nil: unset
		minFree uint64
		want    bool
	}{
		{name: "TMPDIR unset", want: tmpfs},
		{name: "TMPDIR set", tmpdir: ptr(t.TempDir()), want: false},
		{name: "TMPDIR set but empty", tmpdir: ptr(""), want: false},
		{name: "too little room", minFree: 1 << 62, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("TMPDIR", "")
			if tt.tmpdir == nil {
				os.Unsetenv("TMPDIR")
			} else {
				os.Setenv("TMPDIR", *tt.tmpdir)
			}
			dir, ok := RAMDir(tt.minFree)
			if ok != tt.want || (ok && dir != shm) {
				t.Errorf("RAMDir(%d) = %q, %v; want %v (and %s)", tt.minFree, dir, ok, tt.want, shm)
			}
		})
	}
}

func ptr(s string) *string { return &s }
