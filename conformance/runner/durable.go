package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/forge-conform/forge-conform/conformance/check"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/diff"
	"github.com/forge-conform/forge-conform/conformance/fcpclient"
	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/conformance/turnlog"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// Durability cases (spec/PROTOCOL.md §10): a turn that journals to a
// directory of the case, crashed for real (the runner kills the process
// tree at an event, or the implementation kills itself at a requested
// crash point), then recover steps, each in a fresh process, the last of
// which ends the interrupted turn. The checks: each step's recovered
// event, the final step as a turn (invariants and expectation), and the
// side-effect counters in the fixture.

// CrashConversation is a TurnConversation whose implementation the runner
// can crash from outside (PROTOCOL.md §10.2).
type CrashConversation interface {
	TurnConversation
	// KillTree sends SIGKILL to the implementation's whole process tree,
	// commands that left its process group included. It is safe to call
	// from Turn's user callback; Turn then returns a crash error.
	KillTree()
	// KilledBySIGKILL reports, after Turn returned a crash error, whether
	// the process died by SIGKILL.
	KilledBySIGKILL() bool
}

// FreshOpener is a Target that can open a conversation on a process no
// other case has used (a recover after a crash runs in a fresh process).
type FreshOpener interface {
	OpenFresh(ctx context.Context) (Conversation, error)
}

// durableUnsupported says why the durability case c cannot run, or "".
func (r *Runner) durableUnsupported(c *corpus.Case) string {
	if !r.caps.Stateful {
		return "a durability case runs a turn and recovers it in long-lived processes: use --mode session"
	}
	if _, ok := r.target.(FreshOpener); !ok {
		return "a durability case crashes the implementation's process and recovers in a fresh one: " +
			"run it through FCP/1 (--binary \"forge-conform ref\" for the reference; the in-process target has no process to crash)"
	}
	if !r.ops[fcp.OpRecover] {
		return fmt.Sprintf("unsupported: the implementation does not declare op %q (PROTOCOL.md §10)", fcp.OpRecover)
	}
	points := []*fcp.CrashPoint{c.Turn.Crash}
	for _, st := range c.Turn.Recover {
		points = append(points, st.Crash)
	}
	for _, p := range points {
		if p != nil && slices.Contains(fcp.ExtraCrashPoints(), p.Point) && !slices.Contains(r.hello.CrashPoints, p.Point) {
			return fmt.Sprintf("unsupported: the case crashes at %q, which hello's crash_points does not name (PROTOCOL.md §10.2)", p.Point)
		}
	}
	return ""
}

// phase is one process of a durability case: the turn or a recover step.
type phase struct {
	name  string // "turn", "recover[0]", ...
	req   fcp.TurnRequest
	crash bool // a crash point or a kill ends it
	kill  *corpus.EventMatch
	dec   string // the recovery prompt's answer
}

// phaseResult is what one phase produced.
type phaseResult struct {
	log     *turnlog.Log // normalized
	errored string       // the harness could not run the phase
	stderr  string
	failure string // the implementation did not crash or end as asked
	skipped string // the target cannot run the case
}

