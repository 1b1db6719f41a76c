//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/forge-conform/forge-conform/internal/mutation"
)

// Outcomes of a mutant.
const (
	Killed   = "killed"
	Survived = "survived"
	NotBuilt = "not-built"
	Harness  = "harness"
	NotRun   = "not-run"
)

type result struct {
	outcome string
	// detail says what killed the mutant (the first failed case, a
	// timeout, a crash) or what went wrong.
	detail string
	took   time.Duration
	// cases are the cases of a passing run.
	cases []reportCase
	// uncovered: a survivor no case reaches (see coverage.go).
	uncovered bool
	// noneRan: the run failed only because every case was skipped.
	noneRan bool
}

// harness builds forge-conform with mutants and runs the corpus.
type harness struct {
	root, work string
	// stages are the runs of a mutant, narrowed by baseline.
	stages []stage
	// runGlobs narrow the corpus (-run).
	runGlobs []string
	// pkgs are the directories of the packages mutated: a scoped stage of
	// none of them is not run.
	pkgs map[string]bool
	// dropped says why scoped stages were left out (a missing program).
	dropped []string
	// cover is what the unmutated stages executed (nil: -cover=false);
	// lost runs the cases whose processes are killed, where coverage is
	// lost (coverage.go).
	cover covered
	lost  stage
	// plainCover is what the stages for every mutant executed (not the
	// scoped ones): code beyond it serves a reading or a configuration.
	plainCover covered
	// readingRuns are the corpus under each reading alone (readingStages),
	// each with what it executed: a mutant no other stage executes runs
	// those that execute it, and a survivor those that own its file.
	readingRuns []stage
	// noReadings leaves the reading runs out (-readings=false).
	noReadings  bool
	readingTook time.Duration
	// useCache reuses a baseline's results from the cache
	// (basecache.go); cachedBaseline names the record reused.
	useCache       bool
	cachedBaseline string
}

// stage is one forge-conform run against the reference in bin.
type stage struct {
	name string
	args func(bin string) []string
	// narrow: the stage runs only the cases no earlier stage runs
	// (baseline finds them, into run); otherwise the whole corpus.
	narrow bool
	run    []string
	// pkgs scope the stage to the mutants of these package directories
	// (and those below them), run on globs less skips, whatever -run says;
	// needs names a program it needs on PATH (scopedStages).
	pkgs         []string
	globs, skips []string
	needs        string
	// took is how long the unmutated reference's run took (baseline): a
	// mutant's run of the stage may take stageFactor times that.
	took time.Duration
	// cover is what a reading run executed (readingStages), and owns the
	// files where it executed a statement the stages for every mutant do
	// not (plainCover).
	cover covered
	owns  map[string]bool
}

// stageFactor bounds one stage of a mutant by its unmutated time, at least
// stageFloor, within the mutant's whole limit: a mutant that slows one
// stage down (a directory read one entry at a time) is killed by that
// stage's limit rather than running out the whole mutant's.
const (
	stageFactor = 10
	stageFloor  = time.Minute
)

// allStages are the runs, in order. The whole corpus runs twice: in-process
// (quick) and through FCP/1 as any implementation runs, because the
// reference takes other paths on the real filesystem than under the
// in-process permission emulation (impl/fsys's getdents listing, the
// tools' fast paths), and only a process reaches the protocol server and
// the durability cases.
func allStages() []stage {
	return append([]stage{
		{name: "in-process", args: func(string) []string { return []string{"--golden-strict=false"} }},
		{name: "fcp", args: func(bin string) []string {
			args := []string{"--binary", bin + " ref", "--golden-strict=false"}
			for _, c := range complexityCases() {
				args = append(args, "--skip", c)
			}
			return args
		}},
		{name: "policy lp1_missing_file=refuse", narrow: true, args: func(string) []string {
			return []string{"--golden-strict=false", "--policy", "lp1_missing_file=refuse"}
		}},
	}, scopedStages()...)
}

