package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/forge-conform/forge-conform/conformance/check"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/fcpclient"
	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// A scaling case (corpus.Scaling) judges how a call's cost grows with the
// number of entries it returns, from the CPU time of the implementation's
// own processes (CPUClock): unlike wall time it does not grow while the
// implementation waits for a core on a loaded machine, nor while the
// runner reads and validates a long response. It measures alone: no other
// case of the run (or of a runner sharing its Gate) runs meanwhile, as the
// caches and memory bandwidth that other cases' processes take are not
// CPU time but change it. The case's request runs on
// the small and the large fixture once each (the checks of each response;
// neither is counted), then the large call again until it is no faster
// than the time before (at most scalingMaxWarmups times: the first calls
// of a process that grows its heap, fills caches or compiles code cost
// more), then in rounds of a small and a large sample, in alternating
// order so that a drift of the machine touches both sizes alike. A small
// sample is the mean of Factor calls in a row: as long as a large one, it
// meets the same interference (a busy hyperthread or shared cache slows a
// long window more surely than a short one). The ratio large/small is
// estimated twice, by the sizes' minima (the calls with the least
// interference) and by their medians. From scalingMinSamples samples of
// each size on, the case passes when the estimate by the minima is within
// the limit, and it fails when both are above twice the limit, or from
// scalingFailSamples samples on when both are above it (judgeScaling says
// why);
// when neither holds after
// scalingMaxRounds rounds, or when the case's time runs short, it is
// errored: inconclusive, with the numbers.
//
// Each exchange has the run's timeout (Options.Timeout); the case as a
// whole has scalingBudget times that, as its large calls are long.
const (
	scalingMinSamples  = 3
	scalingFailSamples = 5
	scalingMaxRounds   = 10
	scalingMaxWarmups  = 4
	scalingBudget      = 6
)

// scalingSample is one measured call.
type scalingSample struct {
	cpu, wall time.Duration
}

