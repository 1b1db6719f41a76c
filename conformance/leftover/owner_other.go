//go:build !linux

package leftover

import (
	"errors"
	"os"
	"syscall"
)

// Self is this process as an owner (its pid alone here).
func Self() Owner { return Owner{Pid: os.Getpid()} }

// Dead reports whether no process has the owner's pid. Without a start
// time a reused pid keeps the owner alive: its leftovers stay.
func (o Owner) Dead() bool {
	return o.Pid > 0 && errors.Is(syscall.Kill(o.Pid, 0), syscall.ESRCH)
}
