package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// OutputBuffer is the capacity, in chunks, of a call's bounded output
// channel (FR-OUT-01).
const OutputBuffer = 64

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
func (r *turnRun) execute(ctx context.Context, p *Planned) (Result, error) {
	t := p.tool
	if t == nil { // confirmed without a tool (Planning.Confirm): it fails as planned
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

	streams := [2]Sanitizer{r.e.Options.stream(), r.e.Options.stream()}
	emit := func(ch tool.Chunk) error {
		i, ev := 0, fcp.EventStdout
		if ch.Stream == tool.Stderr {
			i, ev = 1, fcp.EventStderr
		}
		if s := streams[i].Write(ch.Text); s != "" {
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
