package reference

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/journal"
	"github.com/forge-conform/forge-conform/impl/toolerr"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// Durability (spec/PROTOCOL.md §10): a turn with ctx.journal_dir journals
// to impl/journal; recover reads the journal back in a fresh process.

// openJournal opens the journal a request names, nil when it names none.
// Errors are *toolerr.Error (ExecutionFailed) saying what to do.
func openJournal(c *fcp.Ctx) (*journal.Journal, error) {
	if c == nil || c.JournalDir == "" {
		return nil, nil
	}
	if !filepath.IsAbs(c.JournalDir) {
		return nil, toolerr.New(toolerr.BadArgs, "ctx.journal_dir must be an absolute path, got %q", c.JournalDir)
	}
	j, err := journal.Open(c.JournalDir)
	if err != nil {
		return nil, toolerr.New(toolerr.ExecutionFailed, "%v", err)
	}
	return j, nil
}

// turnJournaled runs one turn that journals to ctx.journal_dir.
func (r *Reference) turnJournaled(ctx context.Context, req fcp.TurnRequest, ui executor.UI, t executor.Turn) (executor.Outcome, error) {
	if err := checkCrash(req.Crash, false); err != nil {
		return executor.Outcome{}, err
	}
	j, err := openJournal(req.Ctx)
	if err != nil {
		return executor.Outcome{}, err
	}
	defer j.Close()
	if err := j.BeginTurn(req.Seq); err != nil {
		return executor.Outcome{}, toolerr.New(toolerr.ExecutionFailed, "%v", err)
	}
	t.Journal, ui = r.crashing(j, req.Crash, ui)
	e := r.Engine()
	return e.Run(ctx, t, ui)
}

// Recover answers op recover (PROTOCOL.md §10.3): it reads the journal of
// ctx.journal_dir, reports what it found, asks the user when the batch is
// incomplete (FR-RES-05), records the choice without re-running anything
// (FR-RES-04c) and resumes the turn with req.Model.
func (r *Reference) Recover(ctx context.Context, req fcp.TurnRequest, ui executor.UI) (executor.Outcome, error) {
	if req.Ctx == nil || req.Ctx.JournalDir == "" {
		return executor.Outcome{}, toolerr.New(toolerr.BadArgs, "recover needs ctx.journal_dir: the journal directory of the turn to recover")
	}
	if err := checkCrash(req.Crash, true); err != nil {
		return executor.Outcome{}, err
	}
	j, err := openJournal(req.Ctx)
	if err != nil {
		return executor.Outcome{}, err
	}
	defer j.Close()
	rec, err := j.Recover()
	if err != nil {
		return executor.Outcome{}, toolerr.New(toolerr.ExecutionFailed, "%v", err)
	}
	ev := fcp.TurnLine{Event: fcp.EventRecovered, Prompt: fcp.Bool(false)}
	prompt := rec != nil && rec.Prompt()
	if rec != nil && r.recoverPrompt != nil {
		prompt = r.recoverPrompt(rec)
	}
	if rec != nil && rec.Batch != nil {
		ev.Batch = rec.Batch
		if prompt {
			ev.Prompt, ev.Choices = fcp.Bool(true), []string{fcp.DecisionResume, fcp.DecisionDiscard}
		}
	}
	if err := ui.Event(ev); err != nil {
		return executor.Outcome{}, err
	}
	if rec == nil {
		return executor.Outcome{End: fcp.EndNothing, History: []fcp.Message{}}, nil
	}
	choice := fcp.DecisionResume // a complete batch resumes as it is
	if prompt {
		rui, ok := ui.(executor.RecoveryUI)
		if !ok {
			return executor.Outcome{}, toolerr.New(toolerr.ExecutionFailed, "recover: this front end cannot ask the recovery prompt")
		}
		choice, err = rui.ChooseRecovery(ctx, ev.Choices)
		if err != nil {
			if ctx.Err() != nil { // cancelled: the journal stays as it was
				h, err := j.History(rec)
				return executor.Outcome{End: fcp.EndCancelled, History: h}, err
			}
			return executor.Outcome{}, err
		}
	}
	res, err := j.Resolve(rec, choice)
	if err != nil {
		return executor.Outcome{}, toolerr.New(toolerr.ExecutionFailed, "%v", err)
	}
	if rec.Batch == nil { // interrupted outside a batch: closed as it stands
		return executor.Outcome{End: fcp.EndNothing, History: res.History}, nil
	}
	if req.Crash != nil && req.Crash.Point == fcp.CrashResolved {
		r.die()
	}
	if r.afterRecovery != nil {
		r.afterRecovery(ctx, unfinished(rec.Batch), func(ctx context.Context, c fcp.PendingCall) {
			r.Handle(ctx, fcp.Request{FCP: fcp.Version, Op: fcp.OpCall, Call: &fcp.Call{ID: c.ID, Name: c.Name, Args: c.Args},
				Ctx: req.Ctx, Config: req.Config})
		})
	}
	for _, m := range res.Messages {
		if err := ui.Event(fcp.TurnLine{Event: fcp.EventMessage, Message: &m}); err != nil {
			return executor.Outcome{}, err
		}
		if m.Type == fcp.MessageToolResult {
			if err := ui.Event(fcp.TurnLine{Event: fcp.EventJournaled, ID: m.ID}); err != nil {
				return executor.Outcome{}, err
			}
		}
	}
	t := executor.Turn{Ctx: req.Ctx, Config: req.Config, Model: req.Model, Session: r.state}
	t.Journal, ui = r.crashing(j, req.Crash, ui)
	e := r.Engine()
	return e.Continue(ctx, t, executor.Resumption{History: res.History, Results: res.Results,
		Batch: rec.N, Batches: rec.Batches}, ui)
}

