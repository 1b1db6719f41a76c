package fcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"

	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/toolerr"
	"github.com/forge-conform/forge-conform/impl/tui"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// TurnHandler is implemented by handlers that run turns (spec/PROTOCOL.md
// §9). Turn runs one turn to its end; cancelling ctx is the user's cancel.
// An error before any event is answered as the turn's error response.
type TurnHandler interface {
	Turn(ctx context.Context, req fcp.TurnRequest, ui executor.UI) (executor.Outcome, error)
}

// RecoverHandler is implemented by handlers that answer recover
// (spec/PROTOCOL.md §10.3): it runs like a turn, and its recovery prompt is
// answered with decide (executor.RecoveryUI).
type RecoverHandler interface {
	Recover(ctx context.Context, req fcp.TurnRequest, ui executor.UI) (executor.Outcome, error)
}

// turnManager runs at most one turn at a time beside the request loop and
// routes decide, cancel and tool_result to it.
type turnManager struct {
	h  Handler
	lw *lineWriter

	mu  sync.Mutex
	cur *runningTurn
	// lastScreen is the screen of the running or last turn, when the
	// handler is a Screener; it is used under lw's lock only.
	lastScreen *tui.TurnScreen
}

// runningTurn is the state of the running turn; its fields other than the
// channels are guarded by turnManager.mu.
type runningTurn struct {
	seq    int64
	cancel context.CancelFunc
	done   chan struct{}

	confirm  []fcp.Confirmation // the confirmation waiting for decide
	decision chan executor.Decision

	choices []string    // the recovery prompt's choices waiting for decide
	choice  chan string // the recovery choice

	pending    []string // ids waiting for tool_result, in call order
	manual     map[string]executor.ManualResult
	manualDone chan map[string]executor.ManualResult
}

// stop cancels the running turn, if any, and waits for its final response.
func (m *turnManager) stop() error {
	m.mu.Lock()
	t := m.cur
	m.mu.Unlock()
	if t != nil {
		t.cancel()
		<-t.done
	}
	return nil
}

// route answers the lines that concern turns: the four turn ops, and any
// op while a turn runs. handled false leaves the line to dispatch; a nil
// response with handled true means a turn started.
func (m *turnManager) route(ctx context.Context, line []byte) (*fcp.Response, bool) {
	th, ok := m.h.(TurnHandler)
	if !ok {
		return nil, false
	}
	var head struct {
		FCP *int   `json:"fcp"`
		Seq *int64 `json:"seq"`
		Op  string `json:"op"`
	}
	if json.Unmarshal(line, &head) != nil || head.Seq == nil || head.FCP == nil || *head.FCP != fcp.Version {
		return nil, false // dispatch explains what is wrong
	}
	seq := *head.Seq
	rh, canRecover := m.h.(RecoverHandler)
	isTurnOp := slices.Contains(fcp.TurnOps(), head.Op) || (head.Op == fcp.OpRecover && canRecover)
	m.mu.Lock()
	cur := m.cur
	m.mu.Unlock()
	if _, ok := m.h.(Screener); ok && head.Op == fcp.OpScreen {
		m.screen(line, seq)
		return nil, true
	}
	if !isTurnOp {
		if cur == nil {
			return nil, false
		}
		r := failure(seq, "op %q while the turn of seq %d runs; until its final response only decide, cancel and tool_result are answered", head.Op, cur.seq)
		return &r, true
	}
	var req fcp.TurnRequest
	if err := json.Unmarshal(line, &req); err != nil {
		r := failure(seq, "%s request is not valid: %s", head.Op, describeDecodeError(err))
		return &r, true
	}
	req.Seq = seq
	var err *toolerr.Error
	var act func() // runs after the ok answer is out, so the answer precedes its effects
	switch head.Op {
	case fcp.OpTurn:
		if cur != nil {
			err = toolerr.New(toolerr.BadArgs, "a turn (seq %d) is already running; wait for its final response", cur.seq)
		} else if err = checkTurn(line); err == nil {
			m.start(ctx, th.Turn, req)
			return nil, true
		}
	case fcp.OpRecover:
		if cur != nil {
			err = toolerr.New(toolerr.BadArgs, "a turn (seq %d) is running; recover after its final response", cur.seq)
		} else {
			m.start(ctx, rh.Recover, req)
			return nil, true
		}
	case fcp.OpDecide:
		act, err = m.decide(cur, req)
	case fcp.OpCancel:
		if err = m.owns(cur, req); err == nil {
			act = cur.cancel
		}
	case fcp.OpToolResult:
		act, err = m.toolResult(cur, req)
	}
	if err != nil {
		r := failure(seq, "%s", err.Message)
		return &r, true
	}
	werr := m.lw.writeWith(func() any {
		m.mu.Lock()
		sc := m.lastScreen
		m.mu.Unlock()
		if sc != nil && sc.Seq() == cur.seq {
			sc.UserRequest(req) // with the answer, before its effects
		}
		return fcp.Response{Seq: seq, OK: fcp.Bool(true)}
	})
	if werr != nil {
		cur.cancel()
	}
	if act != nil {
		act()
	}
	return nil, true
}

