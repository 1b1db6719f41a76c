package fcpclient

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/moby/sys/mountinfo"
	"golang.org/x/sys/unix"

	"github.com/forge-conform/forge-conform/conformance/leftover"
)

// observer holds what the runner watches of one implementation process
// (see observe.go): the IP counter files of its network namespace and the
// memory cgroup it starts in.
//
// Both are set up on the thread that starts the process, which the child
// inherits them from: the thread (locked to its goroutine) joins the
// cgroup v1 memory cgroup and unshares a network namespace whose loopback
// it brings up, opens the namespace's counter files (an open file keeps
// its namespace), starts the process, and then returns to the runner's
// namespace and cgroup (it must live on: the process's parent-death signal
// follows the thread that started it).
type observer struct {
	off bool

	snmp, snmp6 *os.File // nil when netReason is set
	netReason   string

	memDir    string // a cgroup directory with memory.stat; "" when memReason is set
	memV1     bool   // memDir is a cgroup v1 memory cgroup of the observer's own
	memV1Home string // the runner's own v1 memory cgroup (where the thread returns)
	memReason string
}

// newObserver prepares the observation of one process confined by t; off
// observes nothing (and costs nothing).
func newObserver(t *tree, off bool) *observer {
	o := &observer{off: off}
	if off {
		o.netReason = "process observation is off for this target"
		o.memReason = o.netReason
		return o
	}
	if t.cgroup != "" {
		if _, err := os.Stat(filepath.Join(t.cgroup, "memory.stat")); err == nil {
			o.memDir = t.cgroup
			return o
		}
	}
	home, err := ownV1MemoryCgroup()
	if err != nil {
		o.memReason = "no memory cgroup for the implementation: " + err.Error()
		return o
	}
	dir, err := os.MkdirTemp(home, leftover.Name("impl"))
	if err != nil {
		o.memReason = fmt.Sprintf("cannot create a cgroup v1 memory cgroup under %s: %v (run as root)", home, err)
		return o
	}
	o.memDir, o.memV1, o.memV1Home = dir, true, home
	return o
}

// ownV1MemoryCgroup returns the directory of the runner's cgroup in a
// cgroup v1 memory hierarchy.
func ownV1MemoryCgroup() (string, error) {
	ms, err := mountinfo.GetMounts(func(m *mountinfo.Info) (skip, stop bool) {
		return m.FSType != "cgroup" || !slicesContains(strings.Split(m.VFSOptions, ","), "memory"), false
	})
	if err != nil {
		return "", err
	}
	if len(ms) == 0 {
		return "", errors.New("the cgroup v2 memory controller is not enabled for the runner's cgroup (cgroup.subtree_control) and no cgroup v1 memory controller is mounted")
	}
	// The calling thread's own cgroup, not the process's: /proc/self
	// shows the main thread's, which may be a starting thread that has
	// joined an implementation's memory cgroup for a moment (enter).
	// Only a locked thread enters one, and it leaves before it unlocks,
	// so an unlocked goroutine's thread is always at home.
	b, err := os.ReadFile("/proc/thread-self/cgroup")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) == 3 && slicesContains(strings.Split(f[1], ","), "memory") {
			rel, ok := strings.CutPrefix(filepath.Clean("/"+f[2]), ms[0].Root)
			if !ok {
				return "", fmt.Errorf("the runner's memory cgroup %s is outside the mount %s", f[2], ms[0].Mountpoint)
			}
			return filepath.Join(ms[0].Mountpoint, rel), nil
		}
	}
	return "", errors.New("no memory entry in /proc/self/cgroup")
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// start starts cmd on a thread that carries the observer's namespace and
// cgroup into the child.
func (o *observer) start(cmd *exec.Cmd) error {
	if o.off {
		return cmd.Start()
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		restore := o.enter()
		err := cmd.Start()
		if rerr := restore(); rerr != nil {
			// The thread stays as it is and ends with its goroutine; the
			// child's parent-death signal would kill it then: give up.
			if err == nil {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				err = fmt.Errorf("returning the starting thread to the runner's namespace: %w", rerr)
			}
			errc <- err
			return
		}
		runtime.UnlockOSThread()
		errc <- err
	}()
	return <-errc
}

// enter moves the calling (locked) thread into the observer's memory
// cgroup and a new network namespace, as far as it can, recording why not
// otherwise; the returned func moves it back.
func (o *observer) enter() (restore func() error) {
	tid := strconv.Itoa(unix.Gettid())
	joined := false
	if o.memV1 {
		if err := os.WriteFile(filepath.Join(o.memDir, "tasks"), []byte(tid), 0); err != nil {
			o.memReason = fmt.Sprintf("cannot join the memory cgroup %s: %v (run as root)", o.memDir, err)
			o.dropV1()
		} else {
			joined = true
		}
	}
	home, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	moved := false
	if err != nil {
		o.netReason = "cannot open the runner's network namespace: " + err.Error()
	} else if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
		o.netReason = fmt.Sprintf("no network namespace of its own for the implementation: unshare: %v (needs root, CAP_SYS_ADMIN)", err)
	} else {
		moved = true
		if err := o.openCounters(); err != nil {
			o.netReason = err.Error()
		}
	}
	return func() error {
		var errs []error
		if moved {
			errs = append(errs, unix.Setns(home, unix.CLONE_NEWNET))
		}
		if home >= 0 {
			_ = unix.Close(home)
		}
		if joined {
			errs = append(errs, os.WriteFile(filepath.Join(o.memV1Home, "tasks"), []byte(tid), 0))
		}
		return errors.Join(errs...)
	}
}

