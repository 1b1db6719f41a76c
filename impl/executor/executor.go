// Package executor is the reference tool loop of TOOL_EXECUTOR_SRD.md: one
// user turn from the user's message to the end state, with a scripted model.
// It applies the tools mode (§2.6), the safety limits (§2.7), the planner's
// validation and three dispositions (FR-APR-02, FR-VAL-02), the approval
// policy in FR-APR-05's order, sequential execution with a fresh context,
// a timeout and an abort handle per call (FR-EXE-01..05), panic safety, JSON
// error passthrough, sanitization and truncation of every result
// (FR-OUT-02, FR-OUT-04), persistence in call order (FR-RES-01), auto-resume
// (FR-RES-02) and the iteration limit (FR-RES-03).
//
// The engine speaks to its user through UI: events go out as they happen,
// confirmations and manual results come back, and cancelling the context
// given to Run is the user's cancel (FR-EXE-04). Package fcpserver maps UI
// onto FCP/1's turn op (spec/PROTOCOL.md §9).
package executor

import (
	"context"
	"encoding/json"
	"path/filepath"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/executor/policy"
	"github.com/forge-conform/forge-conform/impl/sandbox"
	"github.com/forge-conform/forge-conform/impl/session"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// UI is the user side of a turn.
type UI interface {
	// Event delivers one event (its Seq is set by the caller of Run). It
	// may block: that is the backpressure of FR-OUT-01. An error ends the
	// turn.
	Event(fcp.TurnLine) error
	// Confirm asks the user about the batch's confirmation requests and
	// waits for the decision; it returns ctx's error when ctx ends first.
	Confirm(ctx context.Context, reqs []fcp.Confirmation) (Decision, error)
	// Manual waits for the user's results of the pending calls of a
	// parse-only batch (FR-MODE-02), one per id; ctx's error when ctx ends
	// first.
	Manual(ctx context.Context, calls []fcp.PendingCall) (map[string]ManualResult, error)
}

// Decision is FR-APR-03's ApprovalDecision: fcp.DecisionApproveAll,
// DecisionDenyAll, or DecisionApproveSelected with IDs.
type Decision struct {
	Kind string
	IDs  []string
}

// ManualResult is a result the user supplies in parse-only mode.
type ManualResult struct {
	Content string
	IsError bool
}

// Engine runs turns over a registry. It holds no per-turn state and is safe
// for concurrent use.
type Engine struct {
	Registry *tool.Registry
	// FS is the filesystem of every call; nil means the OS's.
	FS afero.Fs
	// Options are the engine's readings and parts; the zero value is the
	// reference.
	Options Options
}

// Turn is one user turn to run.
type Turn struct {
	Ctx    *fcp.Ctx
	Config json.RawMessage
	User   string
	Model  []fcp.ModelResponse
	// Session is the conversation (read cache); nil starts an empty one.
	Session *session.State
	// Journal records the turn durably (FR-RES-04); nil: no journal.
	Journal Journal
}

// Outcome is how a turn ended: fcp.EndDone, EndScriptEnded or
// EndCancelled, and the history it persisted.
type Outcome struct {
	End     string
	History []fcp.Message
}

// env is what every call of a turn shares (SharedToolCtx, FR-REG-05).
type env struct {
	fs        afero.Fs
	cfg       config.Config
	loop      policy.Loop
	sandbox   *sandbox.Sandbox
	wd        string
	maxOutput int64
	capacity  int64
	session   *session.State
}

func (v *env) effectiveMax() int64 { return min(v.maxOutput, v.capacity) }

// newEnv checks a turn and builds its shared context. Errors are BadArgs
// *toolerr.Error naming the problem.
func (e *Engine) newEnv(t Turn) (*env, error) {
	if t.Ctx == nil || !filepath.IsAbs(t.Ctx.WorkingDir) {
		wd := ""
		if t.Ctx != nil {
			wd = t.Ctx.WorkingDir
		}
		return nil, toolerr.New(toolerr.BadArgs,
			"turn: ctx.working_dir must be an absolute path, got %q; send the fixture root's absolute path", wd)
	}
	cfg, err := config.Parse(t.Config)
	if err != nil {
		return nil, toolerr.New(toolerr.BadArgs, "turn: invalid config: %v", err)
	}
	loop, err := e.Options.loadPolicy(cfg)
	if err != nil {
		return nil, toolerr.New(toolerr.BadArgs, "turn: invalid config: %v", err)
	}
	fs := e.FS
	if fs == nil {
		fs = afero.NewOsFs()
	}
	sbCfg := sandbox.DefaultConfig()
	if err := cfg.Table("sandbox", &sbCfg); err != nil {
		return nil, toolerr.New(toolerr.BadArgs, "turn: invalid config: %v", err)
	}
	sb, err := sandbox.New(fs, sbCfg, t.Ctx.WorkingDir)
	if err != nil {
		return nil, toolerr.New(toolerr.BadArgs, "turn: invalid [tools.sandbox] config: %v", err)
	}
	maxOut, capacity := t.Ctx.Budget()
	if t.Ctx.MaxOutputBytes == nil {
		var out struct {
			MaxBytes *int64 `json:"max_bytes"`
		}
		if err := cfg.Table("output", &out); err != nil {
			return nil, toolerr.New(toolerr.BadArgs, "turn: invalid config: %v", err)
		}
		if out.MaxBytes != nil {
			if *out.MaxBytes < 0 {
				return nil, toolerr.New(toolerr.BadArgs, "turn: [tools.output] max_bytes must be >= 0, got %d", *out.MaxBytes)
			}
			maxOut = *out.MaxBytes
		}
	}
	st := t.Session
	if st == nil {
		st = session.New()
	}
	return &env{fs: fs, cfg: cfg, loop: loop, sandbox: sb, wd: t.Ctx.WorkingDir,
		maxOutput: maxOut, capacity: capacity, session: st}, nil
}

// turnRun is one running turn.
type turnRun struct {
	e       *Engine
	env     *env
	ui      UI
	history []fcp.Message
	j       Journal // nil: no journal
	nBatch  int     // the current batch: responses with tool calls so far
	inBatch bool    // persisted messages belong to batch nBatch
}

// Run runs one user turn to its end. Cancelling ctx is the user's cancel.
// A turn that cannot start (a relative working directory, a configuration
// the engine cannot apply) fails with a BadArgs *toolerr.Error before any
// event; a UI whose Event fails ends the turn with that error.
func (e *Engine) Run(ctx context.Context, t Turn, ui UI) (Outcome, error) {
	v, err := e.newEnv(t)
	if err != nil {
		return Outcome{}, err
	}
	r := &turnRun{e: e, env: v, ui: ui, j: t.Journal}
	end, err := r.loop(ctx, t)
	if err == nil && r.j != nil {
		err = r.j.Ended(end)
	}
	return Outcome{End: end, History: r.history}, err
}

func (r *turnRun) loop(ctx context.Context, t Turn) (string, error) {
	user := fcp.Message{Type: fcp.MessageUser, Text: t.User}
	if err := r.persist(user); err != nil {
		return "", err
	}
	return r.from(ctx, t, []fcp.Message{user}, 0, 0, 0)
}

// from runs the loop from model request number first (sending sent), with
// batches enabled-mode batches run so far and resumed the batch just
// completed (0 for none); t.Model's first response answers that request.
func (r *turnRun) from(ctx context.Context, t Turn, sent []fcp.Message, first, batches, resumed int) (string, error) {
	for k := 0; ; k++ {
		i := first + k
		if resumed > 0 && r.j != nil {
			if err := r.j.Resuming(resumed); err != nil {
				return "", err
			}
		}
		r.inBatch = false
		if err := r.modelRequest(i, sent); err != nil {
			return "", err
		}
		if k >= len(t.Model) {
			return fcp.EndScriptEnded, nil
		}
		resp := t.Model[k]
		if len(resp.ToolCalls) > 0 {
			r.nBatch++
			r.inBatch = true
			if r.j != nil { // FR-RES-04a: the calls as they arrive, before anything is persisted
				if err := r.j.Received(r.nBatch, resp.Text, resp.ToolCalls); err != nil {
					return "", err
				}
				ids := make([]string, 0, len(resp.ToolCalls))
				for _, c := range resp.ToolCalls {
					ids = append(ids, c.ID)
				}
				if err := r.journaled("", ids); err != nil {
					return "", err
				}
			}
		}
		if resp.Text != "" {
			if err := r.persist(fcp.Message{Type: fcp.MessageAssistant, Text: resp.Text}); err != nil {
				return "", err
			}
		}
		if len(resp.ToolCalls) == 0 {
			return fcp.EndDone, nil
		}
		for _, c := range resp.ToolCalls { // FR-RES-01 2: tool uses, in call order
			if err := r.persist(toolUse(c)); err != nil {
				return "", err
			}
		}
		batches++
		b := &Batch{r: r, Calls: resp.ToolCalls, N: batches}
		results, end, err := r.e.Options.Modes.handler(r.env.loop.Mode)(ctx, b)
		if err != nil {
			return "", err
		}
		if end != "" {
			return end, nil
		}
		sent = results // FR-RES-02: resume with the results, in call order
		resumed = r.nBatch
	}
}

// advertised returns the tool definitions the model is offered in the
// current mode (FR-MODE-01/02, FR-REG-03a, CFG-TOOLS-02/02a).
func (r *turnRun) advertised() []fcp.ToolDescription {
	out := []fcp.ToolDescription{}
	switch r.env.loop.Mode {
	case policy.Disabled:
		return out
	case policy.ParseOnly:
		if r.env.loop.DefinitionsConfigured {
			for _, d := range r.env.loop.Definitions {
				out = append(out, fcp.ToolDescription{Name: d.Name, Description: d.Description, Parameters: d.Parameters})
			}
			return out
		}
	}
	for _, d := range r.e.Registry.Definitions() {
		out = append(out, fcp.ToolDescription{Name: d.Name, Description: d.Description, Parameters: d.Parameters})
	}
	return out
}

func (r *turnRun) modelRequest(iteration int, msgs []fcp.Message) error {
	tools := r.advertised()
	msgs = append([]fcp.Message{}, msgs...)
	return r.ui.Event(fcp.TurnLine{Event: fcp.EventModelRequest, Iteration: fcp.Int(iteration),
		Tools: &tools, Messages: &msgs})
}

// persist journals m (when a journal is set), appends it to the history
// and reports it; a journaled result is reported as such (§10.1).
func (r *turnRun) persist(m fcp.Message) error {
	if r.j != nil {
		n := 0
		if r.inBatch {
			n = r.nBatch
		}
		if err := r.j.Persisted(n, m); err != nil {
			return err
		}
	}
	r.history = append(r.history, m)
	if err := r.ui.Event(fcp.TurnLine{Event: fcp.EventMessage, Message: &m}); err != nil {
		return err
	}
	if r.j != nil && m.Type == fcp.MessageToolResult {
		return r.journaled(m.ID, nil)
	}
	return nil
}

func toolUse(c fcp.ModelCall) fcp.Message {
	m := fcp.Message{Type: fcp.MessageToolUse, ID: c.ID, Name: c.Name}
	if c.RawArgs != nil {
		raw := *c.RawArgs
		m.RawArgs = &raw
	} else {
		m.Args = c.Args
	}
	return m
}

// manual surfaces a parse-only batch and persists the user's results in
// call order (FR-MODE-02, FR-TUI-04); a call with a result in known is
// not surfaced and gets that result.
func (r *turnRun) manual(ctx context.Context, calls []fcp.ModelCall, known map[string]Result) ([]fcp.Message, bool, error) {
	pending := make([]fcp.PendingCall, 0, len(calls))
	for _, c := range calls {
		if _, ok := known[c.ID]; ok {
			continue
		}
		p := fcp.PendingCall{ID: c.ID, Name: c.Name, Args: c.Args, RawArgs: c.RawArgs}
		pending = append(pending, p)
	}
	var got map[string]ManualResult
	var cancelled bool
	if len(pending) > 0 {
		if err := r.ui.Event(fcp.TurnLine{Event: fcp.EventPending, Calls: pending}); err != nil {
			return nil, false, err
		}
		var err error
		got, err = r.ui.Manual(ctx, pending)
		cancelled = err != nil && ctx.Err() != nil
		if err != nil && !cancelled {
			return nil, false, err
		}
	}
	var out []fcp.Message
	for _, c := range calls {
		res := cancelledResult()
		if m, ok := got[c.ID]; ok && !cancelled {
			res = r.finish(Result{Content: m.Content, IsError: m.IsError}, true)
		} else if rr, ok := known[c.ID]; ok {
			res = rr
		}
		m := r.resultMessage(c.ID, res)
		if err := r.persist(m); err != nil {
			return nil, false, err
		}
		out = append(out, m)
	}
	return out, cancelled, nil
}

// Result is one call's ToolResult, with the ToolError it came from.
type Result struct {
	Content string
	IsError bool
	Err     *toolerr.Error
}

func (r *turnRun) resultMessage(id string, res Result) fcp.Message {
	content, isErr := res.Content, res.IsError
	m := fcp.Message{Type: fcp.MessageToolResult, ID: id, Content: &content, IsError: &isErr}
	if res.Err != nil {
		m.Error = wireError(res.Err)
	}
	return m
}

func wireError(te *toolerr.Error) *fcp.Error {
	w := &fcp.Error{Kind: string(te.Kind), Message: te.Message, Tool: te.Tool, File: te.File}
	if d := te.Denial; d != nil {
		w.Denial = &fcp.Denial{Reason: string(d.Reason), Tool: d.Tool, Attempted: d.Attempted,
			Resolved: d.Resolved, Pattern: d.Pattern, Message: d.Message}
	}
	return w
}

func (r *turnRun) plainError(text string) Result {
	return r.finish(Result{Content: text, IsError: true}, true)
}

func cancelledResult() Result {
	return Result{Content: CancelledByUser, IsError: true,
		Err: &toolerr.Error{Kind: toolerr.Cancelled, Message: CancelledByUser}}
}

// Texts the SRD quotes.
const (
	CancelledByUser        = "Cancelled by user"                 // FR-EXE-04
	DisabledByPolicy       = "Tool execution disabled by policy" // FR-APR-04a
	MaxIterationsReached   = "Max tool iterations reached"       // FR-RES-03
	PanickedPrefix         = "Tool panicked: "                   // FR-EXE-04b
	DeniedByUser           = "Tool call denied by user"
	toolFailedPrefixFormat = "%s failed: " // FR-ERR-JSON-TOOL-01
)
