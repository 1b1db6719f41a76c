// Package runner is the conformance engine. It materializes each case's
// fixture, sends the case's call to the implementation under test (the
// in-process reference, or any binary speaking FCP/1), normalizes the
// response, runs the checks, and aggregates verdicts per case and per
// requirement ID.
//
// A misbehaving implementation costs one case: a timeout, crash, garbage
// line, flood or wrong seq is reported as "errored" with the reason and the
// tail of its stderr, the process group is killed, and the next case starts
// a fresh process. Every temp dir is removed by Close.
package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/forge-conform/forge-conform/conformance/check"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/fcpclient"
	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/scripts/gen-fixtures/fixture"
	"github.com/forge-conform/forge-conform/spec"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// Status is a case's or an ID's verdict.
type Status string

// The verdicts.
const (
	Passed  Status = "passed"
	Failed  Status = "failed"
	Skipped Status = "skipped"
	Errored Status = "errored"
)

// Mode selects how a binary is driven.
const (
	ModeSession = "session"
	ModeOneShot = "oneshot"
)

// Options configure a run. Zero values take the documented defaults.
type Options struct {
	Corpus   *corpus.Corpus
	Specs    *spec.Set
	Fixtures map[string]*fixture.Fixture
	// Golden holds golden files as <spec>/<case>.golden; nil skips the
	// golden check (reported once as a note).
	Golden fs.FS

	// Binary is the implementation's argv; empty runs the built-in
	// reference in-process.
	Binary []string
	Mode   string // ModeSession (default) or ModeOneShot
	// RunAs is the user that runs Binary when the runner is root
	// (default "nobody"); "root" runs it as root.
	RunAs string
	// Defects turns the in-process reference into a mutant (tests of the
	// suite itself).
	Defects reference.Defects

	Jobs    int           // parallel workers (default 1)
	Timeout time.Duration // per case (default 10s)

	// Select filters cases; nil runs all.
	Select *Selector
	// Expected lists expected failures (skip file).
	Expected []Expected
	// TempDir is where fixtures are materialized (default os.TempDir()).
	TempDir string
	// Config is deep-merged over every case's config object (objects merge
	// key by key, anything else replaces): run the corpus under another
	// configuration, e.g. {"tools":{"search_files":{"backend":"rg"}}}.
	Config json.RawMessage
}

// Result is the verdict on one case.
type Result struct {
	Case     *corpus.Case
	Status   Status
	Message  string
	Failures []check.Failure
	Stderr   string
	// Response is the normalized response ($ROOT, $OUTSIDE), and Golden
	// its rendering as a golden file (what `golden update` writes).
	Response *fcp.Response
	Golden   []byte
	Duration time.Duration
	// ExpectedFailure is set when a skip file listed the case and it failed:
	// it ran, and its status is Skipped.
	ExpectedFailure bool
}

// IDResult is the verdict on one requirement ID.
type IDResult struct {
	Spec     string
	ID       string
	Status   Status // passed, failed, errored, skipped, or "uncovered"/"untestable"
	Cases    []string
	Testable bool
	Level    spec.Level
	Summary  string
}

// Run is the outcome of a whole run.
type Run struct {
	Implementation fcp.Implementation
	Notes          []string
	Results        []*Result
	IDs            []IDResult
	Elapsed        time.Duration
}

// Summary counts cases by status.
func (r *Run) Summary() map[Status]int {
	m := map[Status]int{Passed: 0, Failed: 0, Skipped: 0, Errored: 0}
	for _, res := range r.Results {
		m[res.Status]++
	}
	return m
}

// Ran counts the cases that were executed: every case but those skipped
// without running (unselected, unsupported, impossible here).
func (r *Run) Ran() int {
	n := 0
	for _, res := range r.Results {
		if res.Status != Skipped || res.ExpectedFailure {
			n++
		}
	}
	return n
}

// OK reports whether no case failed or errored.
func (r *Run) OK() bool {
	s := r.Summary()
	return s[Failed] == 0 && s[Errored] == 0
}

// Runner runs cases. Build one with New, Close it to kill processes and
// remove temp dirs.
type Runner struct {
	opts   Options
	target target
	hello  fcp.Response
	notes  []string
	// caps of the target
	inProcess    bool
	unprivileged bool // permission checks apply to the implementation
	tools, ops   map[string]bool
	allTools     bool
	chown        *fixture.Owner

	mutating map[string]bool // tools that change files (fresh fixture per case)
	fresh    int64           // counter of private fixture copies

	base     string
	mu       sync.Mutex
	layouts  map[string]*layoutOnce
	nextCall int64
}

