// Package stopsig turns the stop signals (SIGHUP, SIGINT, SIGTERM) into
// the cancellation of a command's context, so that the command cleans up
// (kills its processes, removes its temp dirs) and exits 128+signal
// instead of dying on the spot. forge-conform and forge-tui share it.
package stopsig

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// Signals are the stop signals: the terminal hung up (SIGHUP), ctrl+c
// (SIGINT) and kill (SIGTERM).
var Signals = []os.Signal{syscall.SIGHUP, os.Interrupt, syscall.SIGTERM}

// StoppedBy is the cause of a command's context when a signal stopped it.
type StoppedBy struct{ Sig syscall.Signal }

func (s StoppedBy) Error() string { return "stopped by " + unix.SignalName(s.Sig) }

// ExitCode is the conventional status of a command a signal stopped: 128
// plus the signal's number (129 for SIGHUP, 130 for SIGINT, 143 for
// SIGTERM).
func (s StoppedBy) ExitCode() int { return 128 + int(s.Sig) }

// With returns a context that the first stop signal cancels with a
// StoppedBy cause. stop releases the signals.
func With(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, Signals...)
	go func() {
		select {
		case s := <-ch:
			if sig, ok := s.(syscall.Signal); ok {
				cancel(StoppedBy{sig})
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
