package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/forge-conform/forge-conform/conformance/check"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/conformance/turnlog"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// causalityWait is how long the runner holds its answer to a confirmation
// (or pending calls) back, watching that nothing runs meanwhile.
const causalityWait = 30 * time.Millisecond

// slowReadPause is the pause per output chunk of a slow_reader case.
const slowReadPause = 2 * time.Millisecond

// turnUnsupported says why c cannot run on this target, or "".
func (r *Runner) turnUnsupported(c *corpus.Case, conv Conversation) string {
	if !r.caps.Stateful {
		return "a turn needs a long-lived process to answer while it runs: use --mode session"
	}
	if _, ok := conv.(TurnConversation); !ok {
		return "the target cannot run turns"
	}
	for _, name := range scriptedTools(c) {
		if strings.HasPrefix(name, "fcp_") && !r.allTools && !r.tools[name] {
			return fmt.Sprintf("unsupported: needs the test tool %q, which hello with test_tools:true does not list (PROTOCOL.md §9.6)", name)
		}
	}
	if len(c.Turn.Screens) > 0 && !r.ops[fcp.OpScreen] {
		return "unsupported: the case asks for screens (FR-TUI-01..04) and the implementation does not declare op \"screen\" (PROTOCOL.md §11)"
	}
	for _, op := range []string{fcp.OpDecide, fcp.OpCancel, fcp.OpToolResult} {
		if !r.ops[op] {
			return fmt.Sprintf("unsupported: the implementation does not declare op %q (a turn needs turn, decide, cancel and tool_result)", op)
		}
	}
	return ""
}