type layoutOnce struct {
	once   sync.Once
	layout fixture.Layout
	err    error
}

// New prepares a run: starts (or builds) the implementation, asks hello,
// and creates the temp dir fixtures go to.
func New(ctx context.Context, opts Options) (*Runner, error) {
	if opts.Corpus == nil || opts.Specs == nil || opts.Fixtures == nil {
		return nil, errors.New("runner: Corpus, Specs and Fixtures are required")
	}
	if opts.Mode == "" {
		opts.Mode = ModeSession
	}
	if err := checkConfig(opts.Config); err != nil {
		return nil, err
	}
	if opts.Mode != ModeSession && opts.Mode != ModeOneShot {
		return nil, fmt.Errorf("--mode %q: want session or oneshot", opts.Mode)
	}
	if opts.Jobs < 1 {
		opts.Jobs = 1
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.RunAs == "" {
		opts.RunAs = "nobody"
	}
	r := &Runner{opts: opts, layouts: map[string]*layoutOnce{}, mutating: map[string]bool{}}
	for _, c := range opts.Specs.Catalogs {
		for _, t := range c.MutatingTools {
			r.mutating[t] = true
		}
	}
	root := os.Geteuid() == 0
	if len(opts.Binary) == 0 {
		t, err := newInProcess(reference.Options{Defects: opts.Defects}, root)
		if err != nil {
			return nil, err
		}
		r.target, r.inProcess, r.unprivileged = t, true, true
		if root {
			// Fixtures belong to the emulated user, as they belong to the
			// --run-as user for a binary.
			r.chown = &fixture.Owner{UID: 65534, GID: 65534}
			r.notes = append(r.notes, "running as root: permission cases use in-process permission emulation (afero PermFs) as an unprivileged user would see them")
		}
	} else {
		co := fcpclient.Options{Command: append([]string(nil), opts.Binary...)}
		path, err := exec.LookPath(co.Command[0])
		if err != nil {
			return nil, fmt.Errorf("--binary: %w", err)
		}
		co.Command[0] = path
		r.unprivileged = !root
		if root && opts.RunAs != "root" {
			cred, err := credentialFor(opts.RunAs, path)
			if err != nil {
				return nil, err
			}
			co.Credential = cred
			r.chown = &fixture.Owner{UID: int(cred.Uid), GID: int(cred.Gid)}
			r.unprivileged = true
			r.notes = append(r.notes, fmt.Sprintf("running as root: the implementation runs as %s (uid %d) so permission cases apply", opts.RunAs, cred.Uid))
		} else if root {
			r.notes = append(r.notes, "the implementation runs as root (--run-as root): cases on permission-restricted fixtures are skipped")
		}
		v, err := fcp.NewValidator()
		if err != nil {
			return nil, err
		}
		co.Validator = v
		r.target = newBinary(co, opts.Mode == ModeOneShot)
	}
	base, err := os.MkdirTemp(opts.TempDir, "forge-conform-")
	if err != nil {
		r.target.close()
		return nil, fmt.Errorf("creating the fixture dir: %w (set TMPDIR to a writable directory)", err)
	}
	if err := os.Chmod(base, 0o755); err != nil {
		r.target.close()
		_ = os.RemoveAll(base)
		return nil, err
	}
	r.base = base
	if r.chown != nil || (r.inProcess && root) {
		// The unprivileged user (real or emulated) must reach the fixtures.
		uid, gid := 65534, 65534
		if r.chown != nil {
			uid, gid = r.chown.UID, r.chown.GID
		}
		if err := reachable(base, uid, gid); err != nil {
			r.Close()
			return nil, fmt.Errorf("the fixture dir %s is not reachable by an unprivileged user: %w; set TMPDIR to a directory every user can search, such as /tmp", base, err)
		}
	}
	if err := r.sayHello(ctx); err != nil {
		r.Close()
		return nil, err
	}
	if opts.Golden == nil {
		r.notes = append(r.notes, "no golden files: exact-bytes checks are skipped")
	}
	return r, nil
}

func (r *Runner) sayHello(ctx context.Context) error {
	hctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	resp, err := r.target.hello(hctx)
	if err == nil && (resp.Error != nil || (resp.OK != nil && !*resp.OK)) {
		msg := "ok:false"
		if resp.Error != nil {
			msg = resp.Error.Kind + ": " + resp.Error.Message
		}
		err = errors.New("hello answered with an error (" + msg + ")")
	}
	if err != nil {
		var pe *fcpclient.ProtocolError
		if errors.As(err, &pe) && pe.Kind == "start" {
			return fmt.Errorf("starting the implementation: %w", err)
		}
		r.notes = append(r.notes, "hello failed ("+err.Error()+"): treating the implementation as declaring every tool and only the op call")
		r.allTools = true
		r.ops = map[string]bool{fcp.OpCall: true}
		r.hello = fcp.Response{Implementation: &fcp.Implementation{Name: strings.Join(r.opts.Binary, " ")}}
		return nil
	}
	r.hello = resp
	r.tools, r.ops = map[string]bool{}, map[string]bool{fcp.OpHello: true, fcp.OpCall: true}
	for _, t := range resp.Tools {
		r.tools[t] = true
	}
	for _, o := range resp.Ops {
		r.ops[o] = true
	}
	return nil
}

// Implementation returns what hello said.
func (r *Runner) Implementation() fcp.Implementation {
	if r.hello.Implementation != nil {
		return *r.hello.Implementation
	}
	return fcp.Implementation{}
}

// Notes are facts about the run a report should show.
func (r *Runner) Notes() []string { return append([]string(nil), r.notes...) }

// Close kills every process and removes every temp dir.
func (r *Runner) Close() {
	if r.target != nil {
		r.target.close()
	}
	if r.base != "" {
		_ = fixture.RemoveAll(r.base)
		r.base = ""
	}
}

// RunAll runs every selected case with Jobs workers.
func (r *Runner) RunAll(ctx context.Context) *Run {
	start := time.Now()
	cases := r.opts.Corpus.Cases
	results := make([]*Result, len(cases))
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < r.opts.Jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				results[i] = r.RunCase(ctx, cases[i])
			}
		}()
	}
	for i := range cases {
		work <- i
	}
	close(work)
	wg.Wait()
	run := &Run{Implementation: r.Implementation(), Notes: r.Notes(), Results: results, Elapsed: time.Since(start)}
	run.IDs = Aggregate(r.opts.Specs, results)
	return run
}

