package fcpclient

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// sysProcAttr starts the implementation in its own process group (so a
// kill reaches its children) and has the kernel kill it if the runner dies
// first, so no implementation outlives the runner.
func sysProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Credential: cred, Pdeathsig: syscall.SIGKILL}
}

// watchExit closes p.exited when the leader exits, without reaping it
// (WNOWAIT): the zombie keeps the process group id reserved until finish
// has killed the group.
func (p *proc) watchExit() {
	defer close(p.exited)
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, p.pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return
		}
	}
}

// reap collects the exit status of the exited leader.
func (p *proc) reap() {
	p.waitErr = p.cmd.Wait()
	p.state = p.cmd.ProcessState
}