func (r *Runner) runDurable(ctx context.Context, c *corpus.Case, res *Result) *Result {
	if reason := r.durableUnsupported(c); reason != "" {
		res.Status, res.Message = Skipped, reason
		return res
	}
	layout, cleanup, ok := r.freshCaseLayout(c, res)
	if !ok {
		return res
	}
	defer cleanup()
	jdir := layout.Base + ".journal"
	defer func() { _ = fixture.RemoveAll(jdir) }()
	if err := r.emptyDir(jdir); err != nil {
		res.Status, res.Message = Errored, fmt.Sprintf("creating the journal directory: %v", err)
		return res
	}
	turn, err := turnRequest(c, layout, r.config(c, layout))
	if err != nil {
		res.Status, res.Message = Errored, err.Error()
		return res
	}
	turn.Ctx.JournalDir = jdir
	turn.Crash = c.Turn.Crash
	shownCtx := *turn.Ctx
	shownCtx.JournalDir = "$JOURNAL"
	res.Request = NormalizeRequest(fcp.Request{FCP: fcp.Version, Op: fcp.OpTurn, Case: c.FullName(), Ctx: &shownCtx, Config: turn.Config}, layout)

	phases := []phase{{name: "turn", req: turn, crash: c.Turn.Crash != nil || c.Turn.Kill != nil, kill: c.Turn.Kill}}
	for i, st := range c.Turn.Recover {
		req := fcp.TurnRequest{FCP: fcp.Version, Op: fcp.OpRecover, Case: c.FullName(), Ctx: turn.Ctx, Config: turn.Config, Crash: st.Crash}
		if err := json.Unmarshal(expand(st.Model, layout), &req.Model); err != nil {
			res.Status, res.Message = Errored, fmt.Sprintf("the case's turn.recover[%d].model is not an array of model responses: %v", i, err)
			return res
		}
		dec := st.Decision
		if dec == "" {
			dec = fcp.DecisionResume
		}
		phases = append(phases, phase{name: fmt.Sprintf("recover[%d]", i), req: req, crash: st.Crash != nil || st.Kill != nil, kill: st.Kill, dec: dec})
	}
	if last := phases[len(phases)-1]; last.crash {
		res.Status, res.Message = Errored, "the case's last recover step crashes: the last step must end the turn"
		return res
	}

	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	var logs []*turnlog.Log
	var prom *promise
	var atCrash map[string]int
	next := r.startSpare(ctx)
	defer func() { dropSpare(next) }()
	for i, ph := range phases {
		cur := next
		next = nil
		if i+1 < len(phases) {
			next = r.startSpare(ctx)
		}
		pr := r.runPhase(ctx, c, layout, ph, cur)
		if pr.skipped != "" {
			res.Status, res.Message = Skipped, pr.skipped
			return res
		}
		if pr.errored != "" {
			res.Status, res.Message, res.Stderr = Errored, ph.name+": "+pr.errored, pr.stderr
			return res
		}
		if pr.failure != "" {
			res.Failures = append(res.Failures, check.Failure{IDs: c.IDs, Kind: check.KindExpect, Message: ph.name + ": " + pr.failure})
			break
		}
		if ph.crash && c.Turn.PidsFile != "" {
			if left := leftProcesses(filepath.Join(layout.Root, c.Turn.PidsFile)); len(left) > 0 {
				res.Status, res.Message = Errored, ph.name+": the runner could not remove the process tree after the crash (I-JRN-09): "+left[0].Message
				return res
			}
		}
		logs = append(logs, pr.log)
		if i == 0 && c.Expect.Turn != nil && len(c.Expect.Turn.CrashCounts) > 0 {
			got, err := readCounts(layout.Root, c.Expect.Turn.CrashCounts)
			if err != nil {
				res.Status, res.Message = Errored, err.Error()
				return res
			}
			atCrash = got
			res.Failures = append(res.Failures, crashCounts(c, got, c.Expect.Turn.CrashCounts)...)
		}
		if i > 0 {
			res.Failures = append(res.Failures, recoveredChecks(c, ph.name, c.Turn.Recover[i-1].Expect, pr.log)...)
			res.Failures = append(res.Failures, keptPromise(ph.name, prom, pr.log)...)
			if c.Turn.Recover[i-1].Again {
				f, msg := r.recoverAgain(ctx, c, layout, jdir, ph, pr.log)
				if msg != "" {
					res.Status, res.Message = Errored, ph.name+" again: "+msg
					return res
				}
				res.Failures = append(res.Failures, f...)
			}
		}
		if ph.crash {
			prom = promised(ph, pr.log, prom)
		} else {
			prom = nil
		}
		if i+1 < len(phases) && c.Turn.Recover[i].Again {
			// The next step is recovered twice: keep the journal as the
			// crash left it.
			if err := r.copyDir(jdir, jdir+".again"); err != nil {
				res.Status, res.Message = Errored, "copying the journal: "+err.Error()
				return res
			}
			defer func() { _ = os.RemoveAll(jdir + ".again") }()
		}
	}
	if len(logs) == len(phases) {
		if exp := c.Expect.Turn; exp != nil && len(exp.TurnOrder) > 0 {
			res.Failures = append(res.Failures, check.TurnOrder(c, "the turn", exp.TurnOrder, logs[0])...)
		}
		final := logs[len(logs)-1]
		res.Turn = final
		res.Failures = append(res.Failures, check.Turn(check.TurnInput{Case: c, Log: final})...)
		content := string(check.TurnGolden(final))
		f := final.Final()
		res.Response = &fcp.Response{OK: fcp.Bool(f != nil && f.OK != nil && *f.OK), Content: &content}
	}
	if exp := c.Expect.Turn; exp != nil && len(exp.Counts) > 0 {
		got, err := readCounts(layout.Root, exp.Counts)
		if err != nil {
			res.Status, res.Message = Errored, err.Error()
			return res
		}
		res.Failures = append(res.Failures, finalCounts(c, got, atCrash)...)
	}
	res.Failures, res.Warnings, res.Notes = bySeverity(Charge(c, res.Failures), r.opts.Strict)
	if len(res.Failures) > 0 {
		res.Status, res.Message = Failed, summarize(res.Failures)
	} else {
		res.Status = Passed
	}
	return res
}

