//go:build !linux

// Package fusefault serves a directory through FUSE with faults injected;
// on this system it is not available (Usable says so), and the runner skips
// fault cases for external implementations.
package fusefault

import (
	"errors"
	"syscall"
	"time"
)

// Fault makes one operation on one path fail with Errno.
type Fault struct {
	Op    string
	Path  string
	Errno syscall.Errno
	Nth   int
	Delay time.Duration
}

// Mount is a directory served through FUSE.
type Mount struct{ Dir string }

var errUnsupported = errors.New("fault injection through FUSE is implemented for Linux only")

// Usable reports that FUSE cannot be used here.
func Usable() error { return errUnsupported }

// Probe fails: FUSE is not supported here.
func Probe(tmp string) error { return errUnsupported }

// New fails: FUSE is not supported here.
func New(src, mnt string, faults []Fault) (*Mount, error) { return nil, errUnsupported }

// Sweep has nothing to unmount here.
func Sweep() ([]string, error) { return nil, nil }

// Unmount does nothing.
func (m *Mount) Unmount() error { return nil }

// Ops is 0: nothing is served here.
func (m *Mount) Ops() int64 { return 0 }
