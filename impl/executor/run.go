package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/forge-conform/forge-conform/impl/executor/sanitize"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// OutputBuffer is the capacity, in chunks, of a call's bounded output
// channel (FR-OUT-01).
const OutputBuffer = 64

// batch plans, confirms and runs one enabled-mode batch; it persists one
// result per call in call order and returns them (FR-RES-01, NFR-REL-01).
func (r *turnRun) batch(ctx context.Context, calls []fcp.ModelCall, n int) ([]fcp.Message, bool, error) {
	var plan []*planned
	if n > r.env.loop.MaxIterationsPerTurn { // FR-RES-03
		for _, c := range calls {
			plan = append(plan, &planned{call: c, disp: PreResolved,
				result: r.plainError(MaxIterationsReached)})
		}
	} else {
		plan = r.plan(calls)
	}
	// T-APR-01: one confirmation for the batch, before anything runs.
	var reqs []fcp.Confirmation
	for _, p := range plan {
		if p.disp == RequiresConfirmation {
			reqs = append(reqs, *p.confirm)
		}
	}
	cancelled := false
	ran := map[*planned]Result{} // Defects.PromptAfterRunning
	if len(reqs) > 0 && r.e.Defects.PromptAfterRunning {
		for _, p := range plan {
			if p.disp == RequiresConfirmation && ctx.Err() == nil {
				res, err := r.execute(ctx, p)
				if err != nil {
					return nil, false, err
				}
				ran[p] = res
			}
		}
	}
	if len(reqs) > 0 {
		if err := r.ui.Event(fcp.TurnLine{Event: fcp.EventConfirmation, Requests: reqs}); err != nil {
			return nil, false, err
		}
		d, err := r.ui.Confirm(ctx, reqs)
		switch {
		case err != nil && ctx.Err() != nil:
			cancelled = true
		case err != nil:
			return nil, false, err
		}
		approved := map[string]bool{}
		for _, q := range reqs {
			switch d.Kind {
			case fcp.DecisionApproveAll:
				approved[q.ID] = true
			case fcp.DecisionApproveSelected:
				approved[q.ID] = contains(d.IDs, q.ID)
			}
		}
		for _, p := range plan {
			if p.disp == RequiresConfirmation {
				if res, ok := ran[p]; ok && approved[p.call.ID] && !cancelled {
					p.disp, p.result = PreResolved, res
				} else if approved[p.call.ID] && !cancelled {
					p.disp = ExecuteNow
				} else if !cancelled {
					p.disp, p.result = PreResolved, r.plainError(DeniedByUser)
				}
			}
		}
	}
	// FR-EXE-01: sequentially, in call order; FR-EXE-02: go on after a failure.
	var out []fcp.Message
	failed := false // Defects.StopOnFailure
	for _, p := range plan {
		var res Result
		switch {
		case p.disp == PreResolved:
			res = p.result
		case failed && r.e.Defects.StopOnFailure:
			res = r.finish(Result{Content: "not run: an earlier call failed", IsError: true}, true)
		case cancelled || ctx.Err() != nil: // FR-EXE-04 2: current and remaining
			cancelled, res = true, cancelledResult()
		default:
			var err error
			res, err = r.execute(ctx, p)
			if err != nil {
				return nil, false, err
			}
			if res.Err != nil && res.Err.Kind == toolerr.Cancelled {
				cancelled = true
			}
			failed = failed || res.IsError
		}
		m := r.resultMessage(p.call.ID, res)
		if err := r.persist(m); err != nil {
			return nil, false, err
		}
		out = append(out, m)
	}
	return out, cancelled, nil
}

// CallTimeouter is implemented by tools whose own timeout depends on the
// call's arguments (the fcp_sleep test tool); zero means none.
type CallTimeouter interface {
	TimeoutFor(args json.RawMessage) time.Duration
}

// outcome is what a tool's Execute returned, or its panic.
type outcome struct {
	out      string
	err      error
	panicked bool
	payload  any
}