// spare is a fresh process started ahead of its phase, so that its start
// overlaps the phase before (it touches no journal until its request).
type spare struct {
	conv Conversation
	err  error
}

// startSpare starts a fresh process, greeted, in the background.
func (r *Runner) startSpare(ctx context.Context) <-chan spare {
	ch := make(chan spare, 1)
	go func() {
		conv, err := r.target.(FreshOpener).OpenFresh(ctx)
		if err == nil {
			if g, ok := conv.(Greeter); ok {
				if err := g.Greet(ctx); err != nil {
					conv.Release(err)
					conv = nil
				}
			}
		}
		ch <- spare{conv, err}
	}()
	return ch
}

// dropSpare releases a spare process that no phase used.
func dropSpare(ch <-chan spare) {
	if ch == nil {
		return
	}
	if sp := <-ch; sp.conv != nil {
		sp.conv.Release(errors.New("not used"))
	}
}

// runPhase runs one phase in the fresh process next delivers.
func (r *Runner) runPhase(ctx context.Context, c *corpus.Case, layout fixture.Layout, ph phase, next <-chan spare) phaseResult {
	sp := <-next
	conv, err := sp.conv, sp.err
	if err == nil && conv == nil {
		err = errors.New("hello failed")
	}
	if err != nil {
		return phaseResult{errored: "starting the implementation: " + err.Error()}
	}
	cc, ok := conv.(CrashConversation)
	if !ok {
		conv.Release(errors.New("not a crash conversation"))
		return phaseResult{errored: "the target cannot crash its implementation"}
	}
	var convErr error
	defer func() { cc.Release(convErr) }()
	if reason := r.turnUnsupported(c, conv); reason != "" {
		return phaseResult{skipped: reason}
	}
	u := &durableUser{turnUser: turnUser{c: c.Turn, base: layout.Base}, kill: ph.kill, conv: cc, decision: ph.dec}
	raw, stderr, err := cc.Turn(ctx, ph.req, u.on)
	convErr = err
	log := normalizeLog(raw, layout)
	var pe *fcpclient.ProtocolError
	crashed := errors.As(err, &pe) && pe.Kind == fcpclient.KindCrash
	switch {
	case !ph.crash && err != nil:
		return phaseResult{log: log, errored: err.Error(), stderr: stderr}
	case !ph.crash:
		return phaseResult{log: log}
	case u.killed && crashed:
		return phaseResult{log: log}
	case ph.kill != nil && !u.killed && err == nil:
		return phaseResult{log: log, failure: fmt.Sprintf("the runner waited to kill the implementation at %s, which never came; events: %s",
			describe(*ph.kill), summary(log))}
	case ph.kill != nil && !u.killed:
		return phaseResult{log: log, errored: fmt.Sprintf("before the runner's kill at %s: %v", describe(*ph.kill), err), stderr: stderr}
	case err == nil:
		return phaseResult{log: log, failure: fmt.Sprintf("ended with a final response where crash point %s was asked for: "+
			"an implementation that declares recover kills itself there (PROTOCOL.md §10.2, I-JRN-10)", crashDesc(ph.req.Crash))}
	case !crashed:
		return phaseResult{log: log, errored: err.Error(), stderr: stderr}
	case !cc.KilledBySIGKILL():
		return phaseResult{log: log, failure: fmt.Sprintf("the process ended but not by SIGKILL at crash point %s (%v): a crash point is a SIGKILL, with no cleanup (PROTOCOL.md §10.2)",
			crashDesc(ph.req.Crash), err)}
	}
	return phaseResult{log: log}
}

