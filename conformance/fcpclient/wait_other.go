//go:build !linux

package fcpclient

import "syscall"

// sysProcAttr starts the implementation in its own process group.
func sysProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Credential: cred}
}

// watchExit reaps the leader and closes p.exited. Without waitid's WNOWAIT
// the group is killed after the leader is reaped, so on these systems a
// process group id could in principle be reused in between.
func (p *proc) watchExit() {
	defer close(p.exited)
	p.waitErr = p.cmd.Wait()
	p.state = p.cmd.ProcessState
}

// reap does nothing: watchExit has reaped already.
func (p *proc) reap() {}