// checkTurn reports the members a turn request lacks.
func checkTurn(line []byte) *toolerr.Error {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return toolerr.New(toolerr.BadArgs, "turn request is not a JSON object")
	}
	for _, k := range []string{"ctx", "user", "model"} {
		if _, ok := m[k]; !ok {
			return toolerr.New(toolerr.BadArgs, "turn request has no %q; a turn needs ctx, user and model", k)
		}
	}
	return nil
}

func (m *turnManager) owns(cur *runningTurn, req fcp.TurnRequest) *toolerr.Error {
	switch {
	case cur == nil:
		return toolerr.New(toolerr.BadArgs, "%s: no turn is running", req.Op)
	case req.Turn == nil || *req.Turn != cur.seq:
		return toolerr.New(toolerr.BadArgs, "%s names turn %v, but the running turn is seq %d", req.Op, deref(req.Turn), cur.seq)
	}
	return nil
}

func deref(p *int64) any {
	if p == nil {
		return "none"
	}
	return *p
}

func (m *turnManager) decide(cur *runningTurn, req fcp.TurnRequest) (func(), *toolerr.Error) {
	if err := m.owns(cur, req); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if cur.choices != nil {
		if !slices.Contains(cur.choices, req.Decision) {
			return nil, toolerr.New(toolerr.BadArgs, "decide: the recovery prompt offers %q, not %q", cur.choices, req.Decision)
		}
		cur.choices = nil
		c := req.Decision
		return func() { cur.choice <- c }, nil
	}
	if cur.confirm == nil {
		return nil, toolerr.New(toolerr.BadArgs, "decide: no confirmation is waiting in turn %d", cur.seq)
	}
	switch req.Decision {
	case fcp.DecisionApproveAll, fcp.DecisionDenyAll:
	case fcp.DecisionApproveSelected:
		for _, id := range req.IDs {
			if !slices.ContainsFunc(cur.confirm, func(c fcp.Confirmation) bool { return c.ID == id }) {
				return nil, toolerr.New(toolerr.BadArgs, "decide: call %q is not among the confirmation's requests", id)
			}
		}
	default:
		return nil, toolerr.New(toolerr.BadArgs, "decide: decision %q is unknown; use approve_all, deny_all or approve_selected", req.Decision)
	}
	cur.confirm = nil
	d := executor.Decision{Kind: req.Decision, IDs: req.IDs}
	return func() { cur.decision <- d }, nil
}

func (m *turnManager) toolResult(cur *runningTurn, req fcp.TurnRequest) (func(), *toolerr.Error) {
	if err := m.owns(cur, req); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !slices.Contains(cur.pending, req.ID) {
		return nil, toolerr.New(toolerr.BadArgs, "tool_result: call %q is not pending in turn %d", req.ID, cur.seq)
	}
	if _, dup := cur.manual[req.ID]; dup {
		return nil, toolerr.New(toolerr.BadArgs, "tool_result: call %q already has a result", req.ID)
	}
	cur.manual[req.ID] = executor.ManualResult{Content: req.Content, IsError: req.IsError}
	if len(cur.manual) < len(cur.pending) {
		return nil, nil
	}
	all := cur.manual
	cur.pending, cur.manual = nil, nil
	return func() { cur.manualDone <- all }, nil
}