// execute runs one approved call with a fresh context (FR-REG-04a), its
// timeout (FR-EXE-03) and an abort handle (FR-EXE-04), streaming its
// output as sanitized events (FR-OUT-01, FR-OUT-02), and recovering a panic
// (FR-EXE-04b). A tool that ignores its abort is abandoned: its result no
// longer matters and its output is no longer read.
func (r *turnRun) execute(ctx context.Context, p *planned) (Result, error) {
	t := p.tool
	if t == nil { // Defects.UnknownToolPrompts: approved, it fails as planned
		return p.result, nil
	}
	limit := tool.DefaultTimeout(r.env.cfg)
	if to, ok := t.(tool.Timeouter); ok {
		limit = to.Timeout(r.env.cfg)
	}
	if to, ok := t.(CallTimeouter); ok {
		if d := to.TimeoutFor(p.args); d > 0 {
			limit = d
		}
	}
	errTimedOut := &toolerr.Error{Kind: toolerr.Timeout, Tool: t.Name(),
		Message: fmt.Sprintf("Tool '%s' timed out after %ss", t.Name(),
			strconv.FormatFloat(limit.Seconds(), 'f', -1, 64))}
	callCtx, cancel := context.WithTimeoutCause(ctx, limit, errTimedOut)
	defer cancel()
	output := make(chan tool.Chunk, OutputBuffer)
	c := &tool.Ctx{
		FS: r.env.fs, Sandbox: r.env.sandbox, WorkingDir: r.env.wd,
		MaxOutputBytes: r.env.maxOutput, AvailableCapacityBytes: r.env.capacity,
		AllowTruncation: true, ToolCallID: p.call.ID, Config: r.env.cfg, Session: r.env.session,
		Output: output,
	}
	id := p.call.ID
	if err := r.ui.Event(fcp.TurnLine{Event: fcp.EventStarted, ID: id, Name: t.Name()}); err != nil {
		return Result{}, err
	}
	done := make(chan outcome, 1)
	go func(args json.RawMessage) {
		defer func() {
			if v := recover(); v != nil {
				done <- outcome{panicked: true, payload: v}
			}
		}()
		out, err := t.Execute(callCtx, args, c)
		done <- outcome{out: out, err: err}
	}(p.args)

	var streams [2]sanitize.Stream
	emit := func(ch tool.Chunk) error {
		i, ev := 0, fcp.EventStdout
		if ch.Stream == tool.Stderr {
			i, ev = 1, fcp.EventStderr
		}
		var s string
		if r.e.Defects.SanitizePerChunk {
			s = sanitize.String(ch.Text)
		} else {
			s = streams[i].Write(ch.Text)
		}
		if s != "" {
			return r.ui.Event(fcp.TurnLine{Event: ev, ID: id, Chunk: s})
		}
		return nil
	}
	drain := func() error {
		for {
			select {
			case ch := <-output:
				if err := emit(ch); err != nil {
					return err
				}
			default:
				for i, ev := range []string{fcp.EventStdout, fcp.EventStderr} {
					if s := streams[i].Flush(); s != "" {
						if err := r.ui.Event(fcp.TurnLine{Event: ev, ID: id, Chunk: s}); err != nil {
							return err
						}
					}
				}
				return nil
			}
		}
	}
	var o outcome
	aborted := false
loop:
	for {
		select {
		case ch := <-output:
			if err := emit(ch); err != nil {
				cancel()
				return Result{}, err
			}
		case o = <-done:
			break loop
		case <-callCtx.Done():
			// Give a tool that honours its abort a moment to return, so
			// that its last chunks and cleanup are in; then abandon it.
			select {
			case o = <-done:
			case <-time.After(abandonAfter):
			}
			aborted = true
			break loop
		}
	}
	if err := drain(); err != nil {
		return Result{}, err
	}
	if err := r.ui.Event(fcp.TurnLine{Event: fcp.EventCompleted, ID: id}); err != nil {
		return Result{}, err
	}
	switch {
	case o.panicked:
		return r.panicked(t.Name(), o.payload), nil
	case (aborted || o.err != nil) && callCtx.Err() != nil:
		if errors.Is(context.Cause(callCtx), errTimedOut) {
			return r.fromError(errTimedOut), nil
		}
		return cancelledResult(), nil
	case o.err != nil:
		return r.fromError(asToolErr(t.Name(), o.err)), nil
	}
	return r.finish(Result{Content: o.out}, c.AllowTruncation), nil
}

// abandonAfter bounds how long an aborted call may take to return.
const abandonAfter = 200 * time.Millisecond
