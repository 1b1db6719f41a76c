package executor

import (
	"context"

	"github.com/forge-conform/forge-conform/impl/executor/policy"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// Modes handle the batches of each tools mode (§2.6); a nil field is the
// reference's handler: RejectBatch for disabled (FR-MODE-01, I-EXE-03),
// SurfaceBatch for parse-only (FR-MODE-02, I-EXE-04), RunBatch for
// enabled.
type Modes struct {
	Disabled, ParseOnly, Enabled BatchFunc
}

// BatchFunc handles one batch whose tool uses are persisted: it persists
// one result per call, in call order, and returns them (FR-RES-01,
// NFR-REL-01), with how the turn goes on: "" resumes (FR-RES-02),
// fcp.EndDone and fcp.EndCancelled end it.
type BatchFunc func(ctx context.Context, b *Batch) (results []fcp.Message, end string, err error)

// Batch is one batch of calls being handled, with the engine's operations
// on it.
type Batch struct {
	r *turnRun
	// Calls are the batch's calls, in call order.
	Calls []fcp.ModelCall
	// N counts the batches handled in the turn so far, this one included.
	N         int
	cancelled bool
}

// Call is the planned call.
func (p *Planned) Call() fcp.ModelCall { return p.call }

// Disposition is the planner's classification of the call, updated by
// the user's decision.
func (p *Planned) Disposition() Disposition { return p.disp }

// Resolve decides the call's result without running it.
func (p *Planned) Resolve(res Result) { p.disp, p.result = PreResolved, res }

// Cancelled reports whether the user cancelled the batch.
func (b *Batch) Cancelled() bool { return b.cancelled }

// Plan classifies the batch's calls with the engine's planner; past the
// iteration limit every call is pre-resolved (FR-RES-03).
func (b *Batch) Plan() []*Planned {
	r := b.r
	if b.N > r.env.loop.MaxIterationsPerTurn {
		var plan []*Planned
		for _, c := range b.Calls {
			plan = append(plan, &Planned{call: c, disp: PreResolved, result: r.plainError(MaxIterationsReached)})
		}
		return plan
	}
	return r.plan(b.Calls)
}

// Confirm asks the user once about the calls of plan that need
// confirmation, before anything runs (T-APR-01), and applies the decision:
// an approved call executes, any other gets an error result (T-APR-02); a
// cancel leaves them undecided, and cancels the batch.
func (b *Batch) Confirm(ctx context.Context, plan []*Planned) error {
	var reqs []fcp.Confirmation
	for _, p := range plan {
		if p.disp == RequiresConfirmation {
			reqs = append(reqs, *p.confirm)
		}
	}
	if len(reqs) == 0 {
		return nil
	}
	r := b.r
	if err := r.ui.Event(fcp.TurnLine{Event: fcp.EventConfirmation, Requests: reqs}); err != nil {
		return err
	}
	d, err := r.e.Options.decide(ctx, r.ui, reqs)
	switch {
	case err != nil && ctx.Err() != nil:
		b.cancelled = true
		return nil
	case err != nil:
		return err
	}
	for _, p := range plan {
		if p.disp != RequiresConfirmation {
			continue
		}
		approved := d.Kind == fcp.DecisionApproveAll ||
			d.Kind == fcp.DecisionApproveSelected && contains(d.IDs, p.call.ID)
		if approved {
			p.disp = ExecuteNow
		} else {
			p.disp, p.result = PreResolved, r.plainError(DeniedByUser)
		}
	}
	return nil
}

// Step is the result of one planned call after the decision: its planned
// result, "Cancelled by user" once the batch is cancelled (FR-EXE-04 2;
// a planned result too with Options.CancelResolved), or what executing it
// gives.
func (b *Batch) Step(ctx context.Context, p *Planned) (Result, error) {
	switch {
	case p.disp == PreResolved && !(b.r.e.Options.CancelResolved && (b.cancelled || ctx.Err() != nil)):
		return p.result, nil
	case b.cancelled || ctx.Err() != nil:
		b.cancelled = true
		return cancelledResult(), nil
	}
	res, err := b.r.execute(ctx, p)
	if err == nil && res.Err != nil && res.Err.Kind == toolerr.Cancelled {
		b.cancelled = true
	}
	return res, err
}

// Finish takes each call of plan through step, sequentially in call order
// (FR-EXE-01; a failure does not stop the batch, FR-EXE-02), and persists
// its result as it comes.
func (b *Batch) Finish(ctx context.Context, plan []*Planned, step func(context.Context, *Planned) (Result, error)) ([]fcp.Message, string, error) {
	var out []fcp.Message
	for _, p := range plan {
		res, err := step(ctx, p)
		if err != nil {
			return nil, "", err
		}
		m, err := b.Persist(p.call.ID, res)
		if err != nil {
			return nil, "", err
		}
		out = append(out, m)
	}
	if b.cancelled {
		return out, fcp.EndCancelled, nil // FR-EXE-04 3: no auto-resume
	}
	return out, "", nil
}

// Persist persists the result of call id and reports it.
func (b *Batch) Persist(id string, res Result) (fcp.Message, error) {
	m := b.r.resultMessage(id, res)
	return m, b.r.persist(m)
}

// Execute runs one call now (with its timeout, abort handle, streamed and
// sanitized output), whatever its disposition.
func (b *Batch) Execute(ctx context.Context, p *Planned) (Result, error) { return b.r.execute(ctx, p) }

// Prepare looks the call's tool up and validates its arguments, for a
// handler that runs a call without planning it; ok is false when the tool
// is unknown or the arguments invalid.
func (b *Batch) Prepare(c fcp.ModelCall) (p *Planned, t tool.Tool, ok bool) {
	args := []byte(c.ArgsText())
	t, err := b.r.e.Registry.Lookup(c.Name)
	if err != nil || b.r.e.Registry.Validate(c.Name, args) != nil {
		return nil, nil, false
	}
	return &Planned{call: c, args: args, tool: t, disp: ExecuteNow}, t, true
}

// Error is an error result with text, sanitized and truncated.
func (b *Batch) Error(text string) Result { return b.r.plainError(text) }

// RunBatch is the reference's enabled-mode batch: plan, one confirmation,
// then every call in call order.
func RunBatch(ctx context.Context, b *Batch) ([]fcp.Message, string, error) {
	plan := b.Plan()
	if err := b.Confirm(ctx, plan); err != nil {
		return nil, "", err
	}
	return b.Finish(ctx, plan, b.Step)
}

// RejectBatch is the reference's disabled-mode batch: every call answered
// by an error result, and the turn ends (I-EXE-03).
func RejectBatch(_ context.Context, b *Batch) ([]fcp.Message, string, error) {
	var out []fcp.Message
	for _, c := range b.Calls {
		m, err := b.Persist(c.ID, b.Error(`Tool calls are disabled (tools.mode = "disabled")`))
		if err != nil {
			return nil, "", err
		}
		out = append(out, m)
	}
	return out, fcp.EndDone, nil
}

// SurfaceBatch is the reference's parse-only batch: every call surfaced
// in one pending event, the user's results persisted in call order, and
// the turn ends (I-EXE-04).
func SurfaceBatch(ctx context.Context, b *Batch) ([]fcp.Message, string, error) {
	return b.Surface(ctx, b.Calls, nil)
}

// Surface surfaces the calls of the batch that have no result in known
// in one pending event and persists, in call order, the user's result or
// the known one of every call of the batch (FR-MODE-02, FR-TUI-04).
func (b *Batch) Surface(ctx context.Context, calls []fcp.ModelCall, known map[string]Result) ([]fcp.Message, string, error) {
	msgs, cancelled, err := b.r.manual(ctx, calls, known)
	if err != nil {
		return nil, "", err
	}
	if cancelled {
		return msgs, fcp.EndCancelled, nil
	}
	return msgs, fcp.EndDone, nil
}

// handler returns the handler of mode.
func (m Modes) handler(mode policy.Mode) BatchFunc {
	f, def := m.Enabled, BatchFunc(RunBatch)
	switch mode {
	case policy.Disabled:
		f, def = m.Disabled, RejectBatch
	case policy.ParseOnly:
		f, def = m.ParseOnly, SurfaceBatch
	}
	if f == nil {
		return def
	}
	return f
}
