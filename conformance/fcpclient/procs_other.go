//go:build !linux

package fcpclient

// killDescendants kills the process group (no /proc to find the processes that
// left it).
func killDescendants(pid int) { killGroup(pid) }

func zombie(int) bool { return false }