// baseline builds the unmutated forge-conform and runs every stage: each
// must pass, or no mutant's result would mean anything. A narrow stage
// keeps the cases the stages before it skipped and it runs (none: the
// stage is dropped). It returns the time the stages take.
func (h *harness) baseline(ctx context.Context, withCover bool) (time.Duration, error) {
	dir := filepath.Join(h.work, "base")
	if err := os.Mkdir(dir, 0o755); err != nil {
		return 0, err
	}
	bin := filepath.Join(dir, "forge-conform")
	if out, err := h.build(ctx, bin, ""); err != nil {
		return 0, fmt.Errorf("building forge-conform: %v\n%s", err, out)
	}
	// The one pass runs the instrumented build when coverage is asked
	// for, and times each stage: a mutant's run of a stage may take
	// stageFactor times that (the instrumented build is the slower one, so
	// the limits err on the generous side). The plain build warms the
	// cache every mutant's build starts from.
	first, cdir, sdir, mod := bin, "", "", ""
	var env []string
	var err error
	if withCover {
		if mod, err = h.modulePath(ctx); err != nil {
			return 0, err
		}
		first = filepath.Join(dir, "forge-conform-cover")
		if out, err := h.buildCover(ctx, first, mod); err != nil {
			return 0, fmt.Errorf("building forge-conform with -cover: %v\n%s", err, out)
		}
		if cdir, err = coverDir(h.work, "cover"); err != nil {
			return 0, err
		}
		if sdir, err = coverDir(h.work, "cover-scoped"); err != nil {
			return 0, err
		}
		env = []string{"GOCOVERDIR=" + cdir}
		names, err := lostCoverageCases()
		if err != nil {
			return 0, err
		}
		h.lost = stage{name: "cases of killed processes", narrow: true, run: names, args: allStages()[1].args}
	}
	cacheDir, key := "", ""
	if h.useCache {
		if cacheDir = baselineCacheDir(); cacheDir != "" {
			if key, err = h.baselineKey(first); err != nil {
				return 0, fmt.Errorf("naming the baseline for its cache (or run with -baseline-cache=false): %w", err)
			}
			ok, err := h.loadBaseline(cacheDir, key)
			if err != nil {
				return 0, err
			}
			if ok {
				h.cachedBaseline = filepath.Join(cacheDir, key+".gob")
				return h.stagesTook(), nil
			}
		}
	}
	skipped := map[string]bool{} // cases no stage so far has run
	for i, st := range allStages() {
		if len(st.pkgs) > 0 {
			if !h.scoped(st) {
				continue
			}
			if why := st.missing(); why != "" {
				h.dropped = append(h.dropped, fmt.Sprintf("run %q left out: %s", st.name, why))
				continue
			}
			began := time.Now()
			// Scoped stages write their counters apart: what they alone
			// execute is code of a reading too (readingBaseline).
			scopedEnv := env
			if sdir != "" {
				scopedEnv = []string{"GOCOVERDIR=" + sdir}
			}
			if r := h.runStage(ctx, dir, first, st, 30*time.Minute, scopedEnv...); r.outcome != Survived {
				return 0, fmt.Errorf("the unmutated reference does not pass the %s run (%s: %s): fix that first", st.name, r.outcome, r.detail)
			}
			st.took = time.Since(began)
			h.stages = append(h.stages, st)
			continue
		}
		if st.narrow {
			st.run = []string{}
			for n := range skipped {
				st.run = append(st.run, n)
			}
			sort.Strings(st.run)
			if len(st.run) == 0 {
				continue
			}
		}
		began := time.Now()
		r := h.runStage(ctx, dir, first, st, 30*time.Minute, env...)
		st.took = time.Since(began)
		if r.noneRan {
			// -run chose only cases this run skips: it judges nothing (its
			// skipped cases still go to the narrow runs after it).
			r.outcome = Survived
		}
		if r.outcome != Survived {
			return 0, fmt.Errorf("the unmutated reference does not pass the %s run (%s: %s): fix that first (go run ./cmd/forge-conform %s)",
				st.name, r.outcome, r.detail, strings.Join(st.args("./forge-conform"), " "))
		}
		mine := []string{}
		for _, c := range r.cases {
			switch {
			case c.Status == "skipped" && i == 0:
				skipped[c.Name] = true
			case c.Status != "skipped" && skipped[c.Name]:
				delete(skipped, c.Name)
				mine = append(mine, c.Name)
			}
		}
		if st.narrow {
			if len(mine) == 0 {
				continue
			}
			st.run = mine
		}
		if r.noneRan {
			continue
		}
		h.stages = append(h.stages, st)
	}
	if withCover {
		if h.plainCover, err = h.readCoverage(ctx, mod, cdir); err != nil {
			return 0, err
		}
		if h.cover, err = h.readCoverage(ctx, mod, cdir, sdir); err != nil {
			return 0, err
		}
		if h.noReadings {
			h.dropped = append(h.dropped, "the runs under each reading are left out (-readings=false)")
		} else if err := h.readingBaseline(ctx, dir, first, mod); err != nil {
			return 0, err
		}
	} else {
		h.dropped = append(h.dropped, "the runs under each reading are left out: coverage picks them (-cover=false)")
	}
	if key != "" {
		if err := h.saveBaseline(cacheDir, key, h.dropped); err != nil {
			h.dropped = append(h.dropped, fmt.Sprintf("the baseline was not cached (%v): the next run runs it again", err))
		}
	}
	return h.stagesTook(), nil
}

