//go:build unix

// Command mutate is the project's mutation testing: it mutates the
// reference under impl/ one small change at a time (internal/mutation
// lists the operators), builds forge-conform with the mutant through a
// build overlay, and runs the conformance corpus against it as against any
// other implementation. A mutant the corpus does not fail survives; each
// survivor is killed by a new case or explained in the verdicts file.
//
//	go run ./scripts/mutate [-seed N] [-n N] [-pkg REGEXP] [-j N] [-budget D]
//	                        [-timeout D] [-verdicts FILE] [-json FILE] [-min P] [-run GLOB] [-list] [-v]
//	go run ./scripts/mutate -key KEY [-key KEY...]   (those mutants only: is a survivor killed now?)
//	go run ./scripts/mutate -judged [-seed N] [-n N]  (a sample of sites the verdicts judge in advance:
//	                                                   each should survive; a killed one is a verdict to narrow)
//
// A mutant is killed when a run fails a case (exit 1), stops because the
// implementation cannot answer, crashes, or passes its time limit (the
// mutant's -timeout for all its runs, and for each run ten times what the
// unmutated run took, at least a minute); it survives when every run
// passes. The runs, in order, each only when the
// ones before passed:
//
//  1. the corpus in-process, --golden-strict=false: goldens fail only where
//     the SRD fixes the bytes, so a mutant that changes only bytes the SRD
//     leaves free is not killed by the reference's own goldens;
//  2. the corpus through FCP/1 (--binary "BIN ref"), as any implementation
//     is run: on the real filesystem, where the reference takes other paths
//     than under the in-process permission emulation (getdents listings,
//     fast paths), through the protocol server (impl/fcpserver), and with
//     the durability cases (a crash and a recovery need a process);
//  3. the corpus in-process under the other lp1_missing_file policy
//     (refuse), whose cases the default run skips;
//  4. for the mutants of one package only, its cases where the reference
//     takes a path the runs above never reach (scopedStages): write_file
//     under the reading I-WR-03=create-new, codex_list_dir under
//     I-CX-01=ignore-unknown, the corpus under the sandbox's three
//     readings, search_files with the rg and ugrep backends and rg's tree
//     mode (each dropped, said on stderr, when the program is not on
//     PATH), and the complexity cases for the packages on their path;
//  5. for a mutant in statements no run above executes, the corpus under
//     each reading of impl/readings whose run executes them (the code
//     serving a reading the SRD allows runs under it alone); for any other
//     mutant, after the runs above, the run of each reading that executes
//     code in the mutant's file which runs 1-3 do not (a condition reading
//     the reading's option runs under every run, but matters only under
//     it).
//
// Every run has --failfast (a killed mutant costs its first failed case).
// Coverage (coverage.go, -cover, on by default): the unmutated stages run
// first with a build instrumented by -cover, and so does the corpus under
// each reading alone; a mutant in statements no run executes runs only the
// cases whose process is killed (which write no counters) and, surviving
// them, is reported uncovered. What the unmutated runs found is cached
// (basecache.go): a run over the same build, SRDs, runs and machine reuses
// it (-baseline-cache=false: run them again).
//
// Warnings (SHOULD/MAY, advice) do not kill: --strict is off, a missed
// SHOULD is not a failure of the SRD. A mutant that does not compile is
// discarded (the type checker refuses most before sampling; the compiler
// rarely refuses one more: "not built"). A run that exits 2 without the
// implementation being the cause is a harness error, reported apart.
//
// Sampling: -n mutants per package (0: all), seeded and stratified per
// package; a mutant's place depends only on its key and the seed, so the
// same seed over the same source runs the same mutants. -budget stops
// starting mutants after that long (the rest are "not run", listed) so a
// run on a loaded machine still ends. The score of a package is
// killed / (run - explained), explained being survivors with a verdict;
// the command exits 1 when a package is under -min percent, 2 on a usage
// or harness error (the unmutated reference must pass every run first).
//
// The verdicts (default scripts/mutate/verdicts/, a file per package) hold
// one "KEY  equivalent|srd-free  REASON" per line; a line without a reason is
// refused, a line naming no site is reported stale. A key with a wildcard
// is a pattern over one file's sites (mutation.Verdict): it judges a survivor no
// line of its own names, and a killed mutant it matches is reported, since
// the pattern then claims more than holds.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/forge-conform/forge-conform/internal/mutation"
	"github.com/forge-conform/forge-conform/internal/stopsig"
)

