package fcpclient

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// startObserved starts fakeimpl in mode and greets it.
func startObserved(t *testing.T, o Options) *Session {
	t.Helper()
	s, err := Start(ctxTimeout(t, 5*time.Second), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if _, err := s.Hello(ctxTimeout(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestNetworkObserved: the implementation's sends, which its namespace
// cannot route, show in its counters; nothing shows without them; an
// unobserved process says so.
func TestNetworkObserved(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a network namespace of its own needs root")
	}
	for _, tc := range []struct {
		mode string
		want NetCounters
	}{
		{"echo-good", NetCounters{}},
		{"net-on-call", NetCounters{IPv4NoRoute: 1, IPv6NoRoute: 1}},
		{"loopback-on-call", NetCounters{UDPNoPort: 2}},
		{"ipc-on-call", NetCounters{}}, // its own listener: no attempt (I-EXE-31)
	} {
		t.Run(tc.mode, func(t *testing.T) {
			s := startObserved(t, opts(tc.mode))
			before, err := s.Network()
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := s.Do(ctxTimeout(t, 5*time.Second), call(`{}`)); err != nil {
				t.Fatal(err)
			}
			after, err := s.Network()
			if err != nil {
				t.Fatal(err)
			}
			if got := after.Sub(before); got != tc.want {
				t.Errorf("counters rose by %+v (%s), want %+v", got, got, tc.want)
			}
		})
	}
	t.Run("unobserved", func(t *testing.T) {
		o := opts("echo-good")
		o.Unobserved = true
		s := startObserved(t, o)
		if _, err := s.Network(); !errors.Is(err, ErrUnobserved) {
			t.Errorf("Network on an unobserved process: %v, want ErrUnobserved", err)
		}
		if _, err := s.WatchMemory(); !errors.Is(err, ErrUnobserved) {
			t.Errorf("WatchMemory on an unobserved process: %v, want ErrUnobserved", err)
		}
	})
}

// TestMemoryObserved: memory the implementation allocates and keeps shows
// as growth above the baseline, and OnGrowth fires past its bound.
func TestMemoryObserved(t *testing.T) {
	s := startObserved(t, opts("grow-on-call", "64"))
	w, err := s.WatchMemory()
	if errors.Is(err, ErrUnobserved) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	over := make(chan struct{})
	w.OnGrowth(32<<20, func() { close(over) })
	if _, _, err := s.Do(ctxTimeout(t, 5*time.Second), call(`{}`)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-over:
	case <-time.After(5 * time.Second):
		t.Error("OnGrowth(32 MiB) did not fire after 64 MiB were allocated")
	}
	peak := w.Stop()
	if g := peak.Growth(); g < 60<<20 || g > 200<<20 {
		t.Errorf("growth %d bytes after allocating 64 MiB (%+v)", g, peak)
	}
}

// TestObservedStartsConcurrently: sessions started and closed at once from
// many goroutines leave every runner thread in the runner's own memory
// cgroup (a starting thread joins an implementation's cgroup only for the
// moment of the start), and closing one never signals the runner: a v1
// cgroup's procs list the runner while one of its threads is inside.
func TestObservedStartsConcurrently(t *testing.T) {
	home, err := ownV1MemoryCgroup()
	if err != nil {
		t.Skipf("no cgroup v1 memory hierarchy to join: %v", err)
	}
	done := make(chan error)
	const n = 8
	for range n {
		go func() {
			for range 3 {
				s, err := Start(ctxTimeout(t, 20*time.Second), opts("echo-good"))
				if err != nil {
					done <- err
					return
				}
				if _, err := s.Hello(ctxTimeout(t, 20*time.Second)); err != nil {
					s.Close()
					done <- err
					return
				}
				if err := s.Close(); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range n {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	tasks, err := os.ReadFile(home + "/tasks")
	if err != nil {
		t.Fatal(err)
	}
	threads, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]bool{}
	for _, tid := range strings.Fields(string(tasks)) {
		in[tid] = true
	}
	for _, th := range threads {
		if !in[th.Name()] {
			t.Errorf("runner thread %s is not in the runner's memory cgroup %s after the sessions ended", th.Name(), home)
		}
	}
}

// TestSweepV1Nested: a dead runner's v1 memory cgroup goes with the
// cgroups nested in it (a cgroup with children cannot be removed alone).
func TestSweepV1Nested(t *testing.T) {
	home, err := ownV1MemoryCgroup()
	if err != nil {
		t.Skipf("no cgroup v1 memory hierarchy: %v", err)
	}
	dead := deadOwner(t)
	stale := filepath.Join(home, "forge-conform-impl@"+dead.String()+"-0123")
	inner := filepath.Join(stale, "forge-conform-impl@"+dead.String()+"-4567")
	if err := os.MkdirAll(inner, 0o755); err != nil {
		t.Skipf("cannot create a v1 memory cgroup under %s: %v", home, err)
	}
	t.Cleanup(func() { _ = os.Remove(inner); _ = os.Remove(stale) })
	swept := sweepV1()
	if !slices.Contains(swept, "memory cgroup "+stale) {
		t.Errorf("sweepV1 removed %q; want memory cgroup %s among them", swept, stale)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale cgroup is still there: %v", err)
	}
}