// runTurn runs a turn case: a fresh fixture, the turn with the runner
// playing the model and the user, then the turn checks, the process check,
// the tree and the golden.
func (r *Runner) runTurn(ctx context.Context, c *corpus.Case, res *Result) *Result {
	if c.Durable() {
		if c.Observed() {
			res.Status, res.Message = Errored, "a durability case cannot observe the process (process): its phases run in several processes"
			return res
		}
		return r.runDurable(ctx, c, res)
	}
	layout, cleanup, ok := r.freshCaseLayout(c, res)
	if !ok {
		return res
	}
	defer cleanup()
	req, err := turnRequest(c, layout, r.config(c, layout))
	if err != nil {
		res.Status, res.Message = Errored, err.Error()
		return res
	}
	shown := NormalizeRequest(fcp.Request{FCP: fcp.Version, Op: fcp.OpTurn, Case: c.FullName(), Ctx: req.Ctx, Config: req.Config}, layout)
	res.Request = shown

	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, caseTimeout(c, r.opts.Timeout))
	defer cancel()
	conv, err := r.target.Open(ctx)
	if err != nil {
		res.Status, res.Message = Errored, "starting the implementation: "+err.Error()
		return res
	}
	var convErr error
	defer func() { conv.Release(convErr) }()
	if reason := r.turnUnsupported(c, conv); reason != "" {
		res.Status, res.Message = Skipped, reason
		return res
	}
	tc := conv.(TurnConversation)
	if r.ops[fcp.OpReset] {
		if rep, err := conv.Do(ctx, fcp.Request{FCP: fcp.Version, Op: fcp.OpReset, Case: c.FullName()}, nil); err != nil {
			convErr = err
			res.Status, res.Message, res.Stderr = Errored, "reset before the case: "+err.Error(), rep.Stderr
			return res
		}
	}
	before, err := snapshot(layout.Base)
	if err != nil {
		res.Status, res.Message = Errored, "snapshot before the turn: "+err.Error()
		return res
	}
	if g, ok := conv.(Greeter); ok && c.Process != nil {
		// The process's baseline is taken greeted, as every turn runs.
		if err := g.Greet(ctx); err != nil {
			convErr = err
			res.Status, res.Message = Errored, "hello (test_tools) before the turn: "+err.Error()
			return res
		}
	}
	turnCtx, stopTurn := context.WithCancel(ctx)
	defer stopTurn()
	watch, reason := watchProcess(c, conv, stopTurn)
	if reason != "" {
		res.Status, res.Message = Skipped, reason
		return res
	}
	defer watch.stop()
	u := &turnUser{c: c.Turn, base: layout.Base}
	var log *turnlog.Log
	var stderr string
	if watch != nil {
		log, stderr, err = watch.conv.TurnInto(turnCtx, req, u.on, watch.log())
	} else {
		log, stderr, err = tc.Turn(ctx, req, u.on)
	}
	if log != nil {
		res.Turn = normalizeLog(log, layout)
	}
	if err != nil {
		convErr = err
		if watch.overBound() {
			res.Failures, res.Warnings, res.Notes = bySeverity(Charge(c, watch.failures()), r.opts.Strict)
			res.Status, res.Message = Failed, summarize(res.Failures)
			return res
		}
		res.Status, res.Message, res.Stderr = Errored, err.Error(), stderr
		return res
	}
	norm := res.Turn
	in := check.TurnInput{Case: c, Log: norm}
	res.Failures = append(res.Failures, u.failures...)
	res.Failures = append(res.Failures, check.Turn(in)...)
	res.Failures = append(res.Failures, check.Screens(in, u.fired)...)
	res.Failures = append(res.Failures, watch.failures()...)
	if len(c.Turn.Benign) > 0 {
		twins, err := r.benignTwins(parent, c, tc)
		if err != nil {
			convErr = err
			res.Status, res.Message = Errored, "I-TUI-09's benign run of the same turn: "+err.Error()
			return res
		}
		var texts []string
		for _, b := range c.Turn.Benign {
			texts = append(texts, b.Benign)
		}
		res.Failures = append(res.Failures, check.LikeBenign(check.Shots(c, norm, u.fired), twins, texts)...)
	}
	if c.Turn.PidsFile != "" {
		res.Failures = append(res.Failures, leftProcesses(filepath.Join(layout.Root, c.Turn.PidsFile))...)
	}
	if c.Expect.Tree != nil {
		after, err := snapshot(layout.Base)
		if err != nil {
			res.Status, res.Message = Errored, "snapshot after the turn: "+err.Error()
			return res
		}
		res.Failures = append(res.Failures, check.Tree(before, after, c.Expect.Tree, c.IDs)...)
	}
	golden := append(check.TurnGolden(norm), check.ScreenGolden(check.Shots(c, norm, u.fired))...)
	content := string(golden)
	final := norm.Final()
	res.Response = &fcp.Response{OK: fcp.Bool(final != nil && final.OK != nil && *final.OK), Content: &content}
	res.Golden = check.Golden(c.Tool, *res.Response)
	if r.opts.Golden != nil && !c.Observed() {
		want, err := fs.ReadFile(r.opts.Golden, c.Spec+"/"+c.Name+".golden")
		if err != nil {
			res.Failures = append(res.Failures, check.Failure{IDs: c.IDs, Kind: check.KindGolden,
				Message: fmt.Sprintf("no golden file golden/%s/%s.golden: run `forge-conform golden update` and review the diff", c.Spec, c.Name)})
		} else {
			wantTurn, wantScreens := check.SplitScreenGolden(want)
			gotTurn, gotScreens := check.SplitScreenGolden(res.Golden)
			res.Failures = append(res.Failures, check.CompareTurnGolden(wantTurn, gotTurn, c.IDs)...)
			res.Failures = append(res.Failures, check.CompareScreenGolden(wantScreens, gotScreens, r.opts.GoldenStrict)...)
		}
	}
	res.Failures, res.Warnings, res.Notes = bySeverity(Charge(c, res.Failures), r.opts.Strict)
	if len(res.Failures) > 0 {
		res.Status, res.Message = Failed, summarize(res.Failures)
	} else {
		res.Status = Passed
	}
	return res
}

// turnRequest builds the turn request of c on layout.
func turnRequest(c *corpus.Case, l fixture.Layout, config json.RawMessage) (fcp.TurnRequest, error) {
	req := fcp.TurnRequest{FCP: fcp.Version, Op: fcp.OpTurn, Case: c.FullName(), User: c.Turn.User, Config: config}
	req.Ctx = &fcp.Ctx{WorkingDir: l.Root}
	if c.Ctx != nil {
		req.Ctx.MaxOutputBytes = c.Ctx.MaxOutputBytes
		req.Ctx.AvailableCapacityBytes = c.Ctx.AvailableCapacityBytes
	}
	if err := json.Unmarshal(expand(c.Turn.Model, l), &req.Model); err != nil {
		return req, fmt.Errorf("the case's turn.model is not an array of model responses: %v", err)
	}
	return req, nil
}

// turnUser plays the user of a case: it answers confirmations by the
// case's decision rules, cancels on the case's trigger, submits manual
// results for pending calls, reads slowly when asked, and watches that
// nothing changes in the fixture while it holds an answer back.
type turnUser struct {
	c        *corpus.TurnSpec
	base     string
	confirms int
	canceled bool
	// seen counts the events each screen moment matched; fired lists the
	// moments whose screen was asked for, in order.
	seen     map[int]int
	fired    []int
	failures []check.Failure
}

