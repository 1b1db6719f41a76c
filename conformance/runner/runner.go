// Package runner is the conformance engine. It materializes each case's
// fixture, sends the case's call to the implementation under test (a
// Target: any binary speaking FCP/1, which the runner drives itself, or a
// target passed in, such as the reference in-process from impl/inproc),
// normalizes the response, runs the checks, and aggregates verdicts per
// case and per requirement ID. It names no tool: what is particular to a
// tool comes from the catalogs (package spec) and from the checks each tool
// registers (check.Tools).
//
// A misbehaving implementation costs one case: a timeout, crash, garbage
// line, flood or wrong seq is reported as "errored" with the reason and the
// tail of its stderr, its process tree is killed (fcpclient), and the next
// case starts a fresh process. Every temp dir is removed, and every FUSE
// mount (faults.go) unmounted, by Close; what a runner killed with SIGKILL
// left, the next one's New removes (sweep.go).
package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/forge-conform/forge-conform/conformance/check"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/fcpclient"
	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/conformance/fusefault"
	"github.com/forge-conform/forge-conform/conformance/leftover"
	"github.com/forge-conform/forge-conform/conformance/turnlog"
	"github.com/forge-conform/forge-conform/spec"
	"github.com/forge-conform/forge-conform/spec/fcp"
	"github.com/forge-conform/forge-conform/spec/quote"
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

	// Target is the implementation under test. nil with Binary set runs
	// Binary through FCP/1; one of the two is required. The runner closes
	// the Target in Close.
	Target Target
	// Binary is the implementation's argv, when Target is nil.
	Binary []string
	Mode   string // for Binary: ModeSession (default) or ModeOneShot
	// RunAs is the user that runs Binary when the runner is root
	// (default "nobody"); "root" runs it as root.
	RunAs string

	Jobs    int           // parallel workers (default 1)
	Timeout time.Duration // per case (default 10s)

	// Select filters cases; nil runs all.
	Select *Selector
	// Expected lists expected failures (skip file).
	Expected []Expected
	// TempDir is where fixtures are materialized. Empty: os.TempDir() when
	// TMPDIR is set (always kept), else a RAM filesystem (/dev/shm) when
	// one is writable with room to spare, else os.TempDir(). The run's
	// directory in it is named forge-conform-run@OWNER-... (package
	// leftover) and swept by the next run if this one crashes.
	TempDir string
	// Layouts, when set, holds the fixtures cases only read, materialized
	// once for every run that shares it (the caller closes it); nil
	// materializes them under the run's own temp dir.
	Layouts *Layouts
	// Strict makes warnings (SHOULD/MAY requirements and advice) fail
	// their case.
	Strict bool
	// GoldenStrict makes every golden difference a failure. Without it a
	// golden difference fails only where the SRD fixes the bytes
	// (check.GoldenNormative) and is a note elsewhere. It is always on for
	// the in-process reference and for a binary whose hello names the
	// reference (fcp.ReferenceName): the reference must match its goldens.
	GoldenStrict bool
	// GoldenAsOther judges the reference as any other implementation:
	// the automatic GoldenStrict for the in-process reference and for a
	// binary whose hello names the reference is off, so a golden
	// difference fails only where the SRD fixes the bytes. It checks a
	// modified reference (a mutant, a fork) against the SRD rather than
	// against its own earlier bytes. GoldenStrict wins when both are set.
	GoldenAsOther bool
	// Config is deep-merged over every case's config object (objects merge
	// key by key, anything else replaces): run the corpus under another
	// configuration, e.g. {"tools":{"search_files":{"backend":"rg"}}}.
	Config json.RawMessage
	// StopAfter stops the run when the first StopAfter cases that ran all
	// errored with one Cause (the first one, when hello failed with a
	// protocol error), and sets Run.Stopped: 0 never stops.
	StopAfter int
	// FailFast starts no case after the first one that fails or errors
	// (the cases already running finish); the others are skipped as not
	// run. For a quick verdict (is anything broken?), not a report.
	FailFast bool
	// Progress, when set, is called after each selected case with the
	// counts so far (from one goroutine at a time).
	Progress func(Progress)
	// Review holds the review marks (spec/review.jsonl): a marked case
	// runs as usual and its Result carries the mark; nil marks none.
	Review *spec.Review
	// Gate lets a scaling case measure while no other case runs; runners
	// that run at once in one process share one (nil: the runner's own).
	Gate *Gate
}

