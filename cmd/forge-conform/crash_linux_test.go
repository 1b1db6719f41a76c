package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moby/sys/mountinfo"
	"golang.org/x/sys/unix"

	"github.com/forge-conform/forge-conform/conformance/fusefault"
	"github.com/forge-conform/forge-conform/conformance/leftover"
)

// TestRunnerCrashLeavesNothing: a runner killed with SIGKILL in the middle
// of a case leaves its temp dir, the FUSE mount of a fault fixture, its
// implementation's cgroup (or, without cgroups, its marked processes) and
// the implementation's setsid grandchild behind; the next runner's start
// removes them all.
func TestRunnerCrashLeavesNothing(t *testing.T) {
	bin, err := exec.LookPath("forge-conform") // TestMain put it on PATH
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	// As root the runner checks that nobody can reach its temp dir.
	for _, d := range []string{tmp, filepath.Dir(tmp)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pidFile := filepath.Join(t.TempDir(), "grandchild.pids")
	// A fault fixture is mounted through FUSE for a binary; without FUSE
	// the case would be skipped, so a plain one runs instead.
	caseName := "list_directory/metadata-error-codes"
	if err := fusefault.Probe(tmp); err != nil {
		t.Logf("FUSE is not usable here (%v): crashing without a mount", err)
		caseName = "list_directory/default-args"
	}
	cmd := exec.Command(bin, "--binary", "fcp-grandchild-setsid", "--run-as", "root", "--timeout", "120s", "--run", caseName)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "FCP_GRANDCHILD_PIDFILE="+pidFile)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	runner := cmd.Process.Pid
	owned := func(name string) bool {
		_, o, ok := leftover.Parse(filepath.Base(name))
		return ok && o.Pid == runner
	}

	// Wait until the case runs: the grandchild started, the fixture is
	// mounted when it should be.
	var left crashLeft
	deadline := time.Now().Add(60 * time.Second)
	for {
		left = findLeft(t, runner, tmp, pidFile, owned)
		if left.grandchild > 0 && len(left.dirs) > 0 && (caseName == "list_directory/default-args" || len(left.mounts) > 0) {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("the runner did not reach its case within 60s: %+v\n%s", left, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Cleanup(func() { left.remove() }) // whatever a failure leaves
	if left.cgroup == "" {
		t.Logf("no cgroup of the runner's (cgroup v2 not writable here): the subreaper's marked processes stand for it")
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	// The crash left everything behind (another test process's runner
	// may sweep the mount, the cgroup and the processes first; the temp
	// dir, in this test's TMPDIR, waits for ours).
	after := findLeft(t, runner, tmp, pidFile, owned)
	if len(after.dirs) == 0 {
		t.Fatalf("the killed runner left no temp dir (%+v): nothing to test", after)
	}
	t.Logf("the killed runner left %+v (grandchild alive: %v)", after, alive(left.grandchild))

	// The next runner sweeps it.
	next := exec.Command(bin, "--run", "list_directory/default-args")
	next.Env = append(os.Environ(), "TMPDIR="+tmp)
	if b, err := next.CombinedOutput(); err != nil {
		t.Fatalf("the next runner: %v\n%s", err, b)
	}
	gone := findLeft(t, runner, tmp, pidFile, owned)
	for _, p := range append([]int{left.grandchild}, left.procs...) {
		if alive(p) {
			t.Errorf("process %d of the killed runner still runs", p)
		}
	}
	if gone.cgroup != "" || len(gone.dirs) > 0 || len(gone.mounts) > 0 {
		t.Errorf("the next runner left %+v of the killed runner's", gone)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) > 0 {
		t.Errorf("TMPDIR still holds %v", entries)
	}
}

// crashLeft is what a runner owns: the setsid grandchild of its
// implementation, its processes (the implementation and its children), its
// implementation's cgroup, its temp dirs and its FUSE mounts.
type crashLeft struct {
	grandchild int
	procs      []int
	cgroup     string
	dirs       []string
	mounts     []string
}

// remove kills and removes l, after a failed test.
func (l crashLeft) remove() {
	for _, p := range append([]int{l.grandchild}, l.procs...) {
		if p > 0 && alive(p) {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	}
	for _, m := range l.mounts {
		_ = unix.Unmount(m, unix.MNT_DETACH)
	}
	if l.cgroup != "" {
		_ = os.WriteFile(filepath.Join(l.cgroup, "cgroup.kill"), []byte("1"), 0)
		for i := 0; i < 100 && os.Remove(l.cgroup) != nil; i++ {
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// findLeft finds what runner owns.
func findLeft(t *testing.T, runner int, tmp, pidFile string, owned func(string) bool) crashLeft {
	t.Helper()
	var l crashLeft
	if b, err := os.ReadFile(pidFile); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			l.grandchild, _ = strconv.Atoi(f[0])
		}
	}
	entries, _ := os.ReadDir(tmp)
	for _, e := range entries {
		if owned(e.Name()) {
			l.dirs = append(l.dirs, filepath.Join(tmp, e.Name()))
		}
	}
	ms, err := mountinfo.GetMounts(mountinfo.FSTypeFilter("fuse.fusefault"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if owned(m.Source) {
			l.mounts = append(l.mounts, m.Mountpoint)
		}
	}
	// The runner's implementation is its child; the grandchild's cgroup
	// is the implementation's.
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		if ppid(pid) == runner || marked(pid, runner) {
			l.procs = append(l.procs, pid)
		}
	}
	if l.grandchild > 0 && alive(l.grandchild) {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", l.grandchild)); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if rest, ok := strings.CutPrefix(line, "0::"); ok && owned(rest) {
					if cg, err := mountinfo.GetMounts(mountinfo.FSTypeFilter("cgroup2")); err == nil && len(cg) > 0 {
						l.cgroup = filepath.Join(cg[0].Mountpoint, rest)
					}
				}
			}
		}
	}
	if l.cgroup != "" {
		if _, err := os.Stat(l.cgroup); err != nil {
			l.cgroup = ""
		}
	}
	return l
}

// ppid is pid's parent, or 0.
func ppid(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// marked reports whether pid carries the tree marker of runner (the
// subreaper fallback).
func marked(pid, runner int) bool {
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	return err == nil && bytes.Contains(env, []byte(fmt.Sprintf("FORGE_CONFORM_TREE=forge-conform-tree@%d.", runner)))
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || (b[i+2] != 'Z' && b[i+2] != 'X')
}
