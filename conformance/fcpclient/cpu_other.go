//go:build !linux

package fcpclient

import (
	"errors"
	"time"
)

// CPUTime needs Linux's /proc (per-thread schedstat).
func (s *Session) CPUTime() (time.Duration, error) {
	return 0, errors.New("the CPU time of an implementation's processes is read from Linux's /proc; not available on this system")
}

// CPUTimeAvailable says why CPUTime cannot work here.
func CPUTimeAvailable() error {
	_, err := (*Session)(nil).CPUTime()
	return err
}
