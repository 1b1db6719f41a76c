package fcpclient

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/moby/sys/mountinfo"
	"golang.org/x/sys/unix"

	"github.com/forge-conform/forge-conform/conformance/leftover"
)

// A tree confines every process an implementation starts, so that finish
// can kill all of them, setsid escapees included (a process that leaves the
// process group with setsid cannot leave its cgroup):
//
//   - when the cgroup v2 hierarchy is writable, the implementation starts
//     in a cgroup of its own (clone3 CLONE_INTO_CGROUP, so not even its
//     first instruction runs outside), and finish kills the cgroup
//     (cgroup.kill, or freeze and kill each member on kernels before 5.14)
//     and removes it;
//   - otherwise the runner becomes a child subreaper (PR_SET_CHILD_SUBREAPER),
//     so orphans are re-parented to it instead of to init, and the
//     implementation runs with a marker in its environment: finish kills
//     the leader's descendants (by parent pid) and every process that
//     carries the marker, until none is left, and reaps those re-parented
//     to the runner.
//
// Both come on top of the process group, which finish kills first.
type tree struct {
	// cgroup is the implementation's cgroup directory; "" when the
	// subreaper fallback is in use.
	cgroup string
	fd     int // an O_PATH descriptor of cgroup, for CLONE_INTO_CGROUP; -1 without
	// marker is NAME=VALUE in the environment of the fallback's processes.
	marker string
}

// treeMarkerVar is the environment variable that marks an implementation's
// processes in the subreaper fallback.
const treeMarkerVar = "FORGE_CONFORM_TREE"

// newTree prepares the confinement for one implementation process: a new
// cgroup under the runner's own when that works and noCgroup is false, the
// subreaper fallback otherwise.
func newTree(noCgroup bool) *tree {
	if !noCgroup {
		if t, err := newCgroupTree(); err == nil {
			return t
		}
	}
	return newSubreaperTree()
}

func newSubreaperTree() *tree {
	var b [8]byte
	_, _ = rand.Read(b[:])
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	return &tree{fd: -1, marker: treeMarkerVar + "=" + leftover.Name("tree") + hex.EncodeToString(b[:])}
}

// newCgroupTree creates a cgroup for one implementation below the runner's
// own cgroup v2.
func newCgroupTree() (*tree, error) {
	parent, err := ownCgroup()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(parent, leftover.Name("impl"))
	if err != nil {
		return nil, fmt.Errorf("creating a cgroup under %s: %w", parent, err)
	}
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		_ = os.Remove(dir)
		return nil, fmt.Errorf("opening cgroup %s: %w", dir, err)
	}
	return &tree{cgroup: dir, fd: fd}, nil
}

// ownCgroup returns the directory of the runner's cgroup in the cgroup v2
// hierarchy (a pure v2 system, or the unified hierarchy of a hybrid one).
func ownCgroup() (string, error) {
	mnt, err := cgroup2Mount()
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "0::"); ok {
			return filepath.Join(mnt, filepath.Clean("/"+rest)), nil
		}
	}
	return "", errors.New("no cgroup v2 entry in /proc/self/cgroup")
}

// cgroup2Mount returns where the cgroup v2 hierarchy is mounted.
func cgroup2Mount() (string, error) {
	ms, err := mountinfo.GetMounts(func(m *mountinfo.Info) (skip, stop bool) {
		return m.FSType != "cgroup2" || m.Root != "/", false
	})
	if err != nil {
		return "", err
	}
	if len(ms) == 0 {
		return "", errors.New("no cgroup2 filesystem mounted")
	}
	return ms[0].Mountpoint, nil
}

// mode says how the tree confines, for messages and tests.
func (t *tree) mode() string {
	if t.cgroup != "" {
		return "cgroup"
	}
	return "subreaper"
}

// apply sets what starting the process needs: the cgroup to start in, or
// the marker in the environment.
func (t *tree) apply(cmd *exec.Cmd) {
	if t.cgroup != "" {
		cmd.SysProcAttr.UseCgroupFD = true
		cmd.SysProcAttr.CgroupFD = t.fd
		return
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(env[:len(env):len(env)], t.marker)
}

// kill sends SIGKILL to every process of the tree: the process group of
// leader, then the cgroup or the fallback's sweep.
func (t *tree) kill(leader int) {
	killGroup(leader)
	if t.cgroup != "" {
		killCgroup(t.cgroup)
		return
	}
	t.sweep(leader)
}

// killCgroup sends SIGKILL to every process of the cgroup dir: through
// cgroup.kill, or, on kernels without it, to each member of the frozen
// cgroup, so none can fork in between.
func killCgroup(dir string) {
	if err := os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0); err == nil {
		return
	}
	freeze := filepath.Join(dir, "cgroup.freeze")
	_ = os.WriteFile(freeze, []byte("1"), 0)
	deadline := time.Now().Add(killWait)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(filepath.Join(dir, "cgroup.events")); err != nil || bytes.Contains(b, []byte("frozen 1")) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs")); err == nil {
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
	_ = os.WriteFile(freeze, []byte("0"), 0) // a frozen process cannot die
}