// durableUser plays the user of a durability phase: a turn user that also
// kills the implementation at the phase's event and answers the recovery
// prompt.
type durableUser struct {
	turnUser
	kill     *corpus.EventMatch
	conv     CrashConversation
	decision string
	killed   bool
}

func (u *durableUser) on(ev fcp.TurnLine) []fcp.TurnRequest {
	if u.killed {
		return nil
	}
	if u.kill != nil && matchTrigger(*u.kill, ev) {
		u.killed = true
		u.conv.KillTree()
		return nil
	}
	if ev.Event == fcp.EventRecovered && ev.Prompt != nil && *ev.Prompt {
		return []fcp.TurnRequest{{Op: fcp.OpDecide, Decision: u.decision}}
	}
	if ev.Event == fcp.EventConfirmation {
		// Answered at once: the causality hold of turn cases (T-APR-01)
		// is not what these cases check.
		d := corpus.Decision{Decision: fcp.DecisionApproveAll}
		if n := len(u.c.Decide); n > 0 {
			d = u.c.Decide[min(u.confirms, n-1)]
		}
		d, scripted := u.c.Answer(d, requestIDs(ev))
		if scripted {
			u.confirms++
		}
		return []fcp.TurnRequest{{Op: fcp.OpDecide, Decision: d.Decision, IDs: d.IDs}}
	}
	return u.turnUser.on(ev)
}

// recoverAgain recovers the copy of the journal the crash left in a fresh
// process, running the same step, and requires the same recovered event
// and final history as the first recovery.
func (r *Runner) recoverAgain(ctx context.Context, c *corpus.Case, layout fixture.Layout, jdir string, ph phase, first *turnlog.Log) ([]check.Failure, string) {
	if err := os.RemoveAll(jdir); err != nil {
		return nil, err.Error()
	}
	if err := os.Rename(jdir+".again", jdir); err != nil {
		return nil, err.Error()
	}
	pr := r.runPhase(ctx, c, layout, ph, r.startSpare(ctx))
	if pr.errored != "" {
		return nil, pr.errored
	}
	if pr.failure != "" {
		return []check.Failure{{IDs: c.IDs, Kind: check.KindExpect, Message: pr.failure}}, ""
	}
	type outcome struct {
		Recovered *fcp.TurnLine `json:"recovered"`
		History   []fcp.Message `json:"history"`
		End       string        `json:"end"`
	}
	// The texts of the error results recovery writes are the
	// implementation's (I-JRN-05): compared by presence only.
	blank := func(h []fcp.Message) []fcp.Message {
		out := make([]fcp.Message, len(h))
		for i, m := range h {
			if m.Type == fcp.MessageToolResult && m.IsError != nil && *m.IsError {
				m.Content = nil
			}
			out[i] = m
		}
		return out
	}
	of := func(l *turnlog.Log) outcome {
		var o outcome
		for _, ev := range l.Events() {
			if ev.Event == fcp.EventRecovered {
				e := ev
				e.Seq = 0
				o.Recovered = &e
				break
			}
		}
		if f := l.Final(); f != nil {
			o.History, o.End = blank(f.History), f.End
		}
		return o
	}
	a, b := of(first), of(pr.log)
	if reflect.DeepEqual(a, b) {
		return nil, ""
	}
	ja, _ := json.MarshalIndent(a, "", "  ")
	jb, _ := json.MarshalIndent(b, "", "  ")
	return []check.Failure{{IDs: c.IDs, Kind: check.KindExpect,
		Message: "recovering the same journal twice gave different recoveries (recovered event, history): what is recovered is what the journal recorded (I-JRN-12)",
		Diff:    diff.Text(string(ja), string(jb))}}, ""
}

