// Package reference is forge-conform's reference implementation of the
// Forge tools behind the Forge Conformance Protocol (spec/PROTOCOL.md): a
// tool registry with list_directory, Codex's list_dir, read_file,
// write_file and apply_patch, and a Handle method that answers every FCP/1
// op.
//
// The same Reference serves two callers: package fcpserver wraps it into a
// JSON Lines process (`forge-conform ref`), one conversation for the whole
// process, and package inproc (the runner's in-process target) calls
// HandleIn directly with a conversation of its own per case, injecting a
// fault-emulating filesystem where the case asks for one.
package reference

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/journal"
	"github.com/forge-conform/forge-conform/impl/sandbox"
	"github.com/forge-conform/forge-conform/impl/session"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
	"github.com/forge-conform/forge-conform/impl/tools/applypatch"
	"github.com/forge-conform/forge-conform/impl/tools/codexlistdir"
	"github.com/forge-conform/forge-conform/impl/tools/fcptest"
	"github.com/forge-conform/forge-conform/impl/tools/listdir"
	"github.com/forge-conform/forge-conform/impl/tools/readfile"
	"github.com/forge-conform/forge-conform/impl/tools/runcommand"
	"github.com/forge-conform/forge-conform/impl/tools/searchfiles"
	"github.com/forge-conform/forge-conform/impl/tools/writefile"
	"github.com/forge-conform/forge-conform/impl/tui"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// Identity of the reference implementation in hello.
const (
	Name     = fcp.ReferenceName
	Version  = "0.1.0"
	Language = "go"
)

// Ops are the FCP/1 ops the reference answers, as hello declares them.
func Ops() []string {
	return append(append([]string{fcp.OpHello, fcp.OpCall, fcp.OpReset, fcp.OpBye, fcp.OpDefinitions, fcp.OpSummary},
		fcp.TurnOps()...), fcp.OpRecover, fcp.OpScreen)
}

// Options configure a Reference.
type Options struct {
	// FS is the filesystem every call uses; nil means the real one
	// (fsys.OS()).
	FS afero.Fs
	// TUI is how the reference TUI draws its screens (the screen op):
	// the zero value is the reference's look.
	TUI tui.Look
	// RecoverPrompt decides whether recover asks the user about an
	// interrupted batch (FR-RES-05, I-JRN-04); nil is the reference's
	// reading, (*journal.Recovery).Prompt: a call of the batch has no
	// result.
	RecoverPrompt func(*journal.Recovery) bool
	// WrapTool, when set, wraps every tool before it is registered: the
	// suite's mutants (package impl/mutants) break a tool from outside,
	// by rewriting its arguments, context or result. nil registers the
	// tools as they are.
	WrapTool func(tool.Tool) tool.Tool
	// Policies choose implementation-defined behaviour (spec/PROTOCOL.md,
	// "policies"), declared in hello: lp1_missing_file is "create" (the
	// default) or "refuse". New rejects unknown keys and values.
	Policies map[string]string
	// Environ is the environment run_command inherits (before its
	// denylist); nil means the process's (os.Environ).
	Environ func() []string
	// WrapJournal, when set, wraps the journal of every journaled turn and
	// recover (and the UI the engine reports to): the suite's durability
	// mutants (package impl/mutants) break journaling from outside. It
	// wraps the journal itself, inside the crash points, so that a crash
	// point sees what the wrapper did. nil journals as specified.
	WrapJournal func(executor.Journal, executor.UI) (executor.Journal, executor.UI)
	// AfterRecovery, when set, is called by recover after the user's
	// choice is journaled, with the calls of the batch that had no result
	// and a function that executes one (a durability mutant re-runs them;
	// FR-RES-04c forbids it). nil does nothing.
	AfterRecovery func(ctx context.Context, unfinished []fcp.PendingCall, run func(context.Context, fcp.PendingCall))
	// Executor are the tool loop's readings and parts (executor.Options):
	// the readings of impl/readings, another implementation's choices
	// (impl/forgelike's), the parts a mutant replaces. The zero value is
	// the reference's engine.
	Executor executor.Options
	// RunCommand are run_command's readings (runcommand.Options).
	RunCommand runcommand.Options
	// ReadFile, WriteFile and ApplyPatch choose the file tools' readings
	// where the SRD allows several (package impl/readings sets them); the
	// zero values are the reference's.
	ReadFile   readfile.Options
	WriteFile  writefile.Options
	ApplyPatch applypatch.Options
	// Readings names the readings of the SRDs this reference takes where
	// its default reading is not the one in force ("I-AP-02=canonical",
	// package impl/readings, which sets the options that realize them).
	// Hello then names them after the reference's name, so that a runner
	// does not hold it to the default reading's goldens.
	Readings []string
	// ListDir, CodexListDir and SearchFiles choose among the readings of
	// those tools' SRDs (package impl/readings); the zero values are the
	// reference's readings.
	ListDir      listdir.Options
	CodexListDir codexlistdir.Options
	SearchFiles  searchfiles.Options
	// NewSandbox, when set, builds the sandbox of every call request from
	// its [tools.sandbox] table instead of sandbox.New: the suite's
	// mutants (package impl/mutants) break the sandbox's construction,
	// which happens before any tool runs. nil is sandbox.New.
	NewSandbox func(fs afero.Fs, cfg sandbox.Config, workingDir string) (*sandbox.Sandbox, error)
	// Definitions, when set, gives the definitions op's answer from the
	// registry's definitions (sorted by name): the suite's mutants
	// reorder them, which no wrapper of a tool can. nil answers them as
	// they are.
	Definitions func([]fcp.Definition) []fcp.Definition
}

