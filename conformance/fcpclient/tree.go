package fcpclient

import "syscall"

// KillTree crashes the implementation from outside (spec/PROTOCOL.md
// §10.2): it sends SIGKILL to the implementation's whole process tree,
// with no cooperation from it. Descendants that left the process group
// (a command run with setsid) are found through their parents while the
// tree is still connected, stopped first (a stopped process cannot fork)
// and killed with the group; then the implementation's cgroup (or the
// subreaper's sweep, see tree) takes whatever is left. It may be called while Turn runs, from its
// user callback: Turn then sees stdout end and returns a crash error, after
// which Signal tells how the process ended. Processes whose parent died
// before KillTree ran are beyond its reach.
func (s *Session) KillTree() {
	killDescendants(s.p.pid)
	if s.p.tree != nil {
		s.p.tree.kill(s.p.pid)
	}
}

// Signal reports the signal that ended the implementation, once the
// session is dead and its process reaped; false when it exited on its own
// or is not reaped yet.
func (s *Session) Signal() (syscall.Signal, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.p.state == nil {
		return 0, false
	}
	ws, ok := s.p.state.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return 0, false
	}
	return ws.Signal(), true
}

// Alive reports whether pid names a live process (a zombie counts as
// dead: it no longer runs).
func Alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && err != syscall.EPERM {
		return false
	}
	return !zombie(pid)
}