func (u *turnUser) on(ev fcp.TurnLine) []fcp.TurnRequest {
	out := u.screens(ev)
	if ev.Event == "" {
		return out // the final response
	}
	if u.c.SlowReader && (ev.Event == fcp.EventStdout || ev.Event == fcp.EventStderr) {
		time.Sleep(slowReadPause)
	}
	if m := u.c.Cancel; m != nil && !u.canceled && matchTrigger(*m, ev) {
		u.canceled = true
		return append(out, fcp.TurnRequest{Op: fcp.OpCancel})
	}
	switch ev.Event {
	case fcp.EventConfirmation:
		u.hold("a confirmation", "T-APR-01")
		if u.canceled {
			return out
		}
		d := corpus.Decision{Decision: fcp.DecisionApproveAll}
		if n := len(u.c.Decide); n > 0 {
			d = u.c.Decide[min(u.confirms, n-1)]
		}
		d, scripted := u.c.Answer(d, requestIDs(ev))
		if scripted {
			u.confirms++
		}
		out = append(out, fcp.TurnRequest{Op: fcp.OpDecide, Decision: d.Decision, IDs: d.IDs})
	case fcp.EventPending:
		u.hold("pending calls in parse-only mode", "FR-MODE-02")
		if u.canceled {
			return out
		}
		for _, call := range ev.Calls {
			mr := u.c.ToolResults[call.ID]
			out = append(out, fcp.TurnRequest{Op: fcp.OpToolResult, ID: call.ID, Content: mr.Content, IsError: mr.IsError})
		}
	}
	return out
}

// screens returns the screen requests of the moments ev completes
// (PROTOCOL.md §11), asked before the user answers ev.
func (u *turnUser) screens(ev fcp.TurnLine) []fcp.TurnRequest {
	var out []fcp.TurnRequest
	for i, m := range u.c.Screens {
		if ev.Event == "" && m.At.Event != corpus.MomentEnd || ev.Event != "" && !matchTrigger(m.At, ev) {
			continue
		}
		if u.seen == nil {
			u.seen = map[int]int{}
		}
		u.seen[i]++
		if u.seen[i] == max(m.Nth, 1) {
			u.fired = append(u.fired, i)
			out = append(out, fcp.TurnRequest{Op: fcp.OpScreen, Width: m.Width, Height: m.Height})
		}
	}
	return out
}

// hold snapshots the fixture, waits, and snapshots it again: nothing may
// change while the user has not answered.
func (u *turnUser) hold(what, id string) {
	a, err := snapshot(u.base)
	time.Sleep(causalityWait)
	if err != nil {
		return
	}
	b, err := snapshot(u.base)
	if err == nil && !reflect.DeepEqual(a, b) {
		u.failures = append(u.failures, check.Failure{IDs: []string{id}, Kind: check.KindInvariant,
			Message: fmt.Sprintf("the fixture changed while %s waited for the user's answer", what)})
	}
}

func matchTrigger(m corpus.EventMatch, ev fcp.TurnLine) bool {
	if ev.Event != m.Event || (m.ID != "" && ev.ID != m.ID && (ev.Message == nil || ev.Message.ID != m.ID)) {
		return false
	}
	if m.Name != "" && ev.Name != m.Name {
		return false
	}
	return m.Contains == "" || strings.Contains(ev.Chunk, m.Contains)
}

// requestIDs are the ids a confirmation event asks about.
func requestIDs(ev fcp.TurnLine) []string {
	ids := make([]string, 0, len(ev.Requests))
	for _, q := range ev.Requests {
		ids = append(ids, q.ID)
	}
	return ids
}

// normalizeLog replaces the fixture's absolute paths with $ROOT and
// $OUTSIDE in every line of the log.
func normalizeLog(log *turnlog.Log, l fixture.Layout) *turnlog.Log {
	rep := strings.NewReplacer(l.Root, "$ROOT", l.Outside, "$OUTSIDE")
	out := &turnlog.Log{}
	for _, e := range log.Entries {
		if e.Line != nil {
			raw, err := json.Marshal(e.Line)
			var tl fcp.TurnLine
			if err == nil && json.Unmarshal([]byte(rep.Replace(string(raw))), &tl) == nil {
				e.Line = &tl
			}
		}
		out.Add(e)
	}
	return out
}

// procGrace is how long a recorded process may take to disappear after
// the turn (SIGKILL is asynchronous).
const procGrace = time.Second