// recoveredChecks checks a step's recovered event: it comes first, and
// states what the case expects.
func recoveredChecks(c *corpus.Case, step string, want *corpus.RecoveredExpect, log *turnlog.Log) []check.Failure {
	var out []check.Failure
	bad := func(format string, args ...any) {
		out = append(out, check.Failure{IDs: c.IDs, Kind: check.KindExpect, Message: step + ": " + fmt.Sprintf(format, args...)})
	}
	events := log.Events()
	if len(events) == 0 || events[0].Event != fcp.EventRecovered {
		first := "none"
		if len(events) > 0 {
			first = events[0].Event
		}
		bad("the first event is %s; recover writes recovered first (PROTOCOL.md §10.3)", first)
		return out
	}
	ev := events[0]
	prompt := ev.Prompt != nil && *ev.Prompt
	if prompt && len(ev.Choices) != 2 {
		bad("the recovery prompt offers %v; want resume and discard (FR-RES-05)", ev.Choices)
	}
	if want == nil {
		return out
	}
	if want.NoBatch && (ev.Batch != nil || prompt) {
		raw, _ := json.Marshal(ev.Batch)
		bad("recovered a batch (%s, prompt %v); want nothing to recover", raw, prompt)
	}
	if want.Prompt != nil && prompt != *want.Prompt {
		bad("prompt is %v; want %v", prompt, *want.Prompt)
	}
	if want.Batch != nil {
		if ev.Batch == nil {
			bad("no batch recovered; want one")
			return out
		}
		var w, g any
		if err := json.Unmarshal(want.Batch, &w); err != nil {
			bad("the case's batch expectation is not valid JSON: %v", err)
			return out
		}
		raw, _ := json.Marshal(ev.Batch)
		_ = json.Unmarshal(raw, &g)
		if proj := check.Project(w, g); !reflect.DeepEqual(w, proj) {
			out = append(out, check.Failure{IDs: c.IDs, Kind: check.KindExpect,
				Message: step + ": the recovered batch differs from the expectation (only the fields the case lists are compared)",
				Diff:    diff.JSON(w, proj, want.Batch)})
		}
	}
	return out
}

// The requirement IDs the durability checks name.
const (
	idCallsJournaled  = "FR-RES-04a" // calls journaled as they arrive
	idResultJournaled = "FR-RES-04b" // a result journaled before the next tool starts
	idNoRerun         = "FR-RES-04c" // recovery never re-runs a tool
	idJournal         = "FR-RES-04"  // ids, names, arguments, ordering
)

// readCounts reads the side-effect counters named in want: lines per
// fixture file (absent: 0).
func readCounts(root string, want map[string]int) (map[string]int, error) {
	got := map[string]int{}
	for name := range want {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("reading side-effect counter %s: %v", name, err)
		}
		got[name] = strings.Count(string(b), "\n")
	}
	return got, nil
}

// crashCounts checks the counters right after the turn's crash. More runs
// than stated at a crash point mean a tool started before the point's
// record was durable: the calls (calls_received, FR-RES-04a) or the
// previous result (result_journaled, FR-RES-04b).
func crashCounts(c *corpus.Case, got, want map[string]int) []check.Failure {
	var out []check.Failure
	for _, name := range sortedKeys(want) {
		if got[name] == want[name] {
			continue
		}
		f := check.Failure{IDs: c.IDs, Kind: check.KindExpect,
			Message: fmt.Sprintf("side-effect counter %s after the turn's crash: %d runs; want %d", name, got[name], want[name])}
		if cp := c.Turn.Crash; cp != nil && got[name] > want[name] {
			switch cp.Point {
			case fcp.CrashCallsReceived:
				f.IDs, f.Kind = []string{idCallsJournaled}, check.KindInvariant
				f.Message += ": a tool ran before the crash point calls_received, which comes right after the calls are journaled and before anything runs"
			case fcp.CrashResultJournaled:
				f.IDs, f.Kind = []string{idResultJournaled}, check.KindInvariant
				f.Message += fmt.Sprintf(": a tool ran after call %s and before the crash point right after its result is journaled: the result was journaled only after the next tool started", cp.ID)
			}
		}
		out = append(out, f)
	}
	return out
}

