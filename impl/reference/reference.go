// Package reference is forge-conform's reference implementation of the
// Forge tools behind the Forge Conformance Protocol (spec/PROTOCOL.md): a
// tool registry with list_directory, Codex's list_dir, read_file,
// write_file and apply_patch, and a Handle method that answers every FCP/1
// op.
//
// The same Reference serves two callers: package fcpserver wraps it into a
// JSON Lines process (`forge-conform ref`), one conversation for the whole
// process, and the suite's in-process runner calls HandleIn directly with
// a conversation of its own per case, injecting a fault-emulating
// filesystem where the case asks for one.
package reference

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/sandbox"
	"github.com/forge-conform/forge-conform/impl/session"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
	"github.com/forge-conform/forge-conform/impl/tools/applypatch"
	"github.com/forge-conform/forge-conform/impl/tools/codexlistdir"
	"github.com/forge-conform/forge-conform/impl/tools/listdir"
	"github.com/forge-conform/forge-conform/impl/tools/readfile"
	"github.com/forge-conform/forge-conform/impl/tools/searchfiles"
	"github.com/forge-conform/forge-conform/impl/tools/writefile"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// Identity of the reference implementation in hello.
const (
	Name     = "forge-conform-reference"
	Version  = "0.1.0"
	Language = "go"
)

// Ops are the FCP/1 ops the reference answers, as hello declares them.
func Ops() []string {
	return []string{fcp.OpHello, fcp.OpCall, fcp.OpReset, fcp.OpBye, fcp.OpDefinitions, fcp.OpSummary}
}

// Options configure a Reference.
type Options struct {
	// FS is the filesystem every call uses; nil means the real one
	// (fsys.OS()).
	FS afero.Fs
	// Defects switches on deliberate tool bugs, for the suite's mutation
	// self-tests. The zero value conforms.
	Defects Defects
}

// Defects are the deliberate bugs of every tool that has them, for the
// suite's mutation self-tests. The zero value conforms.
type Defects struct {
	ListDir    listdir.Defects
	ReadFile   readfile.Defects
	WriteFile  writefile.Defects
	ApplyPatch applypatch.Defects
}

// Reference answers FCP/1 requests. It owns one conversation (the read
// cache apply_patch checks, FR-TOOL-PATCH-02c), which Handle and HandleFS
// use and reset clears: the conversation of an FCP/1 process. HandleIn
// takes the conversation from its caller instead. A Reference is safe for
// concurrent use; concurrent Handle calls share its conversation.
type Reference struct {
	reg   *tool.Registry
	fs    afero.Fs
	state *session.State
}

// New builds the reference with its registry and an empty conversation.
func New(opts Options) (*Reference, error) {
	reg, err := tool.NewRegistry(
		listdir.Tool{Defects: opts.Defects.ListDir},
		codexlistdir.Tool{},
		readfile.Tool{Defects: opts.Defects.ReadFile},
		writefile.Tool{Defects: opts.Defects.WriteFile},
		applypatch.Tool{Defects: opts.Defects.ApplyPatch},
		searchfiles.New(),
	)
	if err != nil {
		return nil, fmt.Errorf("reference: building the tool registry: %w", err)
	}
	fs := opts.FS
	if fs == nil {
		fs = fsys.OS()
	}
	return &Reference{reg: reg, fs: fs, state: session.New()}, nil
}

// Registry returns the tool registry.
func (r *Reference) Registry() *tool.Registry { return r.reg }

// Hello answers op hello (with seq 0; the server sets the request's).
func (r *Reference) Hello() fcp.Response {
	return fcp.Response{
		FCP:            fcp.Version,
		Implementation: &fcp.Implementation{Name: Name, Version: Version, Language: Language},
		Tools:          r.reg.Names(),
		Ops:            Ops(),
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
		resp = fcp.Response{OK: fcp.Bool(true), Definitions: r.reg.Definitions()}
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
	if err := r.reg.Validate(name, args); err != nil {
		return Failure(err)
	}
	c, err := NewCtx(req, fs, st)
	if err != nil {
		return Failure(err)
	}
	out, err := r.reg.Call(ctx, name, args, c)
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
	t, err := r.reg.Lookup(req.Call.Name)
	if err != nil {
		return Failure(err)
	}
	if err := r.reg.Validate(req.Call.Name, req.Call.Args); err != nil {
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
	s = tool.Summarize(s)
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
	sb, err := sandbox.New(fs, sbCfg, req.Ctx.WorkingDir)
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