// Progress counts a run's selected cases as they finish.
type Progress struct {
	Done, Total     int
	Failed, Errored int
}

// Result is the verdict on one case.
type Result struct {
	Case     *corpus.Case
	Status   Status
	Message  string
	Failures []check.Failure
	// Warnings are failed SHOULD/MAY or advice checks (they fail the case
	// only under Options.Strict, and then stand in Failures); Notes are
	// differences from the reference where the spec leaves the bytes open.
	Warnings []check.Failure
	Notes    []check.Failure
	Stderr   string
	// Response is the normalized response ($ROOT, $OUTSIDE), and Golden
	// its rendering as a golden file (what `golden update` writes).
	Response *fcp.Response
	Golden   []byte
	Duration time.Duration
	// ExpectedFailure is set when a skip file listed the case and it failed:
	// it ran, and its status is Skipped.
	ExpectedFailure bool
	// Unselected is set when --run/--skip left the case out (its status
	// is Skipped); reports leave such cases out.
	Unselected bool
	// Request is the case's checked request as sent, with the fixture's
	// absolute paths replaced by $ROOT and $OUTSIDE (nil if the case
	// never got that far).
	Request *fcp.Request
	// Review is the case's review mark: it rests on a requirement whose
	// SRD sentence changed and nobody reviewed it since (nil: none).
	Review *spec.ReviewMark
	// Received is the response as received (normalized) when the checks
	// saw less of it in Response: a definitions response keeps only the
	// spec's own tools there. Nil when Response is all of it.
	Received *fcp.Response
	// Turn is a turn case's record (normalized), also of a turn that did
	// not end; nil for other cases.
	Turn *turnlog.Log
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
	// Conflicts are the spec conflicts (spec/INTERPRETATIONS.md, class
	// "conflict") that the run's cases touched.
	Conflicts []Conflict
	Elapsed   time.Duration
	// Fixtures says where the run materialized its fixtures and why there
	// (Runner.FixtureDir); reports show it only when verbose.
	Fixtures string
	// Stopped is set when the run stopped early (Options.StopAfter): it
	// checked nothing, and says why once.
	Stopped *Stop
	// Quotes, when set, gives reports the SRD sentence (or, without the
	// SRDs, the summary and anchor) of each ID a failure is charged to.
	Quotes *quote.Book
	// Versions are the SRD versions checked: each catalog's, and the one
	// the implementation declared in hello (srd_versions), by spec.
	Versions []Version
}

// Conflict is a place where two sentences of a spec disagree; the cases
// that touch it accept both readings.
type Conflict struct {
	ID    string // the interpretation, e.g. "I-LP-01"
	Title string
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
	opts       Options
	target     Target
	caps       Caps
	checks     map[string]check.ToolChecks
	hello      fcp.Response
	notes      []string
	tools, ops map[string]bool
	allTools   bool
	// catalogued are the tools the catalogs name (a turn case needs those
	// its model calls; any other name it calls is a test of UnknownTool).
	catalogued map[string]bool

	mutating map[string]bool // tools that change files (fresh fixture per case)
	fresh    int64           // counter of private fixture copies

	base     string
	baseWhy  string // why base is where it is (fixtureDir)
	mu       sync.Mutex
	layouts  *Layouts
	views    map[string]*faultView // fixture name -> its FUSE view
	nextCall int64

	helloErr string // how hello failed, when it did with a protocol error

	fuseOnce sync.Once
	fuseErr  string // why FUSE cannot inject faults here; "" when it can
}