// Packages are the packages mutated: the reference and everything it
// runs. Left out, with the reason:
//
//   - impl/mutants: the table of deliberately broken references;
//   - impl/readings: the alternative readings, none taken by these runs;
//   - impl/forgelike: an emulation of another product;
//   - impl/inproc: the adapter of the reference to the runner (harness);
//   - impl/internal/tooltest, impl/tools/fcptest: test helpers and the
//     fcp_* test tools (PROTOCOL.md §9.5), instruments rather than tools;
//   - impl/tui/program: the interactive program of forge-tui, which
//     forge-conform does not link.
var Packages = []string{
	"impl/canonjson", "impl/config", "impl/executor", "impl/executor/policy", "impl/executor/sanitize",
	"impl/executor/truncate", "impl/fcpserver", "impl/fsys", "impl/journal", "impl/lossy", "impl/lp1",
	"impl/reference", "impl/sandbox", "impl/session", "impl/tool", "impl/toolerr",
	"impl/tools/applypatch", "impl/tools/codexlistdir", "impl/tools/listdir", "impl/tools/readfile",
	"impl/tools/runcommand", "impl/tools/searchfiles", "impl/tools/writefile", "impl/tui",
}

// SkipFiles are files of Packages left out: the fault injection (its
// named and its counted faults) and the permission emulation of impl/fsys
// serve the in-process harness (impl/inproc), not the reference.
var SkipFiles = map[string]bool{"impl/fsys/fault.go": true, "impl/fsys/faultwrite.go": true, "impl/fsys/perm.go": true}

// defaultVerdicts holds the verdicts, a file per package.
const defaultVerdicts = "scripts/mutate/verdicts"

// Exit codes.
const (
	exitOK      = 0
	exitLow     = 1
	exitHarness = 2
)

type options struct {
	seed     int64
	n, jobs  int
	pkg      string
	budget   time.Duration
	timeout  time.Duration
	verdicts string
	jsonOut  string
	min      float64
	list     bool
	verbose  bool
	keep     bool
	cover    bool
	readings bool
	judged   bool
	// baselineCache: -baseline-cache.
	baselineCache bool
	run           multi
	keys          multi
}

// multi is a repeatable string flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }

func main() {
	ctx, stop := stopsig.With(context.Background())
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	var sb stopsig.StoppedBy
	if errors.As(context.Cause(ctx), &sb) {
		code = sb.ExitCode()
	}
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o options
	fs := flag.NewFlagSet("mutate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Int64Var(&o.seed, "seed", 1, "seed of the sample")
	fs.IntVar(&o.n, "n", 3, "mutants per package (0: all); 3 fits -budget on 2 cores")
	fs.StringVar(&o.pkg, "pkg", "", "only packages whose directory (impl/...) matches this regexp")
	fs.IntVar(&o.jobs, "j", 2, "mutants at a time")
	fs.DurationVar(&o.budget, "budget", 14*time.Minute, "start no mutant after this long (0: no limit)")
	fs.DurationVar(&o.timeout, "timeout", 0, "time limit of one mutant's runs (0: 10 times the unmutated runs, at least 1m)")
	fs.StringVar(&o.verdicts, "verdicts", defaultVerdicts, "verdicts: a file, or a directory of *.txt files; relative to the module root")
	fs.StringVar(&o.jsonOut, "json", "", "write the report as JSON to this file")
	fs.Float64Var(&o.min, "min", 95, "lowest score (percent) a package may have")
	fs.BoolVar(&o.list, "list", false, "list the sampled mutants (with -n 0: every site) and stop")
	fs.BoolVar(&o.verbose, "v", false, "a line per mutant")
	fs.Var(&o.keys, "key", "run this mutant (a key as the report prints it; repeatable) instead of a sample")
	fs.Var(&o.run, "run", "only the cases matching this forge-conform --run glob (repeatable): a quicker, weaker test")
	fs.BoolVar(&o.cover, "cover", true, "run the unmutated corpus with coverage first; a mutant no case reaches runs only the cases of killed processes")
	fs.BoolVar(&o.readings, "readings", true, "with -cover, run the corpus under each reading too (about 1m40s), so that a mutant in code a reading serves faces that reading's run")
	fs.BoolVar(&o.baselineCache, "baseline-cache", true, "reuse the unmutated runs' results (which cases each run keeps, their times, what they execute) from the user's cache when the instrumented build, the SRDs, the runs asked for and the machine's programs are those of the run that saved them")
	fs.BoolVar(&o.judged, "judged", false, "sample only sites the verdicts file judges in advance (a line or a pattern): each should survive, and a killed one shows a verdict that claims too much")
	fs.BoolVar(&o.keep, "keep", false, "keep the work directory (mutated files and overlays; binaries are removed) and say where")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitHarness
	}
	if fs.NArg() > 0 || o.jobs < 1 || o.n < 0 {
		fmt.Fprintln(stderr, "mutate: usage: mutate [-seed N] [-n N>=0] [-pkg REGEXP] [-j N>=1] [-budget D] [-timeout D] [-verdicts FILE] [-json FILE] [-min P] [-list] [-v]")
		return exitHarness
	}
	if err := mutate(ctx, o, stdout, stderr); err != nil {
		var low lowScore
		if errors.As(err, &low) {
			fmt.Fprintln(stderr, "mutate:", err)
			return exitLow
		}
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "mutate: stopped:", context.Cause(ctx))
			return exitHarness
		}
		fmt.Fprintln(stderr, "mutate:", err)
		return exitHarness
	}
	return exitOK
}

// lowScore is a run whose result fails (exit 1): a package under -min,
// or with -judged a verdict that a killed mutant contradicts.
type lowScore struct{ msg string }

func (l lowScore) Error() string { return l.msg }

// moduleRoot is the directory of the main module's go.mod.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w (is go on PATH?)", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside the forge-conform module: run from its checkout")
	}
	return filepath.Dir(mod), nil
}

// mutant is one sampled site and what became of it.
type mutant struct {
	pkg  *mutation.Package
	site mutation.Site
	res  result
}

func mutate(ctx context.Context, o options, stdout, stderr io.Writer) error {
	start := time.Now()
	root, err := moduleRoot(ctx)
	if err != nil {
		return err
	}
	var re *regexp.Regexp
	if o.pkg != "" {
		if re, err = regexp.Compile(o.pkg); err != nil {
			return fmt.Errorf("-pkg: %w", err)
		}
	}
	var patterns []string
	for _, p := range Packages {
		if re == nil || re.MatchString(p) {
			patterns = append(patterns, "./"+p)
		}
	}
	if len(patterns) == 0 {
		return fmt.Errorf("-pkg %q matches none of %s", o.pkg, strings.Join(Packages, " "))
	}
	pkgs, err := mutation.Load(root, patterns, SkipFiles)
	if err != nil {
		return err
	}
	vpath := o.verdicts
	if !filepath.IsAbs(vpath) {
		vpath = filepath.Join(root, vpath)
	}
	verdicts, err := mutation.ReadVerdicts(vpath)
	if err != nil && (!errors.Is(err, os.ErrNotExist) || o.verdicts != defaultVerdicts) {
		return fmt.Errorf("-verdicts: %w", err)
	}
	stale := staleVerdicts(pkgs, verdicts)

	// The sample: per package, in hash order, the first n mutants the
	// type checker accepts; then interleaved across packages so a budget
	// cut still reaches every package.
	var perPkg [][]*mutant
	if len(o.keys) > 0 {
		ms, err := byKey(pkgs, o.keys)
		if err != nil {
			return err
		}
		perPkg = append(perPkg, ms)
	}
	for _, p := range pkgs {
		if len(o.keys) > 0 {
			break
		}
		n := o.n
		if n == 0 {
			n = len(p.Sites)
		}
		var ms []*mutant
		accept := func(s mutation.Site) bool {
			if o.judged {
				if _, ok := verdicts.Lookup(s.Key()); !ok {
					return false
				}
			}
			return p.Check(s) == nil
		}
		for _, s := range mutation.Sample(p.Sites, o.seed, n, accept) {
			ms = append(ms, &mutant{pkg: p, site: s})
		}
		perPkg = append(perPkg, ms)
	}
	var all []*mutant
	for i := 0; ; i++ {
		added := false
		for _, ms := range perPkg {
			if i < len(ms) {
				all = append(all, ms[i])
				added = true
			}
		}
		if !added {
			break
		}
	}
	if o.list {
		for _, m := range all {
			fmt.Fprintf(stdout, "%s\n\t%s\n", m.site.Key(), m.site.Diff())
		}
		for _, v := range stale {
			fmt.Fprintf(stderr, "mutate: %s: stale verdict: no site %s\n", v.Pos(), v.Key)
		}
		return nil
	}

	work, err := os.MkdirTemp("", "forge-mutate-")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Fprintln(stderr, "mutate: work directory kept:", work)
	} else {
		defer os.RemoveAll(work)
	}
	// forge-conform runs a --binary as nobody when root: the binaries
	// must be reachable.
	if err := os.Chmod(work, 0o755); err != nil {
		return err
	}
	h := &harness{root: root, work: work, runGlobs: o.run, pkgs: map[string]bool{}, noReadings: !o.readings, useCache: o.baselineCache}
	for _, m := range all {
		h.pkgs[m.pkg.Rel] = true
	}
	baseTime, err := h.baseline(ctx, o.cover)
	if err != nil {
		return err
	}
	for _, d := range h.dropped {
		fmt.Fprintln(stderr, "mutate:", d)
	}
	if h.cachedBaseline != "" {
		fmt.Fprintf(stderr, "mutate: the unmutated runs' results are those cached in %s (the same build, SRDs, runs and machine; -baseline-cache=false runs them again)\n", h.cachedBaseline)
	}
	limit := o.timeout
	if limit == 0 {
		limit = max(10*baseTime, time.Minute)
	}
	var runs []string
	for _, st := range h.stages {
		switch {
		case len(st.pkgs) > 0:
			runs = append(runs, fmt.Sprintf("%s (%s only)", st.name, strings.Join(st.pkgs, ", ")))
		case !st.narrow:
			runs = append(runs, st.name)
		default:
			runs = append(runs, fmt.Sprintf("%s (%d cases)", st.name, len(st.run)))
		}
	}
	if len(h.readingRuns) > 0 {
		runs = append(runs, fmt.Sprintf("the corpus under each of %d readings (for a mutant no run above executes, the readings' runs that do; after the runs above, for a mutant in a file with code a reading executes and the runs for every mutant do not, that reading's run; %s to find what each executes)",
			len(h.readingRuns), h.readingTook.Round(100*time.Millisecond)))
	}
	fmt.Fprintf(stderr, "mutate: %d mutants of %d packages (seed %d, -n %d), %d at a time; runs: %s; the unmutated runs took %s, a mutant may take %s\n",
		len(all), len(pkgs), o.seed, o.n, o.jobs, strings.Join(runs, ", "), baseTime.Round(100*time.Millisecond), limit.Round(time.Second))

	// Workers take mutants in order until the budget is spent.
	var (
		mu   sync.Mutex
		next int
		done int
		wg   sync.WaitGroup
	)
	deadline := time.Time{}
	if o.budget > 0 {
		deadline = start.Add(o.budget)
	}
	for w := 0; w < o.jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next == len(all) || ctx.Err() != nil || (!deadline.IsZero() && time.Now().After(deadline)) {
					mu.Unlock()
					return
				}
				m := all[next]
				id := next
				next++
				mu.Unlock()
				res := h.mutant(ctx, id, m.pkg, m.site, limit)
				if ctx.Err() != nil {
					return // a stop cut it short: not run
				}
				m.res = res
				mu.Lock()
				done++
				if o.verbose {
					fmt.Fprintf(stderr, "[%d/%d] %-10s %s (%s)%s\n", done, len(all), m.res.outcome, m.site.Key(),
						m.res.took.Round(100*time.Millisecond), detailSuffix(m.res))
				} else if done%10 == 0 {
					fmt.Fprintf(stderr, "mutate: %d/%d mutants run, %s\n", done, len(all), time.Since(start).Round(time.Second))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	// A stop (ctrl+c) still reports the mutants that ran.
	rep := buildReport(o, pkgs, all, verdicts, stale, time.Since(start))
	writeText(stdout, rep, o)
	if o.jsonOut != "" {
		raw, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(o.jsonOut, append(raw, '\n'), 0o644); err != nil {
			return fmt.Errorf("-json: %w", err)
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if rep.HarnessErrors > 0 {
		return fmt.Errorf("%d mutants met a harness error (listed above): the scores leave them out", rep.HarnessErrors)
	}
	if o.judged {
		var wrong []string
		for _, m := range rep.Mutants {
			if m.Outcome == Killed && m.Verdict != "" {
				wrong = append(wrong, m.VerdictAt)
			}
		}
		if len(wrong) > 0 {
			return lowScore{msg: fmt.Sprintf("%d mutants judged in advance were killed (%s): narrow or remove those verdicts", len(wrong), strings.Join(wrong, ", "))}
		}
		return nil
	}
	var low []string
	for _, p := range rep.Packages {
		if p.Score != nil && *p.Score < o.min {
			low = append(low, fmt.Sprintf("%s %.1f%%", p.Path, *p.Score))
		}
	}
	if len(low) > 0 {
		return lowScore{msg: "under -min: " + strings.Join(low, ", ") + " (kill the survivors with cases, or explain them in the verdicts file)"}
	}
	return nil
}

func detailSuffix(r result) string {
	if r.detail == "" {
		return ""
	}
	return ": " + r.detail
}

// byKey returns the mutants named by keys, or an error naming a key no
// loaded package has.
func byKey(pkgs []*mutation.Package, keys []string) ([]*mutant, error) {
	var out []*mutant
	for _, k := range keys {
		found := false
		for _, p := range pkgs {
			for _, s := range p.Sites {
				if s.Key() == k {
					out = append(out, &mutant{pkg: p, site: s})
					found = true
				}
			}
		}
		if !found {
			return nil, fmt.Errorf("-key %q: no such mutant in %d packages (check -pkg; -list -n 0 lists every key)", k, len(pkgs))
		}
	}
	return out, nil
}

// staleVerdicts are the verdicts of loaded packages that name no site: a
// line whose key is no site's, a pattern that matches none.
func staleVerdicts(pkgs []*mutation.Package, verdicts mutation.Verdicts) []mutation.Verdict {
	loaded := map[string]bool{}
	var keys []string
	for _, p := range pkgs {
		for name := range p.Files {
			loaded[name] = true
		}
		for _, s := range p.Sites {
			keys = append(keys, s.Key())
		}
	}
	var out []mutation.Verdict
	for _, v := range verdicts.All() {
		file, _, _ := strings.Cut(v.Key, ": ")
		if !loaded[file] && !isPackageFile(pkgs, file) {
			continue
		}
		if !slices.ContainsFunc(keys, verdicts.Matcher(v)) {
			out = append(out, v)
		}
	}
	return out
}

// isPackageFile says whether file would belong to a loaded package (a
// file since removed from it).
func isPackageFile(pkgs []*mutation.Package, file string) bool {
	for _, p := range pkgs {
		if filepath.ToSlash(filepath.Dir(file)) == p.Rel {
			return true
		}
	}
	return false
}