// RunCase runs one case and returns its verdict.
func (r *Runner) RunCase(ctx context.Context, c *corpus.Case) (res *Result) {
	start := time.Now()
	defer func() {
		// A bug in a check must cost one case, never the run (and its
		// cleanup of processes and temp dirs).
		if p := recover(); p != nil {
			res = &Result{Case: c, Status: Errored, Message: fmt.Sprintf("internal error in forge-conform (please report): %v", p), Duration: time.Since(start)}
		}
	}()
	res = r.runCase(ctx, c)
	res.Duration = time.Since(start)
	r.applyExpected(res)
	return res
}

func (r *Runner) runCase(ctx context.Context, c *corpus.Case) *Result {
	res := &Result{Case: c}
	if r.opts.Select != nil && !r.opts.Select.Match(c) {
		res.Status, res.Message = Skipped, "not selected by --run/--skip"
		return res
	}
	if reason := r.unsupported(c); reason != "" {
		res.Status, res.Message = Skipped, reason
		return res
	}
	fx, ok := r.opts.Fixtures[c.Fixture]
	if c.Op == fcp.OpCall && !ok {
		res.Status, res.Message = Errored, fmt.Sprintf("case names fixture %q, which does not exist in fixtures/", c.Fixture)
		return res
	}
	if c.Stateful() && r.opts.Mode == ModeOneShot && !r.inProcess {
		res.Status, res.Message = Skipped, "needs conversation state across calls (before steps); one-shot mode has none: use --mode session"
		return res
	}
	var layout fixture.Layout
	if ok {
		if reason := r.fixtureUnsupported(c, fx); reason != "" {
			res.Status, res.Message = Skipped, reason
			return res
		}
		var err error
		if c.Mutates(r.mutating) {
			var cleanup func()
			layout, cleanup, err = r.freshLayout(fx)
			if cleanup != nil {
				defer cleanup()
			}
		} else {
			layout, err = r.layout(fx)
		}
		if err != nil {
			res.Status, res.Message = Errored, fmt.Sprintf("materializing fixture %q: %v", fx.Name, err)
			return res
		}
	}
	req, err := r.request(c, layout)
	if err != nil {
		res.Status, res.Message = Errored, err.Error()
		return res
	}
	var faults []fsys.Fault
	if fx != nil {
		for _, f := range fx.Faults {
			errno, err := fsys.ParseErrno(f.Errno)
			if err != nil {
				res.Status, res.Message = Errored, fmt.Sprintf("fixture %s line %d: %v", fx.Name, f.Line, err)
				return res
			}
			faults = append(faults, fsys.Fault{Op: f.Op, Path: filepath.Join(layout.Root, filepath.FromSlash(f.Path)), Err: errno})
		}
	}
	// One deadline for the case's exchanges: reset, before steps, the call,
	// its repetition (fixtures are materialized before the clock starts).
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	conv, err := r.target.open(ctx)
	if err != nil {
		res.Status, res.Message = Errored, "starting the implementation: "+err.Error()
		return res
	}
	var convErr error
	defer func() { conv.release(convErr) }()
	exchange := func(req fcp.Request) (fcp.Response, int64, string, error) {
		resp, n, stderr, err := conv.do(ctx, req, faults)
		if err != nil {
			convErr = err
		}
		return resp, n, stderr, err
	}
	if c.Op == fcp.OpCall && r.ops[fcp.OpReset] && !r.inProcess && conv.stateful() {
		// Every case is a conversation of its own (FCP/1 reset).
		if _, _, stderr, err := exchange(fcp.Request{FCP: fcp.Version, Op: fcp.OpReset, Case: c.FullName()}); err != nil {
			res.Status, res.Message, res.Stderr = Errored, "reset before the case: "+err.Error(), stderr
			return res
		}
	}
	for i, st := range c.Before {
		if msg, stderr := r.before(c, i, st, layout, exchange); msg != "" {
			res.Status, res.Message, res.Stderr = Errored, msg, stderr
			return res
		}
	}
	var snap check.Snapshot
	if c.Expect.Tree != nil {
		if snap, err = snapshot(layout.Base); err != nil {
			res.Status, res.Message = Errored, "snapshot before the call: "+err.Error()
			return res
		}
	}
	resp, n, stderr, err := exchange(req)
	if err != nil {
		res.Status, res.Message, res.Stderr = Errored, err.Error(), stderr
		return res
	}
	norm := normalize(resp, layout)
	if cat := r.opts.Specs.Catalogs[c.Spec]; cat != nil && norm.Definitions != nil {
		// A spec's golden holds its own tools' definitions only, so a new
		// tool elsewhere changes no other spec's golden.
		var own []fcp.Definition
		for _, d := range norm.Definitions {
			if contains(cat.Tools, d.Name) {
				own = append(own, d)
			}
		}
		norm.Definitions = own
	}
	res.Response = &norm
	res.Golden = check.Golden(c.Tool, norm)

	in := check.Input{Case: c, Resp: norm, ContentBytes: n}
	if req.Ctx != nil {
		in.Ctx = *req.Ctx
	}
	if in.Args, err = check.DecodeObject(c.Args); err == nil {
		in.Config, err = check.DecodeObject(req.Config)
	}
	if err != nil {
		res.Status, res.Message = Errored, "decoding the case: "+err.Error()
		return res
	}
	res.Failures = check.Response(in)
	if ids := determinismIDs[c.Tool]; len(ids) > 0 && c.Op == fcp.OpCall {
		again, _, stderr, err := exchange(req)
		switch {
		case err != nil:
			res.Status, res.Message, res.Stderr = Errored, "repeating the call: "+err.Error(), stderr
			return res
		case !sameResponse(resp, again):
			res.Failures = append(res.Failures, check.Failure{IDs: ids, Kind: check.KindInvariant,
				Message: "the same call on the same filesystem gave a different result the second time",
				Diff:    check.GoldenDiffOf(c.Tool, resp, again)})
		}
	}
	if snap != nil {
		after, err := snapshot(layout.Base)
		if err != nil {
			res.Status, res.Message = Errored, "snapshot after the call: "+err.Error()
			return res
		}
		res.Failures = append(res.Failures, check.Tree(snap, after, c.Expect.Tree, c.IDs)...)
	}
	if r.opts.Golden != nil {
		want, err := fs.ReadFile(r.opts.Golden, c.Spec+"/"+c.Name+".golden")
		if err != nil {
			res.Failures = append(res.Failures, check.Failure{IDs: c.IDs, Kind: check.KindGolden,
				Message: fmt.Sprintf("no golden file golden/%s/%s.golden: run `forge-conform golden update` and review the diff", c.Spec, c.Name)})
		} else {
			res.Failures = append(res.Failures, check.CompareGolden(c.Tool, want, norm, c.IDs)...)
		}
	}
	if len(res.Failures) > 0 {
		res.Status = Failed
		res.Message = summarize(res.Failures)
	} else {
		res.Status = Passed
	}
	return res
}

// determinismIDs are the requirements a repeated call checks, per tool.
var determinismIDs = map[string][]string{
	"list_directory": {"FR-LD-OUT-02", "C-03"},
}

func sameResponse(a, b fcp.Response) bool { return bytes.Equal(stripSeq(a), stripSeq(b)) }

func stripSeq(r fcp.Response) []byte {
	r.Seq = 0
	b, _ := json.Marshal(r)
	return b
}

// unsupported says why the target cannot run c, or "".
func (r *Runner) unsupported(c *corpus.Case) string {
	if !r.ops[c.Op] {
		return fmt.Sprintf("unsupported: the implementation does not declare op %q", c.Op)
	}
	if c.Op == fcp.OpCall && !r.allTools && !r.tools[c.Tool] {
		return fmt.Sprintf("unsupported: the implementation does not declare tool %q", c.Tool)
	}
	return ""
}

func (r *Runner) fixtureUnsupported(c *corpus.Case, fx *fixture.Fixture) string {
	needsFaults := len(fx.Faults) > 0 || contains(c.Requires, corpus.RequiresFaults)
	if needsFaults && !r.inProcess {
		return "needs in-process fault injection (fixture " + fx.Name + "): only the built-in reference can run it"
	}
	restricted := fx.Restricted() || contains(c.Requires, corpus.RequiresUnprivileged)
	if restricted && !r.unprivileged {
		return "needs an unprivileged implementation (fixture " + fx.Name + " restricts permissions) but the implementation runs as root: use --run-as USER"
	}
	return ""
}