// checkCrash checks a crash point request.
func checkCrash(c *fcp.CrashPoint, recovering bool) error {
	if c == nil {
		return nil
	}
	switch c.Point {
	case fcp.CrashCallsReceived, fcp.CrashTextPersisted:
	case fcp.CrashResultJournaled, fcp.CrashToolUsePersisted:
		if c.ID == "" {
			return toolerr.New(toolerr.BadArgs, "crash point %q needs the call's id", c.Point)
		}
	case fcp.CrashResolved:
		if !recovering {
			return toolerr.New(toolerr.BadArgs, "crash point %q is for recover only", c.Point)
		}
	default:
		return toolerr.New(toolerr.BadArgs, "crash point %q is unknown; use one of %s", c.Point, strings.Join(append(fcp.BaseCrashPoints(), fcp.ExtraCrashPoints()...), ", "))
	}
	return nil
}

// crashing wraps j so that the process kills itself at the crash point c
// (nil: never), around Options.WrapJournal's wrapper when set.
func (r *Reference) crashing(j *journal.Journal, c *fcp.CrashPoint, ui executor.UI) (executor.Journal, executor.UI) {
	var jj executor.Journal = j
	if r.wrapJournal != nil {
		jj, ui = r.wrapJournal(jj, ui)
	}
	if c == nil {
		return jj, ui
	}
	return &crashJournal{Journal: jj, at: *c, die: r.die}, ui
}

// unfinished lists the calls of b without a journaled result.
func unfinished(b *fcp.RecoveredBatch) []fcp.PendingCall {
	have := map[string]bool{}
	for _, m := range b.Results {
		have[m.ID] = true
	}
	var out []fcp.PendingCall
	for _, c := range b.Calls {
		if !have[c.ID] {
			out = append(out, c)
		}
	}
	return out
}

// die kills the process with SIGKILL, as a crash would: nothing is flushed
// or cleaned up.
func (r *Reference) die() {
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // SIGKILL cannot be caught; wait for it
}

// crashJournal is a journal that crashes the process right after the
// record of its crash point is durable (PROTOCOL.md §10.2).
type crashJournal struct {
	executor.Journal
	at  fcp.CrashPoint
	die func()
}

func (c *crashJournal) Received(n int, text string, calls []fcp.ModelCall) error {
	if err := c.Journal.Received(n, text, calls); err != nil {
		return err
	}
	if c.at.Point == fcp.CrashCallsReceived && n == max(c.at.Batch, 1) {
		c.die()
	}
	return nil
}

func (c *crashJournal) Persisted(n int, m fcp.Message) error {
	if err := c.Journal.Persisted(n, m); err != nil {
		return err
	}
	switch {
	case c.at.Point == fcp.CrashResultJournaled && m.Type == fcp.MessageToolResult && m.ID == c.at.ID,
		c.at.Point == fcp.CrashToolUsePersisted && m.Type == fcp.MessageToolUse && m.ID == c.at.ID,
		c.at.Point == fcp.CrashTextPersisted && m.Type == fcp.MessageAssistant && n > 0 && n == max(c.at.Batch, 1):
		c.die()
	}
	return nil
}