// stagesTook is the time the unmutated stages took together.
func (h *harness) stagesTook() time.Duration {
	var total time.Duration
	for _, st := range h.stages {
		total += st.took
	}
	return total
}

// build builds ./cmd/forge-conform into bin, with overlay when not "".
func (h *harness) build(ctx context.Context, bin, overlay string) ([]byte, error) {
	// -ldflags=-w: no DWARF, a quicker link (the base build warms the
	// cache with the same flags).
	args := []string{"build", "-ldflags=-w"}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	args = append(args, "-o", bin, "./cmd/forge-conform")
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = h.root
	return cmd.CombinedOutput()
}

// mutant builds and runs one mutant in a directory of its own, removed
// afterwards (but for the mutated file and overlay, with -keep).
func (h *harness) mutant(ctx context.Context, id int, p *mutation.Package, s mutation.Site, limit time.Duration) result {
	start := time.Now()
	r := h.mutantRuns(ctx, id, p, s, limit)
	r.took = time.Since(start)
	return r
}

func (h *harness) mutantRuns(ctx context.Context, id int, p *mutation.Package, s mutation.Site, limit time.Duration) result {
	dir := filepath.Join(h.work, fmt.Sprintf("m%04d", id))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return result{outcome: Harness, detail: err.Error()}
	}
	bin := filepath.Join(dir, "forge-conform")
	defer os.Remove(bin)
	f := p.Files[s.File]
	mutated := filepath.Join(dir, filepath.Base(f.Abs))
	if err := os.WriteFile(mutated, s.Apply(f.Src), 0o644); err != nil {
		return result{outcome: Harness, detail: err.Error()}
	}
	overlay := filepath.Join(dir, "overlay.json")
	raw, _ := json.Marshal(map[string]map[string]string{"Replace": {f.Abs: mutated}})
	if err := os.WriteFile(overlay, raw, 0o644); err != nil {
		return result{outcome: Harness, detail: err.Error()}
	}
	if out, err := h.build(ctx, bin, overlay); err != nil {
		if ctx.Err() != nil {
			return result{outcome: Harness, detail: "stopped"}
		}
		return result{outcome: NotBuilt, detail: firstLine(string(out))}
	}
	deadline := time.Now().Add(limit)
	if h.cover.uncovered(&f, s) {
		// Only a reading's run, or a process killed, may reach it.
		reached := false
		for _, st := range h.readingRuns {
			if hit, _ := st.cover.reaches(s.File, f.Src, s.Start); !hit {
				continue
			}
			reached = true
			if r := h.runStage(ctx, dir, bin, st, min(time.Until(deadline), max(stageFactor*st.took, stageFloor))); r.outcome != Survived {
				return r
			}
		}
		r := h.runStage(ctx, dir, bin, h.lost, min(time.Until(deadline), stageFloor))
		if r.outcome == Survived && !reached {
			r.uncovered = true
		}
		return r
	}
	for _, st := range h.stages {
		if !st.judges(p.Rel) {
			continue
		}
		r := h.runStage(ctx, dir, bin, st, min(time.Until(deadline), max(stageFactor*st.took, stageFloor)))
		if r.outcome != Survived {
			return r
		}
	}
	// A file holding code a reading executes and the runs for every
	// mutant do not behaves by that reading's options, also on lines
	// those runs execute (a condition that reads an option): its mutants
	// face that reading's run, alone (a scoped stage may take it with
	// another reading that hides its effect).
	for _, st := range h.readingRuns {
		if !st.owns[s.File] {
			continue
		}
		if r := h.runStage(ctx, dir, bin, st, min(time.Until(deadline), max(stageFactor*st.took, stageFloor))); r.outcome != Survived {
			return r
		}
	}
	return result{outcome: Survived}
}

