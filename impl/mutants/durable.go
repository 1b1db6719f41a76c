package mutants

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// The durability mutants (TOOL_EXECUTOR_SRD.md §3.8.4-§3.8.5): defects of
// the journal, put in from outside through reference.Options.WrapJournal
// and reference.Options.AfterRecovery. Their cases crash a real process, so
// they run through `forge-conform ref --mutant NAME` (Mutant.Process).

// durableRun selects the durability cases.
var durableRun = []string{"tool_executor/turn-durable-*"}

func durableMutants() []Mutant {
	return []Mutant{
		{
			Name: "journal-result-late", Doc: "the journal records a call's result only once the next tool has started (or the batch ends)",
			Specs: []string{"tool_executor"}, Run: durableRun, Process: true,
			Breaks:  ids("tool_executor", "FR-RES-04b", "IT-E2E-01"),
			Options: reference.Options{WrapJournal: lateResults},
		},
		{
			Name: "rerun-on-recovery", Doc: "recovery runs the calls of the batch that have no journaled result again",
			Specs: []string{"tool_executor"}, Run: durableRun, Process: true,
			Breaks:  ids("tool_executor", "FR-RES-04c"),
			Options: reference.Options{AfterRecovery: rerun},
		},
		{
			Name: "persist-chunks", Doc: "the journal stores a call's streamed chunks with its result",
			Specs: []string{"tool_executor"}, Run: durableRun, Process: true,
			Breaks:  ids("tool_executor", "FR-OUT-03"),
			Options: reference.Options{WrapJournal: persistChunks},
		},
		{
			Name: "lose-streamed-calls", Doc: "the journal records the model's tool calls only when the batch is persisted, not as they stream in",
			Specs: []string{"tool_executor"}, Run: durableRun, Process: true,
			Breaks:  ids("tool_executor", "FR-RES-04a", "IT-JRN-01"),
			Options: reference.Options{WrapJournal: lateCalls},
		},
		{
			Name: "reorder-tool-uses", Doc: "the journal records a batch's tool calls in reverse order",
			Specs: []string{"tool_executor"}, Run: durableRun, Process: true,
			Breaks:  ids("tool_executor", "FR-RES-04", "IT-E2E-01", "IT-JRN-01"),
			Options: reference.Options{WrapJournal: reversedCalls},
		},
	}
}

// lateJournal holds each result back until the next call starts.
type lateJournal struct {
	executor.Journal
	mu   sync.Mutex
	held []func() error
}

func (j *lateJournal) flush() error {
	j.mu.Lock()
	held := j.held
	j.held = nil
	j.mu.Unlock()
	for _, f := range held {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

func (j *lateJournal) Persisted(n int, m fcp.Message) error {
	if m.Type == fcp.MessageToolResult {
		j.mu.Lock()
		j.held = append(j.held, func() error { return j.Journal.Persisted(n, m) })
		j.mu.Unlock()
		return nil
	}
	if err := j.flush(); err != nil {
		return err
	}
	return j.Journal.Persisted(n, m)
}

func (j *lateJournal) Resuming(n int) error {
	if err := j.flush(); err != nil {
		return err
	}
	return j.Journal.Resuming(n)
}

func (j *lateJournal) Ended(end string) error {
	if err := j.flush(); err != nil {
		return err
	}
	return j.Journal.Ended(end)
}

// tapUI calls on for every event before passing it on.
type tapUI struct {
	executor.UI
	on func(fcp.TurnLine) error
}

func (u tapUI) Event(l fcp.TurnLine) error {
	if err := u.on(l); err != nil {
		return err
	}
	return u.UI.Event(l)
}

func lateResults(j executor.Journal, ui executor.UI) (executor.Journal, executor.UI) {
	lj := &lateJournal{Journal: j}
	return lj, tapUI{UI: ui, on: func(l fcp.TurnLine) error {
		if l.Event == fcp.EventStarted {
			return lj.flush()
		}
		return nil
	}}
}

// rerunWait bounds a re-run call, so that a long command re-run costs its
// case seconds, not its timeout.
const rerunWait = 3 * time.Second

func rerun(ctx context.Context, calls []fcp.PendingCall, run func(context.Context, fcp.PendingCall)) {
	for _, c := range calls {
		cctx, cancel := context.WithTimeout(ctx, rerunWait)
		run(cctx, c)
		cancel()
	}
}

// chunkJournal prefixes a result with the chunks its call streamed.
type chunkJournal struct {
	executor.Journal
	mu     sync.Mutex
	chunks map[string]string
}

func (j *chunkJournal) Persisted(n int, m fcp.Message) error {
	if m.Type == fcp.MessageToolResult && m.Content != nil {
		j.mu.Lock()
		c := j.chunks[m.ID] + *m.Content
		j.mu.Unlock()
		m.Content = &c
	}
	return j.Journal.Persisted(n, m)
}

func persistChunks(j executor.Journal, ui executor.UI) (executor.Journal, executor.UI) {
	cj := &chunkJournal{Journal: j, chunks: map[string]string{}}
	return cj, tapUI{UI: ui, on: func(l fcp.TurnLine) error {
		if l.Event == fcp.EventStdout || l.Event == fcp.EventStderr {
			cj.mu.Lock()
			cj.chunks[l.ID] += l.Chunk
			cj.mu.Unlock()
		}
		return nil
	}}
}

// callsJournal records a batch's calls when its first message is
// persisted instead of when they arrive.
type callsJournal struct {
	executor.Journal
	held func() error
}

func (j *callsJournal) Received(n int, text string, calls []fcp.ModelCall) error {
	j.held = func() error { return j.Journal.Received(n, text, calls) }
	return nil
}

func (j *callsJournal) Persisted(n int, m fcp.Message) error {
	if j.held != nil && n > 0 {
		f := j.held
		j.held = nil
		if err := f(); err != nil {
			return err
		}
	}
	return j.Journal.Persisted(n, m)
}

func lateCalls(j executor.Journal, ui executor.UI) (executor.Journal, executor.UI) {
	return &callsJournal{Journal: j}, ui
}

// reverseJournal records a batch's calls in reverse order.
type reverseJournal struct{ executor.Journal }

func (j reverseJournal) Received(n int, text string, calls []fcp.ModelCall) error {
	rev := slices.Clone(calls)
	slices.Reverse(rev)
	return j.Journal.Received(n, text, rev)
}

func reversedCalls(j executor.Journal, ui executor.UI) (executor.Journal, executor.UI) {
	return reverseJournal{j}, ui
}