// openCounters brings the new namespace's loopback up (so that IPv6 sends
// get a route lookup the counters see) and opens its counter files.
func (o *observer) openCounters() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("a socket in the implementation's network namespace: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("reading the flags of lo: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bringing lo up: %w", err)
	}
	if o.snmp, err = os.Open("/proc/thread-self/net/snmp"); err != nil {
		return fmt.Errorf("the namespace's IP counters: %w", err)
	}
	// Without IPv6 (disabled in the kernel) there is no snmp6, and no
	// IPv6 to send on.
	o.snmp6, _ = os.Open("/proc/thread-self/net/snmp6")
	return nil
}

// network reads the namespace's counters.
func (o *observer) network() (NetCounters, error) {
	if o.snmp == nil {
		return NetCounters{}, fmt.Errorf("%w: %s", ErrUnobserved, o.netReason)
	}
	var c NetCounters
	v4, err := readCounterFile(o.snmp)
	if err != nil {
		return c, err
	}
	c.IPv4NoRoute, c.UDPNoPort, c.TCPFailed = v4["Ip:OutNoRoutes"], v4["Udp:NoPorts"], v4["Tcp:AttemptFails"]
	if o.snmp6 != nil {
		v6, err := readCounterFile(o.snmp6)
		if err != nil {
			return c, err
		}
		c.IPv6NoRoute = v6["Ip6OutNoRoutes"]
		c.UDPNoPort += v6["Udp6NoPorts"]
	}
	return c, nil
}

// readCounterFile reads /proc/net/snmp (pairs of "Proto: names" and
// "Proto: values" lines, read as "Proto:name") or /proc/net/snmp6 ("name
// value" lines) from its start.
func readCounterFile(f *os.File) (map[string]int64, error) {
	if _, err := f.Seek(0, 0); err != nil {
		return nil, err
	}
	out := map[string]int64{}
	sc := bufio.NewScanner(f)
	var names []string
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 2 && !strings.HasSuffix(fields[0], ":"):
			n, _ := strconv.ParseInt(fields[1], 10, 64)
			out[fields[0]] = n
		case len(fields) > 1 && names == nil:
			names = fields
		case len(fields) > 1:
			for i := 1; i < len(fields) && i < len(names); i++ {
				n, _ := strconv.ParseInt(fields[i], 10, 64)
				out[names[0]+names[i]] = n
			}
			names = nil
		}
	}
	return out, sc.Err()
}

// watchMemory samples the memory cgroup.
func (o *observer) watchMemory() (*MemoryWatch, error) {
	if o.memDir == "" {
		return nil, fmt.Errorf("%w: %s", ErrUnobserved, o.memReason)
	}
	stat := filepath.Join(o.memDir, "memory.stat")
	if o.memV1 {
		return watchMemory(stat+" (total_rss+total_shmem+total_swap)", func() (int64, error) {
			v, err := statFields(stat, "total_rss", "total_shmem", "total_swap")
			return v, err
		})
	}
	swap := filepath.Join(o.memDir, "memory.swap.current")
	return watchMemory(stat+" (anon+shmem, plus memory.swap.current)", func() (int64, error) {
		v, err := statFields(stat, "anon", "shmem")
		if err != nil {
			return 0, err
		}
		if b, err := os.ReadFile(swap); err == nil {
			n, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
			v += n
		}
		return v, nil
	})
}

// statFields sums the named fields of a memory.stat file.
func statFields(path string, names ...string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	var sum int64
	for _, line := range bytes.Split(b, []byte("\n")) {
		name, val, ok := bytes.Cut(line, []byte(" "))
		if !ok || !slicesContains(names, string(name)) {
			continue
		}
		n, _ := strconv.ParseInt(string(val), 10, 64)
		sum += n
	}
	return sum, nil
}

// release closes the counter files and removes the observer's own memory
// cgroup once the tree is dead.
func (o *observer) release() {
	for _, f := range []*os.File{o.snmp, o.snmp6} {
		if f != nil {
			_ = f.Close()
		}
	}
	o.snmp, o.snmp6 = nil, nil
	if o.netReason == "" {
		o.netReason = "the process has ended"
	}
	if o.memV1 {
		killV1(o.memDir)
		_ = removeCgroup(o.memDir)
		o.dropV1()
	}
}

func (o *observer) dropV1() {
	if o.memV1 {
		_ = os.Remove(o.memDir)
	}
	o.memDir, o.memV1 = "", false
	if o.memReason == "" {
		o.memReason = "the process has ended"
	}
}

// killV1 sends SIGKILL to every process left in a v1 cgroup (the tree
// kills them first; this catches a process the tree could not see).
func killV1(dir string) {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return
	}
	for _, f := range strings.Fields(string(b)) {
		// cgroup.procs lists a process any of whose threads is in the
		// cgroup: the runner itself while its starting thread is there.
		if pid, err := strconv.Atoi(f); err == nil && pid != os.Getpid() {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
	}
}

// sweepV1 removes the v1 memory cgroups of dead runners (see Sweep).
func sweepV1() []string {
	home, err := ownV1MemoryCgroup()
	if err != nil {
		return nil
	}
	var done []string
	entries, _ := os.ReadDir(home)
	for _, e := range entries {
		kind, owner, ok := leftover.Parse(e.Name())
		if !ok || kind != "impl" || !e.IsDir() || !owner.Dead() {
			continue
		}
		dir := filepath.Join(home, e.Name())
		if removeV1Tree(dir) == nil {
			done = append(done, "memory cgroup "+dir)
		}
	}
	return done
}

// removeV1Tree kills the processes of a v1 cgroup and of the cgroups below
// it and removes them, the deepest first (a cgroup with children cannot be
// removed; runners before 2026-11-27 could nest theirs).
func removeV1Tree(dir string) error {
	var dirs []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	var err error
	for _, d := range slices.Backward(dirs) {
		killV1(d)
		err = removeCgroup(d)
	}
	return err
}