// leftProcesses reads the pids a case's commands recorded and reports every
// one still alive after the turn (FR-EXE-05: the whole process group is
// killed). A zombie counts as gone: it no longer runs.
func leftProcesses(file string) []check.Failure {
	data, err := os.ReadFile(file)
	if err != nil {
		return []check.Failure{{IDs: []string{"FR-EXE-05"}, Kind: check.KindInvariant,
			Message: fmt.Sprintf("the command recorded no pids in %s (%v): it did not run as the case expects", filepath.Base(file), err)}}
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		if n, err := strconv.Atoi(f); err == nil && n > 1 {
			pids = append(pids, n)
		}
	}
	deadline := time.Now().Add(procGrace)
	for {
		var alive []int
		for _, p := range pids {
			if running(p) {
				alive = append(alive, p)
			}
		}
		if len(alive) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			// Not killed here: a pid may have been reused by then.
			return []check.Failure{{IDs: []string{"FR-EXE-05"}, Kind: check.KindInvariant,
				Message: fmt.Sprintf("%d of the %d processes the command started still run %s after the turn ended (pids %v): the process group was not killed",
					len(alive), len(pids), procGrace, alive)}}
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// running reports whether pid names a live, non-zombie process.
func running(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist)
	}
	if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z' && stat[i+2] != 'X'
	}
	return true
}

// freshCaseLayout materializes a fresh copy of c's fixture (turn cases
// change their tree). When it cannot, it says why in res (errored, or
// skipped when the target cannot run the fixture) and returns false.
func (r *Runner) freshCaseLayout(c *corpus.Case, res *Result) (fixture.Layout, func(), bool) {
	fx, ok := r.opts.Fixtures[c.Fixture]
	if !ok {
		res.Status, res.Message = Errored, fmt.Sprintf("case names fixture %q, which does not exist in fixtures/", c.Fixture)
		return fixture.Layout{}, nil, false
	}
	if reason := r.fixtureUnsupported(c, fx); reason != "" {
		res.Status, res.Message = Skipped, reason
		return fixture.Layout{}, nil, false
	}
	layout, cleanup, err := r.freshLayout(fx)
	if cleanup == nil {
		cleanup = func() {}
	}
	if err != nil {
		cleanup()
		res.Status, res.Message = Errored, fmt.Sprintf("materializing fixture %q: %v", fx.Name, err)
		return fixture.Layout{}, nil, false
	}
	return layout, cleanup, true
}

// benignTwins plays c's turn again on conv twice, with its hostile strings
// replaced by their benign twins and by the marked twins
// (corpus.TurnSpec.Benign), each on a fresh fixture, and returns the
// screens of both runs by moment name (I-TUI-09).
func (r *Runner) benignTwins(ctx context.Context, c *corpus.Case, conv TurnConversation) (map[string]check.Twin, error) {
	twins := map[string]check.Twin{}
	for _, marked := range []bool{false, true} {
		shots, err := r.benignShots(ctx, c, conv, marked)
		if err != nil {
			return nil, fmt.Errorf("the %s run: %w", map[bool]string{false: "benign", true: "marked"}[marked], err)
		}
		for _, s := range shots {
			t := twins[s.Moment.Name]
			if marked {
				t.Marked = s.Screen
			} else {
				t.Benign = s.Screen
			}
			twins[s.Moment.Name] = t
		}
	}
	return twins, nil
}

// benignShots plays c's benign (or marked) turn on a fresh fixture and
// returns its screens.
func (r *Runner) benignShots(ctx context.Context, c *corpus.Case, conv TurnConversation, marked bool) ([]check.Shot, error) {
	model, err := c.Turn.BenignModel(marked)
	if err != nil {
		return nil, err
	}
	turn := *c.Turn
	turn.Model = model
	twin := *c
	twin.Turn = &turn
	fx, ok := r.opts.Fixtures[c.Fixture]
	if !ok {
		return nil, fmt.Errorf("no fixture %q", c.Fixture)
	}
	layout, cleanup, err := r.freshLayout(fx)
	if cleanup != nil {
		defer cleanup()
	}
	if err != nil {
		return nil, fmt.Errorf("materializing fixture %q: %w", fx.Name, err)
	}
	req, err := turnRequest(&twin, layout, r.config(&twin, layout))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	if r.ops[fcp.OpReset] {
		if _, err := conv.Do(ctx, fcp.Request{FCP: fcp.Version, Op: fcp.OpReset, Case: c.FullName()}, nil); err != nil {
			return nil, fmt.Errorf("reset: %w", err)
		}
	}
	u := &turnUser{c: twin.Turn, base: layout.Base}
	log, _, err := conv.Turn(ctx, req, u.on)
	if err != nil {
		return nil, err
	}
	return check.Shots(&twin, normalizeLog(log, layout), u.fired), nil
}