func (m *turnManager) start(ctx context.Context, run func(context.Context, fcp.TurnRequest, executor.UI) (executor.Outcome, error), req fcp.TurnRequest) {
	tctx, cancel := context.WithCancel(ctx)
	t := &runningTurn{seq: req.Seq, cancel: cancel, done: make(chan struct{}),
		decision: make(chan executor.Decision, 1), manualDone: make(chan map[string]executor.ManualResult, 1),
		choice: make(chan string, 1)}
	var sc *tui.TurnScreen
	if s, ok := m.h.(Screener); ok {
		sc = s.TurnScreen(req.Seq)
	}
	m.mu.Lock()
	m.cur = t
	if sc != nil {
		m.lastScreen = sc
	}
	m.mu.Unlock()
	go func() {
		defer close(t.done)
		defer cancel()
		out, err := run(tctx, req, &serverUI{m: m, t: t})
		final := fcp.TurnLine{Seq: t.seq}
		if err != nil {
			final.OK, final.Error = fcp.Bool(false), wireError(err)
		} else {
			final.OK, final.End, final.History = fcp.Bool(true), out.End, out.History
		}
		m.mu.Lock()
		m.cur = nil // before the final line, so the next request finds no turn
		m.mu.Unlock()
		_ = m.lw.writeWith(func() any { m.applyScreen(t.seq, final); return final })
	}()
}

// serverUI is executor.UI over the protocol.
type serverUI struct {
	m *turnManager
	t *runningTurn
}

func (u *serverUI) Event(l fcp.TurnLine) error {
	l.Seq = u.t.seq
	// Register what the user may answer before the line is out.
	switch l.Event {
	case fcp.EventConfirmation:
		u.m.mu.Lock()
		u.t.confirm = l.Requests
		u.m.mu.Unlock()
	case fcp.EventRecovered:
		if l.Prompt != nil && *l.Prompt {
			u.m.mu.Lock()
			u.t.choices = l.Choices
			u.m.mu.Unlock()
		}
	case fcp.EventPending:
		u.m.mu.Lock()
		u.t.pending, u.t.manual = nil, map[string]executor.ManualResult{}
		for _, c := range l.Calls {
			u.t.pending = append(u.t.pending, c.ID)
		}
		u.m.mu.Unlock()
	}
	return u.m.lw.writeWith(func() any { u.m.applyScreen(u.t.seq, l); return l })
}

// applyScreen shows l on the turn's screen; called under lw's lock.
func (m *turnManager) applyScreen(seq int64, l fcp.TurnLine) {
	m.mu.Lock()
	sc := m.lastScreen
	m.mu.Unlock()
	if sc != nil && sc.Seq() == seq {
		sc.Apply(l)
	}
}

func (u *serverUI) Confirm(ctx context.Context, _ []fcp.Confirmation) (executor.Decision, error) {
	select {
	case d := <-u.t.decision:
		return d, nil
	case <-ctx.Done():
		return executor.Decision{}, ctx.Err()
	}
}

// ChooseRecovery waits for the decide that answers the recovery prompt.
func (u *serverUI) ChooseRecovery(ctx context.Context, _ []string) (string, error) {
	select {
	case c := <-u.t.choice:
		return c, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (u *serverUI) Manual(ctx context.Context, _ []fcp.PendingCall) (map[string]executor.ManualResult, error) {
	select {
	case r := <-u.t.manualDone:
		return r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// wireError converts err to FCP/1's error object.
func wireError(err error) *fcp.Error {
	var te *toolerr.Error
	if !errors.As(err, &te) {
		return &fcp.Error{Kind: string(toolerr.ExecutionFailed), Message: err.Error()}
	}
	w := &fcp.Error{Kind: string(te.Kind), Message: te.Message, Tool: te.Tool, File: te.File}
	if d := te.Denial; d != nil {
		w.Denial = &fcp.Denial{Reason: string(d.Reason), Tool: d.Tool, Attempted: d.Attempted,
			Resolved: d.Resolved, Pattern: d.Pattern, Message: d.Message}
	}
	return w
}