// faultView is one fixture served through FUSE with its faults (faults.go),
// mounted once per run.
type faultView struct {
	once  sync.Once
	view  fixture.Layout
	mount *fusefault.Mount
	err   error
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
	if opts.Gate == nil {
		opts.Gate = NewGate()
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.RunAs == "" {
		opts.RunAs = "nobody"
	}
	r := &Runner{opts: opts, mutating: map[string]bool{}, catalogued: map[string]bool{}, views: map[string]*faultView{}, checks: check.Tools()}
	for _, c := range opts.Specs.Catalogs {
		for _, t := range c.MutatingTools {
			r.mutating[t] = true
		}
		for _, t := range c.Tools {
			r.catalogued[t] = true
		}
	}
	switch {
	case opts.Target != nil:
		r.target = opts.Target
	case len(opts.Binary) > 0:
		b, err := newBinary(opts.Binary, opts.Mode, opts.RunAs)
		if err != nil {
			return nil, err
		}
		r.target = b
	default:
		return nil, errors.New("runner: set Options.Target (e.g. impl/inproc for the reference in-process) or Options.Binary (an FCP/1 command)")
	}
	r.caps = r.target.Caps()
	r.notes = append(r.notes, r.caps.Notes...)
	tempDir, why := fixtureDir(opts.TempDir)
	if note := sweepNote(Sweep(sweepDirs(tempDir)...)); note != "" {
		r.notes = append(r.notes, note)
	}
	base, err := os.MkdirTemp(tempDir, leftover.Name("run"))
	if err != nil {
		r.target.Close()
		return nil, fmt.Errorf("creating the fixture dir: %w (set TMPDIR to a writable directory)", err)
	}
	if err := os.Chmod(base, 0o755); err != nil {
		r.target.Close()
		_ = os.RemoveAll(base)
		return nil, err
	}
	r.base, r.baseWhy = base, why
	r.layouts = opts.Layouts
	if r.layouts == nil {
		r.layouts = &Layouts{base: base}
	}
	if o := r.caps.Owner; o != nil {
		// The implementation's user (real or emulated) must reach the
		// fixtures.
		if err := reachable(base, o.UID, o.GID); err != nil {
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
	resp, err := r.target.Hello(hctx)
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
		if isHarnessError(err) {
			return err
		}
		if errors.As(err, &pe) {
			r.helloErr = err.Error()
		}
		r.notes = append(r.notes, "hello failed ("+err.Error()+"): treating the implementation as declaring every tool and only the op call")
		r.allTools = true
		r.ops = map[string]bool{fcp.OpCall: true}
		r.hello = fcp.Response{Implementation: &fcp.Implementation{Name: strings.Join(r.opts.Binary, " ")}}
		return nil
	}
	r.hello = resp
	if !r.opts.GoldenAsOther && (r.caps.GoldenStrict || (resp.Implementation != nil && resp.Implementation.Name == fcp.ReferenceName)) {
		r.opts.GoldenStrict = true
	}
	r.tools, r.ops = map[string]bool{}, map[string]bool{fcp.OpHello: true, fcp.OpCall: true}
	for _, t := range resp.Tools {
		r.tools[t] = true
	}
	for _, o := range resp.Ops {
		r.ops[o] = true
	}
	return nil
}

// FixtureDir says where the run materializes its fixtures and why there:
// "DIR (tmpfs, as TMPDIR is unset; ...)". The directory is removed by
// Close.
func (r *Runner) FixtureDir() string {
	if r.base == "" {
		return ""
	}
	return fmt.Sprintf("%s (%s)", r.base, r.baseWhy)
}

// Implementation returns what hello said.
func (r *Runner) Implementation() fcp.Implementation {
	if r.hello.Implementation != nil {
		return *r.hello.Implementation
	}
	return fcp.Implementation{}
}

// Notes are facts about the run a report should show.
func (r *Runner) Notes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.notes...)
}

