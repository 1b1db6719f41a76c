package inproc

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/conformance/turnlog"
	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/tui"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

var _ runner.TurnConversation = (*conversation)(nil)

// Turn runs one turn with the reference engine in this conversation's
// state: the engine runs in a goroutine, its events come to the caller's
// goroutine, which shows them to user and routes user's requests back as
// an FCP/1 server would (answers before their effects, PROTOCOL.md §9.3).
// ctx ending first abandons the turn (its context is cancelled) and is an
// error.
func (c *conversation) Turn(ctx context.Context, req fcp.TurnRequest, user turnlog.User) (*turnlog.Log, string, error) {
	log := &turnlog.Log{}
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ui := &ui{events: make(chan fcp.TurnLine), stop: make(chan struct{}),
		decision: make(chan executor.Decision, 1), manual: make(chan map[string]executor.ManualResult, 1)}
	defer close(ui.stop)
	type result struct {
		out executor.Outcome
		err error
	}
	done := make(chan result, 1)
	eng := c.t.ref.Engine()
	go func() {
		out, err := eng.Run(tctx, executor.Turn{Ctx: req.Ctx, Config: req.Config, User: req.User, Model: req.Model, Session: c.state}, ui)
		done <- result{out, err}
	}()
	var seq int64 = 1
	// The turn's screen (the screen op): fed every event and accepted
	// request in this goroutine, so a screen shows exactly what was read.
	st := &turnState{screen: c.t.ref.TurnScreen(0)}
	show := func(ev fcp.TurnLine, ended bool) {
		if user == nil {
			return
		}
		for _, r := range user(ev) {
			r.FCP, r.Seq = fcp.Version, seq
			seq++
			if r.Turn == nil {
				r.Turn = new(int64) // the turn's seq is 0 here
			}
			sent := r
			log.Add(turnlog.Entry{Kind: turnlog.Sent, Req: &sent})
			resp, act := st.answer(r, ui, cancel, ended)
			resp.Seq = r.Seq
			if r.Op != fcp.OpScreen && resp.OK != nil && *resp.OK {
				st.screen.UserRequest(r) // with the answer, before its effects
			}
			log.Add(turnlog.Entry{Kind: turnlog.Answer, Req: &sent, Resp: &resp})
			if act != nil {
				act()
			}
		}
	}
	for {
		select {
		case ev := <-ui.events:
			log.Add(turnlog.Entry{Kind: turnlog.Event, Line: &ev})
			st.see(ev)
			show(ev, false)
		case r := <-done:
			final := fcp.TurnLine{OK: fcp.Bool(r.err == nil), End: r.out.End, History: r.out.History}
			if r.err != nil {
				final.Error = &fcp.Error{Kind: "BadArgs", Message: r.err.Error()}
			}
			log.Add(turnlog.Entry{Kind: turnlog.Final, Line: &final})
			st.screen.Apply(final)
			show(final, true)
			return log, "", nil
		case <-ctx.Done():
			return log, "", fmt.Errorf("inproc: the turn did not end in time: %w", ctx.Err())
		}
	}
}

// turnState is what the user may answer: the waiting confirmation and
// the pending calls.
type turnState struct {
	screen  *tui.TurnScreen
	confirm []fcp.Confirmation
	pending []string
	manual  map[string]executor.ManualResult
}

func (s *turnState) see(ev fcp.TurnLine) {
	s.screen.Apply(ev)
	switch ev.Event {
	case fcp.EventConfirmation:
		s.confirm = ev.Requests
	case fcp.EventPending:
		s.pending, s.manual = nil, map[string]executor.ManualResult{}
		for _, c := range ev.Calls {
			s.pending = append(s.pending, c.ID)
		}
	}
}

// answer answers one request of the user, and returns what it causes.
// After the turn ended (ended), only screen is answered.
func (s *turnState) answer(r fcp.TurnRequest, u *ui, cancel context.CancelFunc, ended bool) (fcp.Response, func()) {
	bad := func(format string, args ...any) (fcp.Response, func()) {
		return fcp.Response{OK: fcp.Bool(false), Error: &fcp.Error{Kind: "BadArgs", Message: fmt.Sprintf(format, args...)}}, nil
	}
	ok := fcp.Response{OK: fcp.Bool(true)}
	if r.Op == fcp.OpScreen {
		if r.Width < fcp.MinScreenWidth || r.Width > fcp.MaxScreenWidth || r.Height < fcp.MinScreenHeight || r.Height > fcp.MaxScreenHeight {
			return bad("screen: size %dx%d is outside %d..%d x %d..%d", r.Width, r.Height,
				fcp.MinScreenWidth, fcp.MaxScreenWidth, fcp.MinScreenHeight, fcp.MaxScreenHeight)
		}
		sc := s.screen.Render(r.Width, r.Height)
		ok.Screen = &sc
		return ok, nil
	}
	if ended {
		return bad("op %q after the turn ended", r.Op)
	}
	switch r.Op {
	case fcp.OpCancel:
		return ok, cancel
	case fcp.OpDecide:
		if s.confirm == nil {
			return bad("decide: no confirmation is waiting")
		}
		for _, id := range r.IDs {
			if !slices.ContainsFunc(s.confirm, func(c fcp.Confirmation) bool { return c.ID == id }) {
				return bad("decide: call %q is not among the confirmation's requests", id)
			}
		}
		s.confirm = nil
		d := executor.Decision{Kind: r.Decision, IDs: r.IDs}
		return ok, func() { u.decision <- d }
	case fcp.OpToolResult:
		if !slices.Contains(s.pending, r.ID) {
			return bad("tool_result: call %q is not pending", r.ID)
		}
		if _, dup := s.manual[r.ID]; dup {
			return bad("tool_result: call %q already has a result", r.ID)
		}
		s.manual[r.ID] = executor.ManualResult{Content: r.Content, IsError: r.IsError}
		if len(s.manual) < len(s.pending) {
			return ok, nil
		}
		all := s.manual
		s.pending, s.manual = nil, nil
		return ok, func() { u.manual <- all }
	}
	return bad("op %q while a turn runs", r.Op)
}

// ui is executor.UI over channels to the conversation's goroutine.
type ui struct {
	events   chan fcp.TurnLine
	stop     chan struct{}
	decision chan executor.Decision
	manual   chan map[string]executor.ManualResult
}

var errAbandoned = errors.New("inproc: the runner abandoned the turn")

func (u *ui) Event(l fcp.TurnLine) error {
	select {
	case u.events <- l:
		return nil
	case <-u.stop:
		return errAbandoned
	}
}

func (u *ui) Confirm(ctx context.Context, _ []fcp.Confirmation) (executor.Decision, error) {
	select {
	case d := <-u.decision:
		return d, nil
	case <-ctx.Done():
		return executor.Decision{}, ctx.Err()
	}
}

func (u *ui) Manual(ctx context.Context, _ []fcp.PendingCall) (map[string]executor.ManualResult, error) {
	select {
	case m := <-u.manual:
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
