package fcpclient

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// clockTick is USER_HZ, the unit of the times in /proc/PID/stat: 100 on
// every Linux architecture Go supports.
const clockTick = 10 * time.Millisecond

// CPUTime returns the CPU time the implementation's process tree has used
// so far: over every live process of the tree (its cgroup's members, or
// the leader's descendants and the marked processes), the time each live
// thread ran (/proc/PID/task/TID/schedstat, in nanoseconds, so under load
// a wait for a core costs nothing), plus the time of the children those
// processes waited for (cutime and cstime, in clock ticks). A thread or
// process that exited unwaited between two readings takes its time with
// it: the difference then shrinks, which a caller can see.
func (s *Session) CPUTime() (time.Duration, error) {
	pids := []int{s.p.pid}
	if s.p.tree != nil {
		pids = s.p.tree.pids(s.p.pid)
	}
	var total time.Duration
	for _, pid := range pids {
		d, err := procCPU(pid)
		if err != nil {
			if pid == s.p.pid {
				return 0, err
			}
			continue // a member that ended meanwhile
		}
		total += d
	}
	return total, nil
}

// pids lists the tree's live processes, leader first.
func (t *tree) pids(leader int) []int {
	out := []int{leader}
	if t.cgroup != "" {
		b, err := os.ReadFile(filepath.Join(t.cgroup, "cgroup.procs"))
		if err != nil {
			return out
		}
		for _, f := range bytes.Fields(b) {
			if p, err := strconv.Atoi(string(f)); err == nil && p != leader {
				out = append(out, p)
			}
		}
		return out
	}
	for p := range t.members(leader) {
		if p != leader {
			out = append(out, p)
		}
	}
	return out
}

// procCPU is the CPU time of pid's live threads and waited-for children.
func procCPU(pid int) (time.Duration, error) {
	dir := "/proc/" + strconv.Itoa(pid)
	tasks, err := os.ReadDir(dir + "/task")
	if err != nil {
		return 0, fmt.Errorf("reading the threads of process %d: %w", pid, err)
	}
	var total time.Duration
	n := 0
	for _, tk := range tasks {
		b, err := os.ReadFile(dir + "/task/" + tk.Name() + "/schedstat")
		if err != nil {
			continue // the thread ended
		}
		f := bytes.Fields(b)
		if len(f) == 0 {
			continue
		}
		ns, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/task/%s/schedstat: %q is no time in nanoseconds", pid, tk.Name(), f[0])
		}
		total += time.Duration(ns)
		n++
	}
	if n == 0 {
		return 0, fmt.Errorf("process %d: no thread has a schedstat (a kernel without CONFIG_SCHED_INFO?)", pid)
	}
	f, ok := stat(pid)
	if !ok || len(f) < 15 {
		return 0, errors.New("reading /proc/" + strconv.Itoa(pid) + "/stat")
	}
	for _, v := range f[13:15] { // cutime, cstime: fields 16 and 17, counted from pid = 1
		t, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %q is no clock tick count", pid, v)
		}
		total += time.Duration(t) * clockTick
	}
	return total, nil
}

// CPUTimeAvailable says why CPUTime cannot work here, or returns nil.
func CPUTimeAvailable() error {
	_, err := procCPU(os.Getpid())
	return err
}