// Close kills every process and removes every temp dir.
func (r *Runner) Close() {
	if r.target != nil {
		r.target.Close()
	}
	r.mu.Lock()
	for _, fv := range r.views {
		unmount(fv.mount)
		fv.mount = nil
	}
	r.mu.Unlock()
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
	caseCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := r.newStopper(cancel)
	prog := Progress{}
	for _, c := range cases {
		if r.opts.Select == nil || r.opts.Select.Match(c) {
			prog.Total++
		}
	}
	var progMu sync.Mutex
	var firstFailed atomic.Pointer[Result] // with FailFast
	runOne := func(i int) {
		if res := r.failFastSkip(cases[i], firstFailed.Load()); res != nil {
			results[i] = res // handed over before the failure, started after it
			return
		}
		res := r.RunCase(caseCtx, cases[i])
		if stop.record(res) && !res.Unselected {
			res = &Result{Case: cases[i], Status: Skipped, Message: "not run: the run stopped early (see the cause above)"}
		}
		results[i] = res
		if r.opts.FailFast && (res.Status == Failed || res.Status == Errored) {
			firstFailed.CompareAndSwap(nil, res)
		}
		if r.opts.Progress != nil && !res.Unselected {
			progMu.Lock()
			prog.Done++
			prog.Failed += btoi(res.Status == Failed)
			prog.Errored += btoi(res.Status == Errored)
			r.opts.Progress(prog)
			progMu.Unlock()
		}
	}
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < r.opts.Jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				runOne(i)
			}
		}()
	}
	waiting := r.startWaiting(cases, runOne, &wg)
	for i := range cases {
		if waiting[i] {
			continue
		}
		if stop.stopped() != nil {
			results[i] = &Result{Case: cases[i], Status: Skipped, Message: "not run: the run stopped early (see the cause above)",
				Unselected: r.opts.Select != nil && !r.opts.Select.Match(cases[i])}
			continue
		}
		if res := r.failFastSkip(cases[i], firstFailed.Load()); res != nil {
			results[i] = res
			continue
		}
		work <- i
	}
	close(work)
	wg.Wait()
	run := &Run{Implementation: r.Implementation(), Notes: r.Notes(), Results: results, Elapsed: time.Since(start),
		Fixtures: r.FixtureDir()}
	if st := stop.stopped(); st != nil {
		if b, ok := r.target.(*binary); ok && len(st.Cases) > 0 {
			st.Reproduce = b.reproduce(st.Cases[0])
		}
		run.Stopped = st
	}
	run.IDs = Aggregate(r.opts.Specs, results)
	run.Versions = r.versions()
	run.Conflicts = Conflicts(r.opts.Specs, results)
	return run
}

// failFastSkip is the result of a selected case c that FailFast does not
// start because first failed; nil when c runs.
func (r *Runner) failFastSkip(c *corpus.Case, first *Result) *Result {
	if first == nil || (r.opts.Select != nil && !r.opts.Select.Match(c)) {
		return nil
	}
	return &Result{Case: c, Status: Skipped,
		Message: fmt.Sprintf("not run: --failfast stopped the run after %s %s", first.Case.FullName(), first.Status)}
}

