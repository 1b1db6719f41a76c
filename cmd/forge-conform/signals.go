package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// stoppedBy is the cause of a command's context when a signal stopped it:
// the terminal hung up (SIGHUP), ctrl+c (SIGINT) or kill (SIGTERM).
type stoppedBy struct{ sig syscall.Signal }

func (s stoppedBy) Error() string { return "stopped by " + unix.SignalName(s.sig) }

// exitCode is the conventional status of a command a signal stopped: 128
// plus the signal's number (129 for SIGHUP, 130 for SIGINT, 143 for
// SIGTERM).
func (s stoppedBy) exitCode() int { return 128 + int(s.sig) }

// withStopSignals returns a context that the first SIGHUP, SIGINT or
// SIGTERM cancels with a stoppedBy cause, so that the command cleans up
// (kills its processes, removes its temp dirs) instead of dying on the
// spot. stop releases the signals.
func withStopSignals(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-ch:
			if sig, ok := s.(syscall.Signal); ok {
				cancel(stoppedBy{sig})
			} else {
				cancel(nil)
			}
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel(nil)
	}
}
