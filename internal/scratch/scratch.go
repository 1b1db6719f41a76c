// Package scratch moves a test binary's temporary files to memory when it
// can: the suite's tests materialize tens of thousands of small fixture
// files, and creating a file costs about 200 µs on the ext4 disks of our CI
// machines against about 12 µs on tmpfs, which made `go test ./...` mostly
// wait on the disk.
//
// Wrap a TestMain's m (os.Exit(scratch.Wrap(m).Run())): when TMPDIR is
// unset and /dev/shm is a writable tmpfs, the tests run with TMPDIR set to a
// fresh directory there (mode 1777, like /tmp, so tests that run a command
// as nobody can reach their files), removed afterwards. A TMPDIR the user
// set is kept; without tmpfs nothing changes. A directory left by a test
// binary killed mid-run is removed by the next one. Nothing the tests check
// depends on the filesystem's kind: fixtures declare their own modes and
// times. The runner itself puts its fixtures on the same RAM filesystem by
// default (RAMDir), so the CLI's main job runs there too unless TMPDIR is
// set.
package scratch

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/conformance/leftover"
)

// Runner is what a TestMain runs: *testing.M, or testscript's TestingM.
type Runner interface{ Run() int }

// M runs a Runner with TMPDIR on tmpfs where it can.
type M struct{ m Runner }

// Wrap returns m's run with its temporary files on tmpfs where it can.
func Wrap(m Runner) M { return M{m: m} }

// Run runs the tests, with TMPDIR pointing to a fresh tmpfs directory when
// TMPDIR is unset and /dev/shm is a writable tmpfs, and removes that
// directory afterwards.
func (w M) Run() int {
	dir, ok := memDir()
	if !ok {
		return w.m.Run()
	}
	defer removeAll(dir)
	if err := os.Setenv("TMPDIR", dir); err != nil {
		fmt.Fprintf(os.Stderr, "scratch: setting TMPDIR: %v\n", err)
		return w.m.Run()
	}
	defer os.Unsetenv("TMPDIR")
	return w.m.Run()
}

// memDir makes a fresh directory on /dev/shm, or reports false when TMPDIR
// is set or /dev/shm is not a writable tmpfs.
func memDir() (string, bool) {
	if _, ok := RAMDir(0); !ok {
		return "", false
	}
	for _, old := range leftover.Stale(shm) { // from a test binary killed mid-run
		if kind, _, _ := leftover.Parse(filepath.Base(old)); kind == "scratch" {
			removeAll(old)
		}
	}
	dir, err := os.MkdirTemp(shm, leftover.Name("scratch"))
	if err != nil {
		return "", false
	}
	if err := os.Chmod(dir, 0o777|fs.ModeSticky); err != nil {
		_ = os.Remove(dir)
		return "", false
	}
	return dir, true
}

// removeAll removes dir, unreadable directories a test left included.
func removeAll(dir string) {
	if err := fixture.RemoveAll(dir); err != nil {
		fmt.Fprintf(os.Stderr, "scratch: removing %s: %v\n", dir, err)
	}
}