// runScaling runs a scaling case.
func (r *Runner) runScaling(ctx context.Context, c *corpus.Case, res *Result) *Result {
	if !r.caps.CPUTime {
		res.Status, res.Message = Skipped, r.noCPUTime()
		return res
	}
	sc := c.Scaling
	small, large := *c, *c
	large.Fixture, large.Expect = sc.Fixture, sc.Expect
	var reqs [2]fcp.Request
	var layouts [2]fixture.Layout
	for i, k := range []*corpus.Case{&small, &large} {
		fx, ok := r.opts.Fixtures[k.Fixture]
		if !ok {
			res.Status, res.Message = Errored, fmt.Sprintf("case names fixture %q, which does not exist in fixtures/", k.Fixture)
			return res
		}
		if reason := r.fixtureUnsupported(k, fx); reason != "" {
			res.Status, res.Message = Skipped, reason
			return res
		}
		if len(fx.Faults) > 0 {
			res.Status, res.Message = Errored, "fixture "+fx.Name+" declares faults, which a scaling case cannot inject"
			return res
		}
		l, err := r.layout(fx)
		if err != nil {
			res.Status, res.Message = Errored, fmt.Sprintf("materializing fixture %q: %v", fx.Name, err)
			return res
		}
		layouts[i] = l
		if reqs[i], err = r.request(k, l); err != nil {
			res.Status, res.Message = Errored, err.Error()
			return res
		}
	}
	res.Request = NormalizeRequest(reqs[0], layouts[0])

	release, err := r.opts.Gate.alone(ctx)
	if err != nil {
		res.Status, res.Message = Errored, "not run: "+err.Error()
		return res
	}
	defer release()
	ctx, cancel := context.WithTimeout(ctx, scalingBudget*r.opts.Timeout)
	defer cancel()
	conv, err := r.target.Open(ctx)
	if err != nil {
		res.Status, res.Message = Errored, "starting the implementation: "+err.Error()
		return res
	}
	var convErr error
	defer func() { conv.Release(convErr) }()
	clock, ok := conv.(CPUClock)
	if !ok {
		res.Status, res.Message = Skipped, r.noCPUTime()
		return res
	}
	if r.ops[fcp.OpReset] {
		if _, err := conv.Do(ctx, fcp.Request{FCP: fcp.Version, Op: fcp.OpReset, Case: c.FullName()}, nil); err != nil {
			convErr = err
			res.Status, res.Message = Errored, "reset before the case: "+err.Error()
			return res
		}
	}
	checked := false // the first response of each size passed the case's checks
	// measure sends request i times times in a row and returns the last
	// reply and the CPU time and wall time per call.
	measure := func(i, times int) (Reply, scalingSample, error) {
		settle(ctx, clock)
		before, err := clock.CPUTime()
		if err != nil {
			return Reply{}, scalingSample{}, fmt.Errorf("reading the implementation's CPU time: %w", err)
		}
		start := time.Now()
		var rep Reply
		for range times {
			callCtx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
			rep, err = conv.Do(callCtx, reqs[i], nil)
			cancel()
			if err != nil {
				convErr = err
				return rep, scalingSample{}, err
			}
			if checked && (rep.Response.OK == nil || !*rep.Response.OK) {
				return rep, scalingSample{}, errors.New("the call did not succeed this time (a scaling case repeats one successful call)")
			}
		}
		wall := time.Since(start)
		after, err := clock.CPUTime()
		if err != nil {
			return rep, scalingSample{}, fmt.Errorf("reading the implementation's CPU time: %w", err)
		}
		n := time.Duration(times)
		return rep, scalingSample{cpu: (after - before) / n, wall: wall / n}, nil
	}
	// A small sample times Factor calls in a row.
	batch := [2]int{sc.Factor, 1}

	// One call per size, whose responses the case's checks see.
	var warm time.Duration // the CPU time of the last large call of the warm-up
	var failures []check.Failure
	var expectFailed []string
	for i, k := range []*corpus.Case{&small, &large} {
		rep, s, err := measure(i, 1)
		if err != nil {
			res.Status, res.Message, res.Stderr = Errored, fmt.Sprintf("%s call (fixture %s): %v", sizeName(i), k.Fixture, err), rep.Stderr
			return res
		}
		if i == 1 {
			warm = s.cpu
		}
		norm := normalize(rep.Response, layouts[i])
		if i == 0 {
			res.Response = &norm
		}
		in := check.Input{Case: k, Resp: norm, ContentBytes: rep.ContentBytes, Root: layouts[i].Root, Ctx: *reqs[i].Ctx}
		if in.Args, err = check.DecodeObject(c.Args); err == nil {
			in.Config, err = check.DecodeObject(reqs[i].Config)
		}
		if err != nil {
			res.Status, res.Message = Errored, "decoding the case: "+err.Error()
			return res
		}
		for _, f := range check.Response(in) {
			if f.Kind == check.KindExpect {
				expectFailed = append(expectFailed, fmt.Sprintf("%s call (fixture %s): %s", sizeName(i), k.Fixture, f.Message))
				continue
			}
			failures = append(failures, f)
		}
	}
	r.levelSeverity(c, failures)
	if fails, _, _ := bySeverity(failures, r.opts.Strict); len(fails) > 0 {
		// A response that breaks a rule of the SRD fails that rule's IDs;
		// its cost is not measured.
		res.Failures = fails
		res.Status, res.Message = Failed, summarize(fails)
		return res
	}
	if len(expectFailed) > 0 {
		// The sizes are what the SRD's n counts: without them the
		// ratio says nothing of the bound.
		res.Status = Errored
		res.Message = "not measured: the responses do not return the entries the case counts on (" + strings.Join(expectFailed, "; ") + ")"
		return res
	}

	checked = true

	// Warm-up: the large call again until it is no faster than the one
	// before (a runtime that grows its heap, fills caches or compiles
	// code makes its first calls slower, which would count as growth).
	for range scalingMaxWarmups {
		rep, s, err := measure(1, 1)
		if err != nil {
			res.Status, res.Message, res.Stderr = Errored, fmt.Sprintf("large call, warming up: %v", err), rep.Stderr
			return res
		}
		if s.cpu > warm*9/10 {
			break
		}
		warm = s.cpu
	}

	var samples [2][]scalingSample
	var v scalingVerdict
	deadline, _ := ctx.Deadline()
	var longest time.Duration // the longest round so far
	for round := 0; round < scalingMaxRounds; round++ {
		start := time.Now()
		order := []int{0, 1}
		if round%2 == 1 {
			order = []int{1, 0}
		}
		for _, i := range order {
			rep, s, err := measure(i, batch[i])
			if err != nil {
				res.Status, res.Message, res.Stderr = Errored, fmt.Sprintf("%s call, round %d: %v", sizeName(i), round+1, err), rep.Stderr
				return res
			}
			if s.cpu > 0 {
				samples[i] = append(samples[i], s)
			}
		}
		if len(samples[0]) >= scalingMinSamples && len(samples[1]) >= scalingMinSamples {
			if v = judgeScaling(samples[0], samples[1], sc.MaxRatio); v.decided {
				break
			}
		}
		if longest = max(longest, time.Since(start)); time.Until(deadline) < 2*longest {
			break
		}
	}
	if len(samples[0]) == 0 || len(samples[1]) == 0 {
		res.Status, res.Message = Errored, "inconclusive: the implementation's CPU time did not advance during the calls (a process tree the runner cannot see?)"
		return res
	}
	if !v.decided {
		v = judgeScaling(samples[0], samples[1], sc.MaxRatio)
	}
	numbers := describeScaling(samples, sc, v)
	switch {
	case !v.decided:
		res.Status, res.Message = Errored, "inconclusive: the measurements are too noisy to judge "+c.PrimaryID()+" ("+numbers+"); run the case again on a quieter machine"
	case v.fail:
		f := check.Failure{Kind: check.KindExpect, Severity: check.SeverityFail,
			Message: fmt.Sprintf("the call's CPU time grows faster than O(n log n) in the entries it returns: %s", numbers)}
		res.Failures = Charge(c, []check.Failure{f})
		r.levelSeverity(c, res.Failures)
		res.Failures, res.Warnings, res.Notes = bySeverity(res.Failures, r.opts.Strict)
		if len(res.Failures) > 0 {
			res.Status, res.Message = Failed, summarize(res.Failures)
		} else {
			res.Status, res.Message = Passed, numbers
		}
	default:
		res.Status, res.Message = Passed, numbers
	}
	return res
}

