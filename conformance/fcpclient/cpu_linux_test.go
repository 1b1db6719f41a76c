package fcpclient

import (
	"context"
	"testing"
	"time"
)

// CPUTime counts what the implementation's process computes and what the
// children it waited for computed, and nothing while it idles.
func TestCPUTime(t *testing.T) {
	if err := CPUTimeAvailable(); err != nil {
		t.Skip(err)
	}
	const spin = 150 * time.Millisecond
	s, err := Start(context.Background(), opts("spin", spin.String()))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Hello(ctxTimeout(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	before, err := s.CPUTime()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Do(ctxTimeout(t, 20*time.Second), call(`{}`)); err != nil {
		t.Fatal(err)
	}
	after, err := s.CPUTime()
	if err != nil {
		t.Fatal(err)
	}
	// Its own spin (nanoseconds) and its child's (clock ticks).
	if got := after - before; got < 2*spin-2*clockTick || got > 2*spin+time.Second {
		t.Errorf("CPU time of a call that spins %v and waits for a child spinning as long: %v", spin, got)
	}
	time.Sleep(100 * time.Millisecond)
	idle, err := s.CPUTime()
	if err != nil {
		t.Fatal(err)
	}
	if d := idle - after; d > 20*time.Millisecond {
		t.Errorf("an idle implementation used %v of CPU time in 100ms", d)
	}
}
