package fcpclient

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/forge-conform/forge-conform/conformance/leftover"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// TestTreeKillsSetsidGrandchild: a grandchild that leaves the process group
// with setsid is killed with the implementation, by the cgroup and by the
// subreaper fallback, in a session and in one-shot mode.
func TestTreeKillsSetsidGrandchild(t *testing.T) {
	_, cgErr := ownCgroup()
	if cgErr == nil {
		probe, err := newCgroupTree()
		if err != nil {
			cgErr = err
		} else {
			probe.release()
		}
	}
	for _, noCgroup := range []bool{false, true} {
		for _, oneshot := range []bool{false, true} {
			name := map[bool]string{false: "cgroup", true: "subreaper"}[noCgroup] + map[bool]string{false: "/session", true: "/oneshot"}[oneshot]
			t.Run(name, func(t *testing.T) {
				if !noCgroup && cgErr != nil {
					t.Skipf("cgroup v2 not writable here: %v", cgErr)
				}
				noLeaks(t)
				o := opts("spawn-grandchild-and-hang", "setsid")
				o.NoCgroup = noCgroup
				var resp fcp.Response
				var pid int
				if oneshot {
					var err error
					resp, _, _, err = OneShot(ctxTimeout(t, 5*time.Second), o, fcp.Request{Op: fcp.OpHello})
					if protocolError(t, err).Kind != KindTimeout {
						t.Errorf("got %v, want a timeout waiting for the exit", err)
					}
				} else {
					s, err := Start(context.Background(), o)
					if err != nil {
						t.Fatal(err)
					}
					pid = s.Pid()
					if got := s.p.tree.mode(); got != map[bool]string{false: "cgroup", true: "subreaper"}[noCgroup] {
						t.Errorf("tree mode %s", got)
					}
					cg := s.p.tree.cgroup
					if resp, err = s.Hello(ctxTimeout(t, 5*time.Second)); err != nil {
						t.Fatal(err)
					}
					if _, _, err := s.Do(ctxTimeout(t, 300*time.Millisecond), fcp.Request{Op: fcp.OpCall}); err == nil {
						t.Error("a hanging call answered")
					}
					_ = s.Close()
					waitGone(t, "implementation", pid)
					if cg != "" {
						if _, err := os.Stat(cg); !os.IsNotExist(err) {
							t.Errorf("cgroup %s not removed: %v", cg, err)
						}
					}
				}
				gc, _ := strconv.Atoi(resp.Implementation.Version)
				if gc <= 0 {
					t.Fatalf("no grandchild pid in %+v", resp)
				}
				waitGone(t, "setsid grandchild", gc)
			})
		}
	}
}

// deadOwner is the owner of a process that has exited and been reaped.
func deadOwner(t *testing.T) leftover.Owner {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	self := leftover.Self()
	return leftover.Owner{Pid: cmd.Process.Pid, Start: self.Start, NS: self.NS}
}

// sleeper starts `sleep 300` with the extra environment, in the cgroup
// cgroupDir when given; the test's cleanup kills and reaps it.
func sleeper(t *testing.T, cgroupDir string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "300")
	cmd.Env = append(os.Environ(), env...)
	if cgroupDir != "" {
		fd, err := unix.Open(cgroupDir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(fd)
		cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot start a process in cgroup %s: %v", cgroupDir, err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// TestSweep: the cgroups and marked processes of a dead runner are killed
// and removed; a live runner's stay.
func TestSweep(t *testing.T) {
	dead := deadOwner(t)
	t.Run("marked processes", func(t *testing.T) {
		stray := sleeper(t, "", treeMarkerVar+"=forge-conform-tree@"+dead.String()+"-0123")
		mine := sleeper(t, "", treeMarkerVar+"="+leftover.Name("tree")+"0123")
		deadline := time.Now().Add(5 * time.Second)
		for !slices.Contains(strayMarked(), stray.Process.Pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond) // until exec has put the marker in place
		}
		swept := Sweep()
		if !slices.Contains(swept, "process "+strconv.Itoa(stray.Process.Pid)) {
			t.Errorf("Sweep removed %q; want the stray process %d among them", swept, stray.Process.Pid)
		}
		if err := stray.Wait(); err == nil {
			t.Error("the stray process exited 0; want it killed")
		}
		if !Alive(mine.Process.Pid) {
			t.Error("Sweep killed a live runner's process")
		}
	})
	t.Run("cgroups", func(t *testing.T) {
		parent, err := ownCgroup()
		if err == nil {
			var probe *tree
			if probe, err = newCgroupTree(); err == nil {
				probe.release()
			}
		}
		if err != nil {
			t.Skipf("cgroup v2 not writable here: %v", err)
		}
		stale := filepath.Join(parent, "forge-conform-impl@"+dead.String()+"-0123")
		live, err := os.MkdirTemp(parent, leftover.Name("impl"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(stale, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = removeCgroup(live); _ = removeCgroup(stale) })
		inStale, inLive := sleeper(t, stale), sleeper(t, live)
		swept := Sweep()
		if !slices.Contains(swept, "cgroup "+stale) {
			t.Errorf("Sweep removed %q; want cgroup %s among them", swept, stale)
		}
		if err := inStale.Wait(); err == nil {
			t.Error("the stale cgroup's process exited 0; want it killed")
		}
		if _, err := os.Stat(stale); !os.IsNotExist(err) {
			t.Errorf("the stale cgroup is still there: %v", err)
		}
		if !Alive(inLive.Process.Pid) {
			t.Error("Sweep killed a process of a live runner's cgroup")
		}
		if _, err := os.Stat(live); err != nil {
			t.Errorf("Sweep removed a live runner's cgroup: %v", err)
		}
	})
}