// DefaultPolicies are the policies the reference declares unless told
// otherwise.
func DefaultPolicies() map[string]string {
	return map[string]string{fcp.PolicyLP1MissingFile: fcp.PolicyCreate, fcp.PolicySFBackendBinaries: fcp.PolicyPath}
}

// ParsePolicy reads "key=value" as the reference's --policy flag takes it,
// checking both against fcp.PolicyValues.
func ParsePolicy(kv string) (key, value string, err error) {
	key, value, ok := strings.Cut(kv, "=")
	if !ok {
		return "", "", fmt.Errorf("policy %q: want key=value, e.g. lp1_missing_file=refuse", kv)
	}
	return key, value, checkPolicy(key, value)
}

func checkPolicy(key, value string) error {
	vals, ok := fcp.PolicyValues()[key]
	if !ok {
		keys := make([]string, 0, len(fcp.PolicyValues()))
		for k := range fcp.PolicyValues() {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return fmt.Errorf("unknown policy %q (known: %s)", key, strings.Join(keys, ", "))
	}
	if !slices.Contains(vals, value) {
		return fmt.Errorf("policy %s=%q: want one of %s", key, value, strings.Join(vals, ", "))
	}
	return nil
}

// Reference answers FCP/1 requests. It owns one conversation (the read
// cache apply_patch checks, FR-TOOL-PATCH-02c), which Handle and HandleFS
// use and reset clears: the conversation of an FCP/1 process. HandleIn
// takes the conversation from its caller instead. A Reference is safe for
// concurrent use; concurrent Handle calls share its conversation.
type Reference struct {
	reg     *tool.Registry
	regTest *tool.Registry // reg plus the fcp_* test tools (PROTOCOL.md §9.6)
	fs      afero.Fs
	state   *session.State
	// testTools is set by a hello that asks for test_tools.
	testTools atomic.Bool
	policies  map[string]string
	tuiLook   tui.Look
	// recoverPrompt is Options.RecoverPrompt.
	recoverPrompt func(*journal.Recovery) bool
	// wrapJournal and afterRecovery are Options.WrapJournal and
	// Options.AfterRecovery.
	wrapJournal   func(executor.Journal, executor.UI) (executor.Journal, executor.UI)
	afterRecovery func(context.Context, []fcp.PendingCall, func(context.Context, fcp.PendingCall))
	engine        executor.Options
	readings      []string
	newSandbox    func(afero.Fs, sandbox.Config, string) (*sandbox.Sandbox, error)
	definitions   func([]fcp.Definition) []fcp.Definition
}

// New builds the reference with its registry and an empty conversation.
func New(opts Options) (*Reference, error) {
	policies := DefaultPolicies()
	for k, v := range opts.Policies {
		if err := checkPolicy(k, v); err != nil {
			return nil, fmt.Errorf("reference: %w", err)
		}
		policies[k] = v
	}
	tools := tools(opts, policies)
	// Lazy: a served reference answers hello without compiling a schema;
	// TestSchemasCompile compiles them all as NewRegistry would.
	reg, err := tool.NewLazyRegistry(tools...)
	if err != nil {
		return nil, fmt.Errorf("reference: building the tool registry: %w", err)
	}
	regTest, err := tool.NewLazyRegistry(append(tools, fcptest.Tools()...)...)
	if err != nil {
		return nil, fmt.Errorf("reference: building the tool registry with the test tools: %w", err)
	}
	fs := opts.FS
	if fs == nil {
		fs = fsys.OS()
	}
	return &Reference{reg: reg, regTest: regTest, fs: fs, state: session.New(), policies: policies,
		tuiLook:     opts.TUI,
		wrapJournal: opts.WrapJournal, afterRecovery: opts.AfterRecovery,
		recoverPrompt: opts.RecoverPrompt, engine: opts.Executor,
		readings: slices.Clone(opts.Readings), newSandbox: opts.NewSandbox,
		definitions: opts.Definitions}, nil
}

// Registry returns the tool registry: with the fcp_* test tools once a
// hello asked for them.
func (r *Reference) Registry() *tool.Registry {
	if r.testTools.Load() {
		return r.regTest
	}
	return r.reg
}

// HelloFor answers hello; test_tools registers the fcp_* test tools for the
// rest of the process (PROTOCOL.md §9.5).
func (r *Reference) HelloFor(req fcp.Request) fcp.Response {
	if req.TestTools {
		r.testTools.Store(true)
	}
	return r.Hello()
}

// Turn runs one turn (PROTOCOL.md §9) with the reference engine over the
// registry, in the reference's own conversation.
func (r *Reference) Turn(ctx context.Context, req fcp.TurnRequest, ui executor.UI) (executor.Outcome, error) {
	t := executor.Turn{Ctx: req.Ctx, Config: req.Config, User: req.User, Model: req.Model, Session: r.state}
	if req.Ctx != nil && req.Ctx.JournalDir != "" {
		return r.turnJournaled(ctx, req, ui, t)
	}
	return r.Engine().Run(ctx, t, ui)
}

// Engine is the reference's tool loop over its registry and filesystem.
func (r *Reference) Engine() *executor.Engine {
	return &executor.Engine{Registry: r.Registry(), FS: r.fs, Options: r.engine}
}

// TurnScreen returns the reference TUI's screen of the turn seq (the screen
// op, PROTOCOL.md §10): the same state and renderer as forge-conform ref
// --tui.
func (r *Reference) TurnScreen(seq int64) *tui.TurnScreen {
	return tui.NewTurnScreen(seq, r.tuiLook, nil)
}

// tools returns the reference's tools, in registration order, wrapped by
// opts.WrapTool when set.
func tools(opts Options, policies map[string]string) []tool.Tool {
	ts := []tool.Tool{
		listdir.Tool{Options: opts.ListDir},
		codexlistdir.Tool{Options: opts.CodexListDir},
		readfile.Tool{Options: opts.ReadFile},
		writefile.Tool{Options: opts.WriteFile},
		applypatch.Tool{MissingFile: policies[fcp.PolicyLP1MissingFile], Options: opts.ApplyPatch},
		searchfiles.New().With(opts.SearchFiles).WithEnviron(opts.Environ),
		runcommand.Tool{Environ: opts.Environ, Options: opts.RunCommand},
	}
	if opts.WrapTool != nil {
		for i, t := range ts {
			ts[i] = opts.WrapTool(t)
		}
	}
	return ts
}

// Hello answers op hello (with seq 0; the server sets the request's).
func (r *Reference) Hello() fcp.Response {
	name := Name
	if len(r.readings) > 0 {
		name += " (readings " + strings.Join(r.readings, ", ") + ")"
	}
	return fcp.Response{
		FCP:            fcp.Version,
		Implementation: &fcp.Implementation{Name: name, Version: Version, Language: Language},
		Tools:          r.Registry().Names(),
		Ops:            Ops(),
		Policies:       maps.Clone(r.policies),
		CrashPoints:    fcp.ExtraCrashPoints(),
	}
}

// Handle answers one request with the reference's filesystem, in the
// reference's own conversation.
func (r *Reference) Handle(ctx context.Context, req fcp.Request) fcp.Response {
	return r.HandleIn(ctx, req, r.fs, r.state)
}

// HandleFS answers one request in the reference's own conversation; a call
// uses fs instead of the reference's filesystem (nil means the
// reference's), so that a runner can inject faults per case.
func (r *Reference) HandleFS(ctx context.Context, req fcp.Request, fs afero.Fs) fcp.Response {
	return r.HandleIn(ctx, req, fs, r.state)
}

// HandleIn answers one request in the conversation st, with fs as the
// filesystem (nil means the reference's; a nil st means the reference's own
// conversation). A caller that runs independent conversations (the
// in-process runner: one per case) passes a session.New() of its own to
// every request of one conversation; reset clears st. The response carries
// req.Seq.
func (r *Reference) HandleIn(ctx context.Context, req fcp.Request, fs afero.Fs, st *session.State) fcp.Response {
	if fs == nil {
		fs = r.fs
	}
	if st == nil {
		st = r.state
	}
	var resp fcp.Response
	switch req.Op {
	case fcp.OpHello:
		resp = r.Hello()
	case fcp.OpCall:
		resp = r.call(ctx, req, fs, st)
	case fcp.OpDefinitions:
		defs := r.Registry().Definitions()
		if r.definitions != nil {
			defs = r.definitions(defs)
		}
		resp = fcp.Response{OK: fcp.Bool(true), Definitions: defs}
	case fcp.OpSummary:
		resp = r.summary(req)
	case fcp.OpReset:
		st.Reset()
		resp = fcp.Response{OK: fcp.Bool(true)}
	case fcp.OpBye:
		resp = fcp.Response{OK: fcp.Bool(true)}
	default:
		resp = Failure(toolerr.New(toolerr.BadArgs, "unknown op %q; this implementation answers %s",
			req.Op, strings.Join(Ops(), ", ")))
	}
	resp.Seq = req.Seq
	return resp
}

// call runs one tool call: look up and validate (so that UnknownTool and
// BadArgs come before any configuration problem), build a fresh tool.Ctx
// from ctx and config (FR-REG-04a) in conversation st, execute.
func (r *Reference) call(ctx context.Context, req fcp.Request, fs afero.Fs, st *session.State) fcp.Response {
	if req.Call == nil {
		return Failure(toolerr.New(toolerr.BadArgs,
			`call request has no "call" object; send "call":{"id":..,"name":..,"args":{..}}`))
	}
	name, args := req.Call.Name, req.Call.Args
	reg := r.Registry()
	if err := reg.Validate(name, args); err != nil {
		return Failure(err)
	}
	c, err := newCtx(req, fs, st, r.newSandbox)
	if err != nil {
		return Failure(err)
	}
	out, err := reg.Call(ctx, name, args, c)
	if err != nil {
		return Failure(err)
	}
	return Success(out, c.AllowTruncation)
}

// summary answers op summary: the approval summary and risk level the
// planner would show for the call (FR-APR-01, FR-APR-06), computed after
// schema validation and without touching the filesystem (FR-REG-01a).
func (r *Reference) summary(req fcp.Request) fcp.Response {
	if req.Call == nil {
		return Failure(toolerr.New(toolerr.BadArgs,
			`summary request has no "call" object; send "call":{"id":..,"name":..,"args":{..}}`))
	}
	reg := r.Registry()
	t, err := reg.Lookup(req.Call.Name)
	if err != nil {
		return Failure(err)
	}
	if err := reg.Validate(req.Call.Name, req.Call.Args); err != nil {
		return Failure(err)
	}
	conf, err := config.Parse(req.Config)
	if err != nil {
		return Failure(toolerr.New(toolerr.ExecutionFailed, "invalid config: %v", err))
	}
	s, err := t.ApprovalSummary(req.Call.Args, conf)
	if err != nil {
		return Failure(err)
	}
	s = r.engine.Summary(s)
	return fcp.Response{OK: fcp.Bool(true), Summary: &s, RiskLevel: string(t.RiskLevel())}
}

// NewCtx builds the per-call context of a call request: its configuration
// ([tools.sandbox] decoded over sandbox.DefaultConfig()), the sandbox, the
// working directory, the output budget with FCP/1's defaults, and the
// conversation st the call belongs to (nil: a conversation that has read
// nothing). Errors are *toolerr.Error: BadArgs for a missing or relative
// ctx.working_dir, ExecutionFailed naming the configuration problem
// otherwise.
func NewCtx(req fcp.Request, fs afero.Fs, st *session.State) (*tool.Ctx, error) {
	return newCtx(req, fs, st, nil)
}

// newCtx is NewCtx with the sandbox built by newSandbox (nil: sandbox.New).
func newCtx(req fcp.Request, fs afero.Fs, st *session.State, newSandbox func(afero.Fs, sandbox.Config, string) (*sandbox.Sandbox, error)) (*tool.Ctx, error) {
	if newSandbox == nil {
		newSandbox = sandbox.New
	}
	if req.Ctx == nil || !filepath.IsAbs(req.Ctx.WorkingDir) {
		wd := ""
		if req.Ctx != nil {
			wd = req.Ctx.WorkingDir
		}
		return nil, toolerr.New(toolerr.BadArgs,
			"ctx.working_dir must be an absolute path, got %q; send the fixture root's absolute path", wd)
	}
	conf, err := config.Parse(req.Config)
	if err != nil {
		return nil, toolerr.New(toolerr.ExecutionFailed, "invalid config: %v", err)
	}
	sbCfg := sandbox.DefaultConfig()
	if err := conf.Table("sandbox", &sbCfg); err != nil {
		return nil, toolerr.New(toolerr.ExecutionFailed, "invalid config: %v", err)
	}
	sb, err := newSandbox(fs, sbCfg, req.Ctx.WorkingDir)
	if err != nil {
		return nil, toolerr.New(toolerr.ExecutionFailed, "invalid [tools.sandbox] config: %v", err)
	}
	maxOut, capacity := req.Ctx.Budget()
	id := ""
	if req.Call != nil {
		id = req.Call.ID
	}
	return &tool.Ctx{
		FS:                     fs,
		Sandbox:                sb,
		WorkingDir:             req.Ctx.WorkingDir,
		MaxOutputBytes:         maxOut,
		AvailableCapacityBytes: capacity,
		AllowTruncation:        true,
		ToolCallID:             id,
		Config:                 conf,
		Session:                st,
	}, nil
}

// Success is a call's success response.
func Success(content string, allowTruncation bool) fcp.Response {
	return fcp.Response{OK: fcp.Bool(true), Content: &content, AllowTruncation: &allowTruncation}
}

// Failure is the error response for err: a *toolerr.Error keeps its kind
// and fields; any other error is ExecutionFailed.
func Failure(err error) fcp.Response {
	return fcp.Response{OK: fcp.Bool(false), Error: WireError(err)}
}

// WireError converts err to FCP/1's error object without losing a field.
func WireError(err error) *fcp.Error {
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