// runStage runs forge-conform (bin) once, in its own process group, which
// a timeout or a stop ends: SIGTERM first, so that forge-conform removes
// its processes and temp dirs as on ctrl+c, then SIGKILL to the group.
func (h *harness) runStage(ctx context.Context, dir, bin string, st stage, limit time.Duration, env ...string) result {
	rep := filepath.Join(dir, "report.json")
	defer os.Remove(rep)
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	// --failfast: one failed case kills the mutant, so a killed mutant
	// costs its first failure rather than the whole corpus.
	args := append(st.args(bin), "--failfast", "--report-json", rep)
	if st.narrow {
		for _, name := range st.run {
			args = append(args, "--run", globQuote(name))
		}
	} else if len(st.globs) > 0 {
		for _, g := range st.globs {
			args = append(args, "--run", g)
		}
		for _, g := range st.skips {
			args = append(args, "--skip", g)
		}
	} else {
		for _, g := range h.runGlobs {
			args = append(args, "--run", g)
		}
	}
	// Every process of the run gets an address-space limit: a mutant
	// that allocates without end (a loop that no longer advances) dies of
	// it, killed, before it takes the machine's memory.
	cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", `ulimit -v ` + memLimitKiB + ` && exec "$0" "$@"`, bin}, args...)...)
	cmd.Dir = dir
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = nil, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	switch {
	case ctx.Err() != nil && errors.Is(context.Cause(ctx), context.DeadlineExceeded):
		return result{outcome: Killed, detail: st.name + ": timed out after " + limit.Round(time.Second).String()}
	case ctx.Err() != nil:
		return result{outcome: Harness, detail: "stopped"}
	case err == nil:
		res := result{outcome: Survived}
		res.cases, _, _ = readReport(rep)
		return res
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return result{outcome: Harness, detail: st.name + ": " + err.Error()}
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return result{outcome: Killed, detail: st.name + ": forge-conform died of " + ws.Signal().String()}
	}
	cases, failed, stopped := readReport(rep)
	errText := stderr.String()
	switch {
	case ee.ExitCode() == 1 && failed == "" && stopped == "" && allSkipped(cases):
		// forge-conform fails a run in which no case ran: for a mutant,
		// cases the unmutated run ran are skipped now (killed); the
		// baseline drops such a run.
		return result{outcome: Killed, detail: st.name + ": every case was skipped", cases: cases, noneRan: true}
	case ee.ExitCode() == 1:
		return result{outcome: Killed, detail: st.name + ": " + failed}
	case stopped != "":
		return result{outcome: Killed, detail: st.name + ": the implementation cannot answer: " + firstLine(stopped)}
	case crashLine(errText) != "":
		return result{outcome: Killed, detail: st.name + ": crashed: " + crashLine(errText)}
	}
	return result{outcome: Harness, detail: fmt.Sprintf("%s: exit %d: %s", st.name, ee.ExitCode(), firstLine(errText))}
}

// memLimitKiB is the address space (ulimit -v, KiB) of each process of a
// run: 8 GiB, several times what the reference and its Go runtime reserve.
const memLimitKiB = "8388608"

// reportCase is a case of a forge-conform JSON report.
type reportCase struct{ Name, Status string }

// readReport returns the cases of a JSON report, the first failed or
// errored one and the cause of a stopped run.
func readReport(path string) (cases []reportCase, failed, stopped string) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, "", ""
	}
	var rep struct {
		Cases   []reportCase
		Stopped *struct{ Cause string }
	}
	if json.Unmarshal(raw, &rep) != nil {
		return nil, "", ""
	}
	if rep.Stopped != nil {
		stopped = rep.Stopped.Cause
	}
	n := 0
	for _, c := range rep.Cases {
		if c.Status == "failed" || c.Status == "errored" {
			if failed == "" {
				failed = c.Status + " " + c.Name
			}
			n++
		}
	}
	if n > 1 {
		failed += fmt.Sprintf(" and %d more", n-1)
	}
	return rep.Cases, failed, stopped
}

// allSkipped reports whether a run's report holds only skipped cases.
func allSkipped(cases []reportCase) bool {
	for _, c := range cases {
		if c.Status != "skipped" {
			return false
		}
	}
	return true
}

// globQuote escapes the glob characters of a case name for --run.
func globQuote(name string) string {
	var b strings.Builder
	for _, r := range name {
		if strings.ContainsRune(`*?[]\{}`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// crashLine is the line of a Go crash in a process's stderr, or "".
func crashLine(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "panic:") || strings.HasPrefix(l, "fatal error:") {
			return firstLine(l)
		}
	}
	return ""
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	line, _, _ := strings.Cut(s, "\n")
	if len(line) > 200 {
		line = line[:200] + "..."
	}
	return line
}