// sweep kills the leader's descendants and every marked process until a
// scan of /proc finds none, then reaps those re-parented to the runner.
func (t *tree) sweep(leader int) {
	self := os.Getpid()
	deadline := time.Now().Add(killWait)
	for time.Now().Before(deadline) {
		victims := t.members(leader)
		if len(victims) == 0 {
			return
		}
		for pid, ppid := range victims {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			if ppid == self && pid != leader {
				// Re-parented to the runner (the subreaper): reap it,
				// nobody else will. The leader is reaped by finish.
				go func(pid int) {
					var ws unix.WaitStatus
					for {
						if _, err := unix.Wait4(pid, &ws, 0, nil); !errors.Is(err, unix.EINTR) {
							return
						}
					}
				}(pid)
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// members returns the live (non-zombie) processes of the tree, pid to
// parent pid: descendants of leader and processes carrying the marker.
func (t *tree) members(leader int) map[int]int {
	procs := map[int]int{}
	zombie := map[int]bool{}
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		procs[pid] = ppid
		zombie[pid] = f[0] == "Z" || f[0] == "X"
	}
	in := map[int]bool{leader: true}
	marker := []byte(t.marker + "\x00")
	for pid := range procs {
		if env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ"); err == nil && bytes.Contains(env, marker) {
			in[pid] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for pid, ppid := range procs {
			if !in[pid] && in[ppid] {
				in[pid], changed = true, true
			}
		}
	}
	out := map[int]int{}
	for pid := range in {
		if ppid, ok := procs[pid]; ok && !zombie[pid] {
			out[pid] = ppid
		}
	}
	return out
}

// release removes the cgroup once its processes are gone (a cgroup with
// members, zombies included, cannot be removed: the leader must have been
// reaped).
func (t *tree) release() {
	if t.fd >= 0 {
		_ = unix.Close(t.fd)
		t.fd = -1
	}
	if t.cgroup != "" {
		_ = removeCgroup(t.cgroup)
	}
}

// removeCgroup removes the cgroup dir once its processes are gone. The
// kernel empties a killed cgroup a moment after its last member is reaped:
// it retries briefly, then less often, for up to killWait.
func removeCgroup(dir string) error {
	deadline := time.Now().Add(killWait)
	for wait := 50 * time.Microsecond; ; wait = min(2*wait, 5*time.Millisecond) {
		err := os.Remove(dir)
		if err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(wait)
	}
}

// Sweep kills and removes what implementations of crashed runners left
// (package leftover): the cgroups below the runner's own cgroup whose
// runner died, with every process still in them, and, for the subreaper
// fallback, the processes whose marker names a dead runner. A live
// runner's cgroups and processes are left alone. It returns what it
// removed, for a note.
func Sweep() []string {
	var done []string
	if parent, err := ownCgroup(); err == nil {
		entries, _ := os.ReadDir(parent)
		for _, e := range entries {
			kind, o, ok := leftover.Parse(e.Name())
			if !ok || kind != "impl" || !e.IsDir() || !o.Dead() {
				continue
			}
			dir := filepath.Join(parent, e.Name())
			killCgroup(dir)
			if removeCgroup(dir) == nil {
				done = append(done, "cgroup "+dir)
			}
		}
	}
	done = append(done, sweepV1()...)
	for _, pid := range strayMarked() {
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			done = append(done, fmt.Sprintf("process %d", pid))
		}
	}
	return done
}

// strayMarked lists the live processes whose tree marker names a dead
// runner.
func strayMarked() []int {
	var out []int
	dirs, _ := os.ReadDir("/proc")
	prefix := []byte(treeMarkerVar + "=")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + d.Name() + "/environ")
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if v, ok := bytes.CutPrefix(kv, prefix); ok {
				if kind, o, ok := leftover.Parse(string(v)); ok && kind == "tree" && o.Dead() && Alive(pid) {
					out = append(out, pid)
				}
				break
			}
		}
	}
	return out
}