// Conflicts lists the spec conflicts (interpretations of class conflict)
// that the executed cases name, in ID order.
func Conflicts(specs *spec.Set, results []*Result) []Conflict {
	seen := map[string]bool{}
	var out []Conflict
	for _, res := range results {
		if res == nil || (res.Status == Skipped && !res.ExpectedFailure) {
			continue
		}
		for _, id := range res.Case.Interpretations {
			if specs.Classes[id] == spec.ClassConflict && !seen[id] {
				seen[id] = true
				out = append(out, Conflict{ID: id, Title: specs.Interpretations[id]})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
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
	res.Review = r.opts.Review.Lookup(c.FullName())
	r.applyExpected(res)
	return res
}

func (r *Runner) runCase(ctx context.Context, c *corpus.Case) *Result {
	res := &Result{Case: c}
	if r.opts.Select != nil && !r.opts.Select.Match(c) {
		res.Status, res.Message, res.Unselected = Skipped, "not selected by --run/--skip", true
		return res
	}
	if reason := r.unsupported(c); reason != "" {
		res.Status, res.Message = Skipped, reason
		return res
	}
	if reason := r.policySkip(c); reason != "" {
		res.Status, res.Message = Skipped, reason
		return res
	}
	if reason := r.versionSkip(c); reason != "" {
		res.Status, res.Message = Skipped, reason
		return res
	}
	if c.Scaling != nil {
		return r.runScaling(ctx, c, res) // alone (Gate)
	}
	release, err := r.opts.Gate.shared(ctx)
	if err != nil {
		res.Status, res.Message = Errored, "not run: "+err.Error()
		return res
	}
	defer release()
	if c.Op == corpus.OpTurn {
		return r.runTurn(ctx, c, res)
	}
	fx, ok := r.opts.Fixtures[c.Fixture]
	if c.Op == fcp.OpCall && !ok {
		res.Status, res.Message = Errored, fmt.Sprintf("case names fixture %q, which does not exist in fixtures/", c.Fixture)
		return res
	}
	if _, ok := r.target.(PathOpener); contains(c.Requires, corpus.RequiresOldBackends) && !ok {
		res.Status, res.Message = Skipped, "needs the implementation started with a directory of fake rg and ugrep first on PATH: this target cannot start one"
		return res
	}
	if c.Stateful() && !r.caps.Stateful {
		res.Status, res.Message = Skipped, "needs conversation state across calls (before steps); one-shot mode has none: use --mode session"
		return res
	}
	if c.Resets() && !r.ops[fcp.OpReset] {
		res.Status, res.Message = Skipped, "a before step starts a fresh conversation (FCP/1 reset), and the implementation's hello does not declare the reset op"
		return res
	}
	var layout fixture.Layout
	disk := &layout          // the fixture on disk, for the runner's own snapshots
	var own *fusefault.Mount // the case's own mount (Private), if any
	if ok {
		if reason := r.fixtureUnsupported(c, fx); reason != "" {
			res.Status, res.Message = Skipped, reason
			return res
		}
		var err error
		if c.Private(r.mutating) {
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
		if r.injectsFaults(fx) {
			onDisk := layout
			disk = &onDisk
			if c.Private(r.mutating) {
				layout, own, err = mountFaults(fx, onDisk)
				defer unmount(own) // before the cleanup above removes the tree
			} else {
				layout, err = r.faultView(fx)
			}
			if err != nil {
				res.Status, res.Message = Errored, fmt.Sprintf("mounting fixture %q through FUSE to inject its faults: %v", fx.Name, err)
				return res
			}
		}
	}
	req, err := r.request(c, layout)
	if err != nil {
		res.Status, res.Message = Errored, err.Error()
		return res
	}
	res.Request = NormalizeRequest(req, layout)
	var faults []fixture.Fault
	if fx != nil {
		for _, f := range fx.Faults {
			f.Path = layout.Abs(f.Path)
			faults = append(faults, f)
		}
	}
	// One deadline for the case's exchanges: reset, before steps, the call,
	// its repetition (fixtures are materialized before the clock starts).
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	var conv Conversation
	if contains(c.Requires, corpus.RequiresOldBackends) {
		conv, err = r.openOldBackends(ctx, res)
		if conv == nil {
			return res
		}
	} else if conv, err = r.target.Open(ctx); err != nil {
		res.Status, res.Message = Errored, "starting the implementation: "+err.Error()
		return res
	}
	var convErr error
	defer func() { conv.Release(convErr) }()
	if g, ok := conv.(Greeter); ok && contains(fcp.TestTools, c.Tool) {
		// A call of a test tool needs a process that hello registered
		// them in (PROTOCOL.md §9.5); the pool's later processes were not.
		if err := g.Greet(ctx); err != nil {
			convErr = err
			res.Status, res.Message = Errored, "hello (test_tools) before the call: "+err.Error()
			return res
		}
	}
	watch, reason := watchProcess(c, conv, nil)
	if reason != "" {
		res.Status, res.Message = Skipped, reason
		return res
	}
	defer watch.stop()
	exchange := func(req fcp.Request) (fcp.Response, int64, string, error) {
		rep, err := conv.Do(ctx, req, faults)
		if err != nil {
			convErr = err
		}
		return rep.Response, rep.ContentBytes, rep.Stderr, err
	}
	if c.Op == fcp.OpCall && r.ops[fcp.OpReset] && r.caps.Stateful {
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
	if c.Expect.HasTree() {
		if snap, err = snapshot(disk.Base); err != nil {
			res.Status, res.Message = Errored, "snapshot before the call: "+err.Error()
			return res
		}
	}
	qr := startQuiet(ctx, c, fixtureOps(own, conv))
	resp, n, stderr, err := exchange(req)
	if err != nil {
		res.Status, res.Message, res.Stderr = Errored, err.Error(), stderr
		return res
	}
	quiet, msg := qr.wait()
	if msg != "" {
		res.Status, res.Message = Errored, msg
		return res
	}
	norm := normalize(resp, layout)
	received := norm
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
	if len(norm.Definitions) != len(received.Definitions) {
		res.Received = &received // the checks saw part of it
	}
	res.Golden = check.Golden(c.Tool, norm)

	in := check.Input{Case: c, Resp: norm, ContentBytes: n, Root: layout.Root}
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
	if snap != nil {
		after, err := snapshot(disk.Base)
		if err != nil {
			res.Status, res.Message = Errored, "snapshot after the call: "+err.Error()
			return res
		}
		in.Before, in.After = snap, after
	}
	res.Failures = check.Response(in)
	if quiet != nil {
		res.Failures = append(res.Failures, *quiet)
	}
	if ids := r.checks[c.Tool].Deterministic; len(ids) > 0 && c.Op == fcp.OpCall && !timedOut(resp) {
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
	res.Failures = append(res.Failures, watch.failures()...)
	if r.opts.Golden != nil && !c.Observed() {
		want, err := fs.ReadFile(r.opts.Golden, c.Spec+"/"+c.Name+".golden")
		if err != nil {
			res.Failures = append(res.Failures, check.Failure{IDs: c.IDs, Kind: check.KindGolden,
				Message: fmt.Sprintf("no golden file golden/%s/%s.golden: run `forge-conform golden update` and review the diff", c.Spec, c.Name)})
		} else {
			gf := check.CompareGolden(c.Tool, want, norm, c.IDs)
			if !r.opts.GoldenStrict && !check.GoldenNormative(c, norm, r.opts.Specs.Classes) {
				for i := range gf {
					gf[i].Severity = check.SeverityNote
					gf[i].Message += " (a note: the SRD does not fix these bytes)"
				}
			}
			res.Failures = append(res.Failures, gf...)
		}
	}
	res.Failures = Charge(c, res.Failures)
	r.levelSeverity(c, res.Failures)
	res.Failures, res.Warnings, res.Notes = bySeverity(res.Failures, r.opts.Strict)
	if len(res.Failures) > 0 {
		res.Status = Failed
		res.Message = summarize(res.Failures)
	} else {
		res.Status = Passed
	}
	return res
}

// levelSeverity makes a failure a warning when every requirement it names
// is a SHOULD or MAY of its catalog (a MUST, or an unknown ID, keeps it a
// failure).
func (r *Runner) levelSeverity(c *corpus.Case, fs []check.Failure) {
	for i := range fs {
		f := &fs[i]
		if f.Severity != check.SeverityFail || f.Kind == check.KindProtocol || len(f.IDs) == 0 {
			continue
		}
		soft := true
		for _, id := range f.IDs {
			ref := corpus.ParseRef(c.Spec, id)
			cat := r.opts.Specs.Catalogs[ref.Spec]
			if cat == nil {
				soft = false
				break
			}
			req, ok := cat.Lookup(ref.ID)
			if !ok || (req.Level != "SHOULD" && req.Level != "MAY") {
				soft = false
				break
			}
		}
		if soft {
			f.Severity = check.SeverityWarn
			f.Message = "(SHOULD/MAY) " + f.Message
		}
	}
}

// policySkip says why c does not apply to the implementation's declared
// policies, or "".
func (r *Runner) policySkip(c *corpus.Case) string {
	keys := make([]string, 0, len(c.Policy))
	for k := range c.Policy {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		got, ok := r.hello.Policies[k]
		switch {
		case !ok:
			return "implementation-defined: declare policies." + k
		case got != c.Policy[k]:
			return fmt.Sprintf("implementation-defined: the case is for policies.%s=%s, the implementation declares %s", k, c.Policy[k], got)
		}
	}
	return ""
}

// bySeverity splits failures into those that fail the case, warnings and
// notes; under strict, warnings fail too.
func bySeverity(all []check.Failure, strict bool) (fails, warns, notes []check.Failure) {
	for _, f := range all {
		switch {
		case f.Severity == check.SeverityNote:
			notes = append(notes, f)
		case f.Severity == check.SeverityWarn && !strict:
			warns = append(warns, f)
		default:
			fails = append(fails, f)
		}
	}
	return fails, warns, notes
}

func sameResponse(a, b fcp.Response) bool { return bytes.Equal(stripSeq(a), stripSeq(b)) }

// timedOut reports whether r is a Timeout error: a call the framework
// stopped at its limit, whose result depends on time (ToolError::Timeout
// carries the elapsed time) rather than on the filesystem and the inputs
// alone, so the determinism check does not repeat it.
func timedOut(r fcp.Response) bool { return r.Error != nil && r.Error.Kind == "Timeout" }

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
	return r.undeclaredTool(c)
}

// undeclaredTool says which tool c needs that hello does not declare, or
// "": the tool a call, definitions or summary case is about, the tools
// its before steps call, and the catalogued tools a turn's scripted model
// calls (the fcp_* test tools are turnUnsupported's to check, and a name
// no catalog knows is the subject of an UnknownTool case, not a need).
func (r *Runner) undeclaredTool(c *corpus.Case) string {
	if r.allTools {
		return ""
	}
	undeclared := func(tool, why string) string {
		return fmt.Sprintf("unsupported: the implementation does not declare tool %q%s", tool, why)
	}
	switch c.Op {
	case fcp.OpCall, fcp.OpDefinitions, fcp.OpSummary:
		if !r.tools[c.Tool] {
			return undeclared(c.Tool, "")
		}
	case corpus.OpTurn:
		for _, name := range scriptedTools(c) {
			if r.catalogued[name] && !r.tools[name] {
				return undeclared(name, " (the case's scripted model calls it)")
			}
		}
	}
	for i, st := range c.Before {
		if st.Call != nil && !r.tools[st.Call.Tool] {
			return undeclared(st.Call.Tool, fmt.Sprintf(" (the case's before[%d] calls it)", i))
		}
	}
	return ""
}

// scriptedTools lists the tool names the scripted models of a turn case
// call, the turn's and its recover steps', in order (a script that does
// not parse names none: turnRequest reports it).
func scriptedTools(c *corpus.Case) []string {
	if c.Turn == nil {
		return nil
	}
	scripts := []json.RawMessage{c.Turn.Model}
	for _, st := range c.Turn.Recover {
		scripts = append(scripts, st.Model)
	}
	var names []string
	for _, raw := range scripts {
		var model []fcp.ModelResponse
		if len(raw) == 0 || json.Unmarshal(raw, &model) != nil {
			continue
		}
		for _, m := range model {
			for _, call := range m.ToolCalls {
				names = append(names, call.Name)
			}
		}
	}
	return names
}

func (r *Runner) fixtureUnsupported(c *corpus.Case, fx *fixture.Fixture) string {
	needsFaults := len(fx.Faults) > 0 || contains(c.Requires, corpus.RequiresFaults)
	if needsFaults && !r.caps.Faults {
		if len(fx.Faults) == 0 {
			return "needs in-process fault injection (fixture " + fx.Name + "): only the built-in reference can run it"
		}
		if why := r.fuseUnusable(); why != "" {
			return "needs fault injection (fixture " + fx.Name + "): FUSE is not usable here (" + why + "); the built-in reference injects faults in-process"
		}
	}
	restricted := fx.Restricted() || contains(c.Requires, corpus.RequiresUnprivileged)
	if restricted && !r.caps.Unprivileged {
		return "needs an unprivileged implementation (fixture " + fx.Name + " restricts permissions) but the implementation runs as root: use --run-as USER"
	}
	return ""
}

// faultView serves fx's shared layout through FUSE with its faults, once
// per run; Close unmounts it.
func (r *Runner) faultView(fx *fixture.Fixture) (fixture.Layout, error) {
	layout, err := r.layout(fx)
	if err != nil {
		return fixture.Layout{}, err
	}
	r.mu.Lock()
	fv := r.views[fx.Name]
	if fv == nil {
		fv = &faultView{}
		r.views[fx.Name] = fv
	}
	r.mu.Unlock()
	fv.once.Do(func() {
		var m *fusefault.Mount
		fv.view, m, fv.err = mountFaults(fx, layout)
		r.mu.Lock()
		fv.mount = m
		r.mu.Unlock()
	})
	return fv.view, fv.err
}

// layout materializes a fixture once per run (or once for the runs
// sharing Options.Layouts); cases only read it.
func (r *Runner) layout(fx *fixture.Fixture) (fixture.Layout, error) {
	return r.layouts.get(fx, r.caps.Owner)
}

// request builds the FCP request for c on layout.
func (r *Runner) request(c *corpus.Case, layout fixture.Layout) (fcp.Request, error) {
	r.mu.Lock()
	r.nextCall++
	id := r.nextCall
	r.mu.Unlock()
	return checkedRequest(c, layout, fmt.Sprintf("call_%d", id), r.config(c, layout)), nil
}

// checkedRequest is the request whose response a case checks.
func checkedRequest(c *corpus.Case, layout fixture.Layout, callID string, config json.RawMessage) fcp.Request {
	req := fcp.Request{FCP: fcp.Version, Op: c.Op, Case: c.FullName()}
	if c.Op != fcp.OpCall && c.Op != fcp.OpSummary {
		return req
	}
	req.Call = &fcp.Call{ID: callID, Name: c.Tool, Args: expand(c.Args, layout)}
	req.Config = config
	if layout.Root == "" {
		// A summary case without a fixture: ctx may be omitted
		// (PROTOCOL.md §3.3a), and a ctx needs an absolute working_dir.
		return req
	}
	req.Ctx = &fcp.Ctx{WorkingDir: layout.Root}
	if c.Ctx != nil {
		req.Ctx.MaxOutputBytes = c.Ctx.MaxOutputBytes
		req.Ctx.AvailableCapacityBytes = c.Ctx.AvailableCapacityBytes
	}
	return req
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

// NormalizeRequest returns a copy of req with the layout's absolute paths
// replaced by $ROOT and $OUTSIDE, as reports show it.
func NormalizeRequest(req fcp.Request, l fixture.Layout) *fcp.Request {
	out := req
	if l.Root == "" {
		return &out
	}
	rep := strings.NewReplacer(l.Root, "$ROOT", l.Outside, "$OUTSIDE")
	if req.Call != nil {
		call := *req.Call
		call.Args = json.RawMessage(rep.Replace(string(call.Args)))
		out.Call = &call
	}
	if req.Ctx != nil {
		ctx := *req.Ctx
		ctx.WorkingDir = rep.Replace(ctx.WorkingDir)
		out.Ctx = &ctx
	}
	if len(req.Config) > 0 {
		out.Config = json.RawMessage(rep.Replace(string(req.Config)))
	}
	return &out
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

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