// finalCounts checks the counters at the end. A counter that was right
// after the crash and grew past its final count during recovery is a tool
// run again (FR-RES-04c).
func finalCounts(c *corpus.Case, got, atCrash map[string]int) []check.Failure {
	exp := c.Expect.Turn
	var out []check.Failure
	for _, name := range sortedKeys(exp.Counts) {
		want := exp.Counts[name]
		if got[name] == want {
			continue
		}
		f := check.Failure{IDs: c.IDs, Kind: check.KindExpect,
			Message: fmt.Sprintf("side-effect counter %s at the end: the commands that append to it ran %d times; want %d", name, got[name], want)}
		if cw, ok := exp.CrashCounts[name]; ok && atCrash != nil && atCrash[name] == cw && got[name] > want {
			f.IDs, f.Kind = []string{idNoRerun}, check.KindInvariant
			f.Message += ": recovery ran a tool again (never re-run automatically)"
		}
		out = append(out, f)
	}
	return out
}

// promise is what a crashed phase said was durable about its last batch:
// the response whose calls were journaled (a journaled event with ids, or
// the crash point calls_received), and the results journaled since (a
// journaled event with id, or the crash point result_journaled).
type promise struct {
	batch   *fcp.ModelResponse
	results []string
	how     string
}

// promised reads a crashed phase's promise from its events and crash
// point; prev when the phase journaled no new batch.
func promised(ph phase, log *turnlog.Log, prev *promise) *promise {
	p := prev
	byIDs := func(ids []string) *fcp.ModelResponse {
		for i := range ph.req.Model {
			m := &ph.req.Model[i]
			if len(m.ToolCalls) != len(ids) || len(ids) == 0 {
				continue
			}
			same := true
			for k, tc := range m.ToolCalls {
				same = same && tc.ID == ids[k]
			}
			if same {
				return m
			}
		}
		return nil
	}
	for _, ev := range log.Events() {
		if ev.Event != fcp.EventJournaled {
			continue
		}
		if len(ev.IDs) > 0 {
			if m := byIDs(ev.IDs); m != nil {
				p = &promise{batch: m, how: "the journaled event of its calls"}
			}
		} else if ev.ID != "" && p != nil {
			p.results = append(p.results, ev.ID)
		}
	}
	if cp := ph.req.Crash; cp != nil {
		switch cp.Point {
		case fcp.CrashCallsReceived:
			if m := nthBatch(ph.req.Model, max(cp.Batch, 1)); m != nil {
				p = &promise{batch: m, how: "the crash point calls_received"}
			}
		case fcp.CrashResultJournaled:
			if p != nil && !slices.Contains(p.results, cp.ID) {
				p.results = append(p.results, cp.ID)
			}
		case fcp.CrashTextPersisted, fcp.CrashToolUsePersisted:
			// The batch is persisted only after its calls are journaled
			// (FR-RES-04a): a point inside its persistence promises them.
			for i := range ph.req.Model {
				m := &ph.req.Model[i]
				if cp.Point == fcp.CrashToolUsePersisted && slices.ContainsFunc(m.ToolCalls, func(tc fcp.ModelCall) bool { return tc.ID == cp.ID }) {
					p = &promise{batch: m, how: "the crash point tool_use_persisted, which comes after the batch's calls are journaled"}
					break
				}
			}
			if cp.Point == fcp.CrashTextPersisted {
				if m := nthBatch(ph.req.Model, max(cp.Batch, 1)); m != nil {
					p = &promise{batch: m, how: "the crash point text_persisted, which comes after the batch's calls are journaled"}
				}
			}
		}
	}
	return p
}

// nthBatch is the n-th response of model with tool calls (1 for the
// first), nil when there are fewer.
func nthBatch(model []fcp.ModelResponse, n int) *fcp.ModelResponse {
	for i := range model {
		if len(model[i].ToolCalls) > 0 {
			if n--; n == 0 {
				return &model[i]
			}
		}
	}
	return nil
}

