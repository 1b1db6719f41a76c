//go:build unix

package tooltest

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time (user and system) this process and its waited-for
// children have used so far. Benchmarks report its growth per operation
// next to wall time: on a loaded machine wall time measures the load as
// much as the code, CPU time much less.
func CPUTime() time.Duration {
	var self, children syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children) != nil {
		return 0
	}
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(children.Utime) + tv(children.Stime)
}