// settle waits, up to settleMax, until the implementation's processes
// stop using the CPU: a garbage collector or a compiler thread finishing
// the work of the last call would otherwise bill it to the next one.
func settle(ctx context.Context, clock CPUClock) {
	prev, err := clock.CPUTime()
	if err != nil {
		return
	}
	for end := time.Now().Add(settleMax); time.Now().Before(end); {
		select {
		case <-ctx.Done():
			return
		case <-time.After(settleTick):
		}
		cur, err := clock.CPUTime()
		if err != nil || cur-prev < settleIdle {
			return
		}
		prev = cur
	}
}

// The implementation is idle when it used less than settleIdle of CPU
// time in a settleTick (2%).
const (
	settleTick = 10 * time.Millisecond
	settleIdle = 200 * time.Microsecond
	settleMax  = 500 * time.Millisecond
)

// noCPUTime says why the target cannot time a scaling case.
func (r *Runner) noCPUTime() string {
	const what = "complexity is judged on the CPU time of the implementation's own processes"
	switch {
	case len(r.opts.Binary) == 0:
		return what + ", which an in-process target has not: run it with --binary (e.g. forge-ref)"
	case r.opts.Mode == ModeOneShot:
		return what + ", which one-shot mode mixes with each process's start: use --mode session"
	}
	return what + ", which this system does not show: " + fmt.Sprint(fcpclient.CPUTimeAvailable())
}

func sizeName(i int) string { return [2]string{"small", "large"}[i] }

// scalingVerdict is the judgement of one set of samples.
type scalingVerdict struct {
	lo, hi  float64 // the ratio large/small by the minima and by the medians, the lower first
	decided bool
	fail    bool
}

// judgeScaling estimates the ratio of large's CPU time to small's twice,
// by the minima and by the medians, and compares them with limit. The
// case fails only when both are above it, with scalingFailSamples samples
// of each size (the minimum of more calls is likelier to be one that no
// collector or neighbour disturbed), or both above twice the limit, which
// no disturbance seen came near (the reference's worst minimum ratio was
// 43, before its collector was tuned). It passes when the ratio of the
// minima is within it, whatever the medians say: interference only adds
// CPU time (a collector's cycle, memory paged in again, caches another
// process took), and the large calls of an implementation that allocates
// in proportion to its output meet it more often than the small ones, so
// their median can stand far above their minimum (160 against 310 ms seen
// of the reference's search_files) while the work itself, which a
// quadratic sort adds to every call, shows in the minimum. A false
// failure costs more than a missed one.
func judgeScaling(small, large []scalingSample, limit float64) scalingVerdict {
	sMin, sMed := minMedian(small)
	lMin, lMed := minMedian(large)
	byMin, byMed := float64(lMin)/float64(sMin), float64(lMed)/float64(sMed)
	v := scalingVerdict{lo: min(byMin, byMed), hi: max(byMin, byMed)}
	switch {
	case byMin <= limit:
		v.decided = true
	case v.lo > 2*limit, v.lo > limit && len(small) >= scalingFailSamples && len(large) >= scalingFailSamples:
		v.decided, v.fail = true, true
	}
	return v
}

func minMedian(ss []scalingSample) (time.Duration, time.Duration) {
	cpu := make([]time.Duration, len(ss))
	for i, s := range ss {
		cpu[i] = s.cpu
	}
	slices.Sort(cpu)
	return cpu[0], cpu[len(cpu)/2]
}

// describeScaling renders the measurement for a report.
func describeScaling(samples [2][]scalingSample, sc *corpus.Scaling, v scalingVerdict) string {
	sMin, sMed := minMedian(samples[0])
	lMin, lMed := minMedian(samples[1])
	var wall [2]time.Duration
	for i, ss := range samples {
		wall[i] = ss[0].wall
		for _, s := range ss {
			wall[i] = min(wall[i], s.wall)
		}
	}
	return fmt.Sprintf("CPU time at %dn/n = %.1f by the minima, %.1f by the medians (limit %g; %d for a linear cost, %d for a quadratic one): n: min %s median %s of %d, %dn: min %s median %s of %d; fastest wall time %s and %s",
		sc.Factor, float64(lMin)/float64(sMin), float64(lMed)/float64(sMed), sc.MaxRatio, sc.Factor, sc.Factor*sc.Factor,
		ms(sMin), ms(sMed), len(samples[0]), sc.Factor, ms(lMin), ms(lMed), len(samples[1]), ms(wall[0]), ms(wall[1]))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }
