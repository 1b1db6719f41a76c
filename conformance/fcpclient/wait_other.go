//go:build !linux

package fcpclient

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
