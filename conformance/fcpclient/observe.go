package fcpclient

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// What the runner observes of an implementation's process from outside,
// since the process is the runner's (spec/INTERPRETATIONS.md I-EXE-30..):
//
//   - its network: the implementation starts in a network namespace of
//     its own, where only the loopback device exists (up); the kernel's
//     counters of that namespace (/proc/net/snmp, /proc/net/snmp6) count
//     every send that found no route and every loopback datagram or
//     connect that found no listener, so any attempt to reach a network,
//     a DNS lookup included, shows up (Session.Network, NetCounters);
//   - its memory: the anonymous and shared memory charged to a memory
//     cgroup of its own (cgroup v2, or a cgroup v1 memory controller),
//     sampled while a turn runs (Session.WatchMemory).
//
// Where the machine cannot (not root, no memory controller, not Linux),
// the methods return an error saying why, and the runner skips the cases
// that need them.

// ErrUnobserved wraps the reason why an observation is not available.
var ErrUnobserved = errors.New("not observable")

// NetCounters are the kernel's counters of the implementation's network
// namespace that count an attempt to reach the network. The namespace
// holds only the implementation, with loopback up: a packet that reaches
// one of its own listeners over loopback is no attempt and is not counted;
// everything else is.
type NetCounters struct {
	// IPv4NoRoute and IPv6NoRoute count the sends and connects that
	// found no route (Ip:OutNoRoutes, Ip6OutNoRoutes): every attempt to
	// reach an address outside the namespace, a DNS query to a remote
	// resolver included.
	IPv4NoRoute, IPv6NoRoute int64
	// UDPNoPort counts the datagrams sent over loopback to a port nobody
	// listens on (Udp:NoPorts, Udp6NoPorts): a query meant for a service
	// outside the namespace, such as a local DNS stub resolver.
	UDPNoPort int64
	// TCPFailed counts the TCP connects that failed (Tcp:AttemptFails,
	// IPv4 and IPv6): over loopback, a connect to a service outside the
	// namespace, such as a local proxy.
	TCPFailed int64
}

// Sub returns c minus before.
func (c NetCounters) Sub(before NetCounters) NetCounters {
	return NetCounters{
		IPv4NoRoute: c.IPv4NoRoute - before.IPv4NoRoute, IPv6NoRoute: c.IPv6NoRoute - before.IPv6NoRoute,
		UDPNoPort: c.UDPNoPort - before.UDPNoPort, TCPFailed: c.TCPFailed - before.TCPFailed,
	}
}

// Any reports whether a counter is not zero.
func (c NetCounters) Any() bool { return c != NetCounters{} }

// String says what the counters saw, for a failure message.
func (c NetCounters) String() string {
	var parts []string
	add := func(n int64, what string) {
		if n != 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(c.IPv4NoRoute, "IPv4 send(s) or connect(s) to an address outside the namespace (no route; a DNS query counts)")
	add(c.IPv6NoRoute, "IPv6 send(s) or connect(s) to an address outside the namespace (no route)")
	add(c.UDPNoPort, "UDP datagram(s) to a loopback port nobody listens on (a local resolver or service outside the namespace)")
	add(c.TCPFailed, "failed TCP connect(s)")
	if len(parts) == 0 {
		return "no network attempt"
	}
	return strings.Join(parts, ", ")
}

// MemoryPeak is what a memory watch saw: the tree's memory (anonymous,
// shared and swapped out, not the page cache) when the watch began, its
// highest sample, and how many samples were taken.
type MemoryPeak struct {
	Baseline, Peak int64
	Samples        int
	// Source names the cgroup file, for messages.
	Source string
}

// Growth is how far the peak rose above the baseline.
func (m MemoryPeak) Growth() int64 { return max(0, m.Peak-m.Baseline) }

// memorySampleEvery is the sampling period of a memory watch: memory that
// grows with a stream of hundreds of MiB stays up far longer.
const memorySampleEvery = 5 * time.Millisecond

// MemoryWatch samples the implementation's memory until Stop.
type MemoryWatch struct {
	stop chan struct{}
	done chan struct{}
	mu   sync.Mutex
	peak MemoryPeak
	// limit and over: OnGrowth's bound and callback; over is nil once
	// called.
	limit int64
	over  func()
}

// OnGrowth has f called once, from the sampling goroutine, as soon as a
// sample rises more than limit above the baseline: the caller can stop
// what makes it grow instead of letting an unbounded implementation take
// the machine's memory.
func (w *MemoryWatch) OnGrowth(limit int64, f func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.limit, w.over = limit, f
}

// watchMemory starts sampling with sample, whose first value is the
// baseline.
func watchMemory(source string, sample func() (int64, error)) (*MemoryWatch, error) {
	base, err := sample()
	if err != nil {
		return nil, err
	}
	w := &MemoryWatch{stop: make(chan struct{}), done: make(chan struct{}),
		peak: MemoryPeak{Baseline: base, Peak: base, Samples: 1, Source: source}}
	go func() {
		defer close(w.done)
		t := time.NewTicker(memorySampleEvery)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
			v, err := sample()
			w.mu.Lock()
			if err != nil {
				// The cgroup is gone (the process died): keep what was seen.
				w.mu.Unlock()
				return
			}
			w.peak.Samples++
			w.peak.Peak = max(w.peak.Peak, v)
			var over func()
			if w.over != nil && w.peak.Growth() > w.limit {
				over, w.over = w.over, nil
			}
			w.mu.Unlock()
			if over != nil {
				over()
			}
		}
	}()
	return w, nil
}

// Stop ends the watch and returns what it saw.
func (w *MemoryWatch) Stop() MemoryPeak {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.peak
}

// Network returns the IP counters of the implementation's network
// namespace; an error wrapping ErrUnobserved says why they are not
// available.
func (s *Session) Network() (NetCounters, error) { return s.p.obs.network() }

// WatchMemory starts sampling the memory of the implementation's process
// tree; the first sample is the baseline. An error wrapping ErrUnobserved
// says why it cannot.
func (s *Session) WatchMemory() (*MemoryWatch, error) { return s.p.obs.watchMemory() }
