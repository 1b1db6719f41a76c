package runner

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/forge-conform/forge-conform/conformance/check"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/fcpclient"
	"github.com/forge-conform/forge-conform/conformance/turnlog"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// Process cases (corpus.ProcessSpec, spec/INTERPRETATIONS.md I-EXE-30..39):
// the runner observes the implementation's process from outside, where
// FCP/1 shows nothing: its network namespace's IP counters and its memory
// cgroup (fcpclient's observe.go).

// streamTimeout is the least deadline of a case with a memory bound: its
// turn streams hundreds of MiB (I-EXE-32), which takes seconds for the
// reference and may take a minute for a slower implementation on a loaded
// machine; the run's per-case timeout applies when it is longer.
const streamTimeout = 2 * time.Minute

// caseTimeout is the deadline of c's exchanges.
func caseTimeout(c *corpus.Case, timeout time.Duration) time.Duration {
	if c.Process != nil && c.Process.MaxMemoryGrowthMiB > 0 {
		return max(timeout, streamTimeout)
	}
	return timeout
}

// ProcessConversation is a Conversation on a process the runner started
// (a binary in session mode).
type ProcessConversation interface {
	TurnConversation
	// Network returns the IP counters of the process's network
	// namespace; an error says why they cannot be read.
	Network() (fcpclient.NetCounters, error)
	// WatchMemory starts sampling the memory of the process tree; an
	// error says why it cannot.
	WatchMemory() (*fcpclient.MemoryWatch, error)
	// TurnInto is Turn recording into log.
	TurnInto(ctx context.Context, req fcp.TurnRequest, user turnlog.User, log *turnlog.Log) (*turnlog.Log, string, error)
}

// processWatch is the observation of one case: it is begun before the
// case's first exchange and ended after its last.
type processWatch struct {
	c      *corpus.Case
	conv   ProcessConversation
	net    fcpclient.NetCounters
	memory *fcpclient.MemoryWatch
	// stopped: the memory rose above the bound and the turn was stopped.
	stopped atomic.Bool
}

// overBound reports whether the turn was stopped because the memory rose
// above the case's bound (its error is then that failure, not the
// implementation's).
func (w *processWatch) overBound() bool { return w != nil && w.stopped.Load() }

// watchProcess begins observing what c's ProcessSpec asks for on conv; a
// non-empty reason says why the case must be skipped. A case without a
// ProcessSpec gets a nil watch.
//
// over, when not nil, is called (once, from another goroutine) as soon as
// the memory rises above the case's bound: the caller stops the turn
// there rather than let an unbounded implementation take the machine's
// memory.
func watchProcess(c *corpus.Case, conv Conversation, over func()) (*processWatch, string) {
	if c.Process == nil {
		return nil, ""
	}
	pc, ok := conv.(ProcessConversation)
	if !ok {
		return nil, "the case observes the implementation's process from outside (I-EXE-30): run it through FCP/1 in session mode " +
			"(--binary; `forge-conform --binary \"forge-conform ref\"` for the reference); this target has no process of its own"
	}
	w := &processWatch{c: c, conv: pc}
	if c.Process.NoNetwork {
		n, err := pc.Network()
		if err != nil {
			return nil, "cannot observe the implementation's network (I-EXE-31): " + err.Error()
		}
		w.net = n
	}
	if c.Process.MaxMemoryGrowthMiB > 0 {
		if c.Op != corpus.OpTurn {
			return nil, "a memory bound applies to a turn case"
		}
		m, err := pc.WatchMemory()
		if err != nil {
			return nil, "cannot observe the implementation's memory (I-EXE-32): " + err.Error()
		}
		w.memory = m
		if over != nil {
			m.OnGrowth(int64(c.Process.MaxMemoryGrowthMiB)<<20, func() {
				w.stopped.Store(true)
				over()
			})
		}
	}
	return w, ""
}

// log returns the turn log to record into: one that counts the chunks of
// a memory case instead of keeping a gigabyte of them.
func (w *processWatch) log() *turnlog.Log {
	return &turnlog.Log{CountChunks: w != nil && w.memory != nil}
}

// stop ends the observation (safe on a nil watch and more than once).
func (w *processWatch) stop() {
	if w != nil && w.memory != nil {
		w.memory.Stop()
	}
}

// failures ends the observation and returns what broke the case's
// ProcessSpec, charged to its primary ID.
func (w *processWatch) failures() []check.Failure {
	if w == nil {
		return nil
	}
	var out []check.Failure
	id := []string{w.c.PrimaryID()}
	if w.c.Process.NoNetwork {
		now, err := w.conv.Network()
		switch {
		case err != nil:
			out = append(out, check.Failure{IDs: id, Kind: check.KindInvariant,
				Message: "could not read the implementation's network counters after the case: " + err.Error()})
		case now.Sub(w.net).Any():
			out = append(out, check.Failure{IDs: id, Kind: check.KindInvariant, Message: fmt.Sprintf(
				"the implementation tried to reach the network during the case (I-EXE-31): its own network namespace counted %s", now.Sub(w.net))})
		}
	}
	if w.memory != nil {
		peak := w.memory.Stop()
		limit := int64(w.c.Process.MaxMemoryGrowthMiB) << 20
		if peak.Growth() > limit {
			out = append(out, check.Failure{IDs: id, Kind: check.KindInvariant, Message: fmt.Sprintf(
				"the memory of the implementation's process tree rose by %s while the turn streamed its output, more than the %s allowed (I-EXE-32): "+
					"%s before the turn, a peak of %s over %d samples of %s",
				mib(peak.Growth()), mib(limit), mib(peak.Baseline), mib(peak.Peak), peak.Samples, peak.Source)})
			if w.overBound() {
				out[len(out)-1].Message += "; the runner stopped the turn there"
			}
		}
	}
	return out
}

// mib shows a byte count in MiB, to a tenth.
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