// keptPromise checks that recovery found what the crashed phase said was
// durable: the batch's calls exactly as the model sent them (FR-RES-04a
// when missing, FR-RES-04 when different: ids, names, arguments, order,
// I-JRN-03) and every journaled result (FR-RES-04b).
func keptPromise(step string, p *promise, log *turnlog.Log) []check.Failure {
	if p == nil {
		return nil
	}
	events := log.Events()
	if len(events) == 0 || events[0].Event != fcp.EventRecovered {
		return nil // recoveredChecks reports it
	}
	b := events[0].Batch
	var ids []string
	for _, tc := range p.batch.ToolCalls {
		ids = append(ids, tc.ID)
	}
	fail := func(id, format string, args ...any) []check.Failure {
		return []check.Failure{{IDs: []string{id}, Kind: check.KindInvariant, Message: step + ": " + fmt.Sprintf(format, args...)}}
	}
	if b == nil {
		return fail(idCallsJournaled, "recovered no batch; the calls %v were journaled (%s), so recovery finds them", ids, p.how)
	}
	got := map[string]bool{}
	var gotIDs []string
	for _, c := range b.Calls {
		got[c.ID] = true
		gotIDs = append(gotIDs, c.ID)
	}
	for _, id := range ids {
		if !got[id] {
			return fail(idCallsJournaled, "the recovered batch has calls %v; the calls %v were journaled (%s), so recovery finds all of them", gotIDs, ids, p.how)
		}
	}
	var out []check.Failure
	same := len(b.Calls) == len(p.batch.ToolCalls) && b.Text == p.batch.Text
	for i := 0; same && i < len(b.Calls); i++ {
		w, g := p.batch.ToolCalls[i], b.Calls[i]
		same = w.ID == g.ID && w.Name == g.Name && sameArgs(w.Args, w.RawArgs, g.Args, g.RawArgs)
	}
	if !same {
		want := fcp.RecoveredBatch{Text: p.batch.Text}
		for _, tc := range p.batch.ToolCalls {
			want.Calls = append(want.Calls, fcp.PendingCall{ID: tc.ID, Name: tc.Name, Args: tc.Args, RawArgs: tc.RawArgs})
		}
		ja, _ := json.MarshalIndent(struct {
			Text  string            `json:"text,omitempty"`
			Calls []fcp.PendingCall `json:"calls"`
		}{want.Text, want.Calls}, "", "  ")
		jb, _ := json.MarshalIndent(struct {
			Text  string            `json:"text,omitempty"`
			Calls []fcp.PendingCall `json:"calls"`
		}{b.Text, b.Calls}, "", "  ")
		out = append(out, check.Failure{IDs: []string{idJournal}, Kind: check.KindInvariant,
			Message: step + ": the recovered batch differs from the model's response: calls come back with their ids, names and arguments as received, in the model's order, with the assistant text (I-JRN-03)",
			Diff:    diff.Text(string(ja), string(jb))})
	}
	have := map[string]bool{}
	for _, m := range b.Results {
		have[m.ID] = true
	}
	for _, id := range p.results {
		if !have[id] {
			out = append(out, fail(idResultJournaled, "the recovered batch has no result for call %s, whose result was reported journaled before the crash: a result is durable before the next tool starts", id)...)
		}
	}
	return out
}

// sameArgs compares arguments: JSON by value, raw text byte for byte.
func sameArgs(wa json.RawMessage, wr *string, ga json.RawMessage, gr *string) bool {
	if wr != nil || gr != nil {
		return wr != nil && gr != nil && *wr == *gr
	}
	var a, b any
	if json.Unmarshal(wa, &a) != nil || json.Unmarshal(ga, &b) != nil {
		return string(wa) == string(ga)
	}
	return reflect.DeepEqual(a, b)
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// emptyDir creates dir empty, owned by the implementation's user.
func (r *Runner) emptyDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil {
		return err
	}
	return r.own(dir)
}

// copyDir copies the regular files of src into a new directory dst, owned
// by the implementation's user.
func (r *Runner) copyDir(src, dst string) error {
	if err := r.emptyDir(dst); err != nil {
		return err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o600); err != nil {
			return err
		}
		if err := r.own(filepath.Join(dst, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

func crashDesc(c *fcp.CrashPoint) string {
	if c == nil {
		return "(none)"
	}
	s := c.Point
	if c.ID != "" {
		s += " id " + c.ID
	}
	if c.Batch > 0 {
		s += fmt.Sprintf(" batch %d", c.Batch)
	}
	return s
}

func describe(m corpus.EventMatch) string {
	s := m.Event
	if m.ID != "" {
		s += " " + m.ID
	}
	if m.Contains != "" {
		s += fmt.Sprintf(" containing %q", m.Contains)
	}
	return s
}

func summary(l *turnlog.Log) string {
	var parts []string
	for _, ev := range l.Events() {
		parts = append(parts, ev.Event)
	}
	if len(parts) > 40 {
		parts = append(parts[:40], "...")
	}
	return strings.Join(parts, ", ")
}