// layout materializes a fixture once per run; cases only read it.
func (r *Runner) layout(fx *fixture.Fixture) (fixture.Layout, error) {
	r.mu.Lock()
	lo, ok := r.layouts[fx.Name]
	if !ok {
		lo = &layoutOnce{}
		r.layouts[fx.Name] = lo
	}
	r.mu.Unlock()
	lo.once.Do(func() {
		dir := filepath.Join(r.base, fx.Name)
		if lo.err = os.Mkdir(dir, 0o755); lo.err != nil {
			return
		}
		lo.layout, lo.err = fx.Materialize(dir, fixture.Options{Chown: r.chown})
	})
	return lo.layout, lo.err
}

// request builds the FCP request for c on layout.
func (r *Runner) request(c *corpus.Case, layout fixture.Layout) (fcp.Request, error) {
	r.mu.Lock()
	r.nextCall++
	id := r.nextCall
	r.mu.Unlock()
	req := fcp.Request{FCP: fcp.Version, Op: c.Op, Case: c.FullName()}
	if c.Op != fcp.OpCall && c.Op != fcp.OpSummary {
		return req, nil
	}
	args := expand(c.Args, layout)
	req.Call = &fcp.Call{ID: fmt.Sprintf("call_%d", id), Name: c.Tool, Args: args}
	req.Ctx = &fcp.Ctx{WorkingDir: layout.Root}
	if c.Ctx != nil {
		req.Ctx.MaxOutputBytes = c.Ctx.MaxOutputBytes
		req.Ctx.AvailableCapacityBytes = c.Ctx.AvailableCapacityBytes
	}
	req.Config = r.config(c, layout)
	return req, nil
}

// expand replaces $ROOT and $OUTSIDE in the JSON text. Paths of the temp
// dir need no JSON escaping.
func expand(raw json.RawMessage, l fixture.Layout) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	s := strings.NewReplacer("$ROOT", l.Root, "$OUTSIDE", l.Outside).Replace(string(raw))
	return json.RawMessage(s)
}

// normalize replaces the fixture's absolute paths with $ROOT and $OUTSIDE.
func normalize(resp fcp.Response, l fixture.Layout) fcp.Response {
	if l.Root == "" {
		return resp
	}
	rep := strings.NewReplacer(l.Root, "$ROOT", l.Outside, "$OUTSIDE")
	out := resp
	if resp.Content != nil {
		s := rep.Replace(*resp.Content)
		out.Content = &s
	}
	if resp.Error != nil {
		e := *resp.Error
		e.Message = rep.Replace(e.Message)
		if e.Denial != nil {
			d := *e.Denial
			d.Attempted, d.Resolved, d.Message = rep.Replace(d.Attempted), rep.Replace(d.Resolved), rep.Replace(d.Message)
			e.Denial = &d
		}
		out.Error = &e
	}
	return out
}

func summarize(fs []check.Failure) string {
	f := fs[0]
	msg := fmt.Sprintf("%s [%s]: %s", f.Kind, strings.Join(f.IDs, ", "), f.Message)
	if len(fs) > 1 {
		msg += fmt.Sprintf(" (and %d more)", len(fs)-1)
	}
	return msg
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
