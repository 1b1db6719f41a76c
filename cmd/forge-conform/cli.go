package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/conformance/report"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/internal/refopts"
	"github.com/forge-conform/forge-conform/internal/stopsig"
	"github.com/forge-conform/forge-conform/spec"
	"github.com/forge-conform/forge-conform/spec/quote"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailed  = 1
	exitHarness = 2
)

// usageError is a mistake in the command line: exit 2 with usage help.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := stopsig.With(context.Background())
	defer stop()
	var err error
	code := exitOK
	cmd := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "":
		code, err = cmdRun(ctx, args, stdout, stderr)
	case "list":
		code, err = cmdList(args, stdout)
	case "trace":
		code, err = cmdTrace(ctx, args, stdout, stderr)
	case "matrix":
		code, err = cmdMatrix(ctx, args, stdout, stderr)
	case "golden":
		code, err = cmdGolden(ctx, args, stdout, stderr)
	case "ref":
		code, err = cmdRef(ctx, args, stdin, stdout, stderr)
	case "spec":
		code, err = cmdSpec(args, stdout)
	case "show":
		code, err = cmdShow(args, stdout)
	case "readings":
		code, err = cmdReadings(args, stdout)
	case "help":
		fmt.Fprint(stdout, topUsage)
		return exitOK
	default:
		err = usageError{fmt.Sprintf("unknown command %q", cmd)}
	}
	if errors.Is(err, errHelp) {
		fmt.Fprint(stdout, topUsage)
		return exitOK
	}
	var nothing nothingToRerun
	if errors.As(err, &nothing) {
		fmt.Fprintf(stdout, "forge-conform: %v\n", err)
		return exitOK
	}
	var sb stopsig.StoppedBy
	if errors.As(err, &sb) {
		fmt.Fprintf(stderr, "forge-conform: %v\n", err)
		return sb.ExitCode()
	}
	if err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "forge-conform: %v\n\n%s", err, topUsage)
		} else {
			fmt.Fprintf(stderr, "forge-conform: %v\n", err)
		}
		return exitHarness
	}
	return code
}

const topUsage = `usage:
  forge-conform [run flags]                  check the built-in reference, or --binary CMD
  forge-conform list [--run GLOB]            list cases and the IDs they cover
  forge-conform trace [run flags]            ID -> cases -> status, Ginkgo specs and ID scripts
  forge-conform matrix --binary A --binary B [run flags] [--report-html F] [--report-md F]
                                             several implementations side by side, a row per ID
  forge-conform golden update [--dir DIR] [--affected]  regenerate golden files from the reference (--affected: only of cases
                                             marked for review, resting on a changed --srd sentence, or new)
  forge-conform ref [--mutant NAME] [--policy K=V] [--reading I=NAME]  serve the reference over FCP/1
  forge-conform readings [--forge]           the readings the SRDs allow that the reference can take
  forge-conform ref --tui --case NAME        watch a turn case (or --turn FILE) in the reference TUI (runs forge-tui), approving by hand
  forge-conform spec check --srd FILE        diff a catalog against an SRD's requirement IDs and anchored sentences
  forge-conform spec anchor --srd FILE [--set ID=SEC:N[-M],..] [--write]  fill/refresh a catalog's anchors
  forge-conform spec sentences --srd FILE [--section KEY]  an SRD's sections and numbered sentences
  forge-conform spec diff OLD.md NEW.md      per requirement, its sentence in two revisions of an SRD (word diff)
                                             and what rests on it
  forge-conform spec update --srd FILE       take a revised SRD into its catalog (anchors, version) and mark the
                                             cases resting on changed sentences for review
  forge-conform spec review [--clear CASE|--all]  list or clear review marks (spec/review.jsonl)
  forge-conform show CASE [--requests DIR]   a case: doc, fixture, requests, expectation, golden

run flags:
  --binary CMD          implementation to check (argv; quotes group words); default: built-in reference
  --mode MODE           session (one process per worker) or oneshot (one process per case)
  --run GLOB            only cases whose name or an ID matches (repeatable)
  --skip GLOB           leave out matching cases (repeatable)
  --skip-file FILE      expected failures: "GLOB reason" per line; a listed case that passes fails
  --rerun-failed REPORT only the cases that failed or errored in REPORT (an earlier --report-json file),
                        narrowed further by --run/--skip
  -j N                  parallel workers
  --timeout DURATION    per case (default 10s)
  --failfast            start no case after the first that fails or errors (the rest: skipped, not run)
  --run-as USER         who runs --binary when forge-conform is root (default nobody)
  --config JSON         merged over every case's config, e.g. '{"tools":{"search_files":{"backend":"rg"}}}'
  --spec-dir DIR, --cases-dir DIR, --golden-dir DIR
                        catalogs (a copy of spec/), cases (of conformance/cases/) and goldens (of golden/)
                        to use instead of the embedded ones; also for the spec and golden commands
  --srd-dir DIR         the SRDs: each failure quotes the sentence of its IDs (default $FORGE_CONFORM_SRD_DIR;
                        without, the catalog's summary and where the sentence is)
  --report-json FILE    JSON report ("-" for stdout)
  --report-junit FILE   JUnit XML report
  --report-html FILE    one self-contained HTML page: a row per ID, failing cells open on their diffs
  --report-md FILE      the same table as Markdown
  --strict              warnings (failed SHOULD/MAY requirements and advice checks) fail their case
  --policy KEY=VALUE    policy of the built-in reference (repeatable), e.g. lp1_missing_file=refuse
  --reading I-XX-NN=NAME  a reading the SRD allows, taken by the built-in reference (repeatable)
  --golden-strict       golden differences fail for --binary too (default: only where the SRD fixes
                        the bytes, or when hello names the reference; elsewhere they are notes)
  --golden-strict=false judge the reference (built-in, or a binary whose hello names it) like any other
                        implementation: goldens fail only where the SRD fixes the bytes (a modified reference)
  -v                    list every ID and case
exit status: 0 all passed, 1 failures, 2 usage or harness error
             or an implementation that cannot answer (hello and the first cases error alike: the run stops)
`

// setBool is a boolean flag that remembers whether it was given, so that
// an explicit --flag=false can mean more than the default.
type setBool struct{ val, set bool }

func (b *setBool) String() string   { return strconv.FormatBool(b.val) }
func (b *setBool) IsBoolFlag() bool { return true }
func (b *setBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	b.val, b.set = v, true
	return nil
}

// multi is a repeatable string flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }

type runFlags struct {
	binary, mode, skipFile, runAs, jsonOut, junitOut, mutant, config string
	rerunFailed                                                      string
	htmlOut, mdOut, srdDir                                           string
	run, skip, policies, readings                                    multi
	jobs                                                             int
	timeout                                                          time.Duration
	verbose, strict, failFast                                        bool
	goldenStrict                                                     setBool
	// progress, when set, is told how the run goes (a terminal's line).
	progress func(runner.Progress)
	// warn, when set, is told what the run leaves out and why (one line,
	// without a newline); nil drops the warnings.
	warn func(string)
	// data names directories replacing the embedded data.
	data dataFlags
}

func (f *runFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.binary, "binary", "", "implementation command")
	f.registerShared(fs)
}

// registerShared registers every run flag but --binary (matrix repeats
// it).
func (f *runFlags) registerShared(fs *flag.FlagSet) {
	fs.StringVar(&f.mode, "mode", runner.ModeSession, "session or oneshot")
	fs.Var(&f.run, "run", "case or ID glob to run")
	fs.Var(&f.skip, "skip", "case or ID glob to skip")
	fs.StringVar(&f.skipFile, "skip-file", "", "expected failures file")
	fs.StringVar(&f.rerunFailed, "rerun-failed", "", "JSON report whose failed and errored cases to run again")
	fs.IntVar(&f.jobs, "j", 2, "parallel workers")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Second, "per-case timeout")
	fs.StringVar(&f.runAs, "run-as", "nobody", "user that runs --binary when root")
	fs.StringVar(&f.jsonOut, "report-json", "", "JSON report file")
	fs.StringVar(&f.junitOut, "report-junit", "", "JUnit report file")
	fs.StringVar(&f.htmlOut, "report-html", "", "HTML report file")
	fs.StringVar(&f.mdOut, "report-md", "", "Markdown report file")
	fs.BoolVar(&f.verbose, "v", false, "verbose report")
	fs.StringVar(&f.mutant, "mutant", "", "run a deliberately broken reference (suite self-test)")
	fs.StringVar(&f.config, "config", "", "JSON object merged over every case's config")
	fs.BoolVar(&f.strict, "strict", false, "warnings fail their case")
	fs.BoolVar(&f.failFast, "failfast", false, "start no case after the first failure")
	fs.Var(&f.policies, "policy", "policy of the built-in reference, KEY=VALUE (repeatable)")
	fs.Var(&f.readings, "reading", "reading of the built-in reference, INTERPRETATION=NAME (repeatable; `forge-conform readings` lists them)")
	fs.Var(&f.goldenStrict, "golden-strict", "golden differences always fail (=false: judge the reference like any other implementation)")
	fs.StringVar(&f.srdDir, "srd-dir", "", "directory of the SRDs: failures quote their sentences (default $FORGE_CONFORM_SRD_DIR)")
	f.data.register(fs)
}

func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// errHelp asks for the usage text on stdout and exit 0.
var errHelp = errors.New("help requested")

func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	return nil
}

// data is the embedded corpus, catalogs and fixtures.
type data struct {
	corpus   *corpus.Corpus
	specs    *spec.Set
	fixtures map[string]*fixture.Fixture
	// goldens are the golden files; review the review marks.
	goldens fs.FS
	review  *spec.Review
}

// loadData reads the embedded data (dataFlags.load with no directories).
func loadData() (*data, error) { return (&dataFlags{}).load() }

func (f *runFlags) options(d *data) (runner.Options, error) {
	o := runner.Options{Progress: f.progress, Corpus: d.corpus, Specs: d.specs, Fixtures: d.fixtures, Golden: d.goldens, Review: d.review,
		Mode: f.mode, RunAs: f.runAs, Jobs: f.jobs, Timeout: f.timeout, Config: json.RawMessage(f.config),
		StopAfter: stopAfter}
	if f.binary != "" {
		argv, err := splitCommand(f.binary)
		if err != nil {
			return o, usageError{"--binary: " + err.Error()}
		}
		o.Binary = argv
	}
	if f.mutant != "" && f.binary != "" {
		return o, usageError{"--mutant applies to the built-in reference; drop --binary (or use --binary 'forge-conform ref --mutant NAME')"}
	}
	if len(f.policies) > 0 && f.binary != "" {
		return o, usageError{"--policy applies to the built-in reference; an implementation declares its policies in hello (or use --binary 'forge-conform ref --policy KEY=VALUE')"}
	}
	if len(f.readings) > 0 && f.binary != "" {
		return o, usageError{"--reading applies to the built-in reference; drop --binary (or use --binary 'forge-ref --reading I-XX-NN=NAME')"}
	}
	if f.binary == "" {
		t, err := referenceTarget(refopts.Choices{Mutant: f.mutant, Policies: f.policies, Readings: f.readings})
		if err != nil {
			return o, err
		}
		o.Target = t
	}
	o.Strict, o.GoldenStrict, o.FailFast = f.strict, f.goldenStrict.val, f.failFast
	// --golden-strict=false, said explicitly, judges the reference as any
	// other implementation would be judged.
	o.GoldenAsOther = f.goldenStrict.set && !f.goldenStrict.val
	sel := &runner.Selector{Run: f.run, Skip: f.skip}
	if err := sel.Validate(); err != nil {
		return o, usageError{err.Error()}
	}
	if len(f.run)+len(f.skip) > 0 {
		o.Select = sel
	}
	if f.rerunFailed != "" {
		rerun, err := f.rerunSelector(d, sel)
		if err != nil {
			return o, err
		}
		o.Select = rerun
	}
	if f.skipFile != "" {
		raw, err := os.ReadFile(f.skipFile)
		if err != nil {
			return o, fmt.Errorf("--skip-file: %w", err)
		}
		if o.Expected, err = runner.ParseSkipFile(f.skipFile, raw); err != nil {
			return o, err
		}
		for _, e := range o.Expected {
			if err := checkGlobs(d, []string{e.Glob}); err != nil {
				return o, fmt.Errorf("%s:%d: %w: remove the stale line", f.skipFile, e.Line, err)
			}
		}
	}
	if f.jobs < 1 {
		return o, usageError{"-j must be at least 1"}
	}
	if err := checkGlobs(d, append(append([]string(nil), f.run...), f.skip...)); err != nil {
		return o, err
	}
	return o, nil
}

// rerunSelector selects the cases that failed or errored in the report
// of --rerun-failed and that sel (--run, --skip) selects, by their full
// names. It warns of each name the corpus no longer has.
func (f *runFlags) rerunSelector(d *data, sel *runner.Selector) (*runner.Selector, error) {
	names, warnings, err := rerunCases(f.rerunFailed, d.corpus.Cases)
	if f.warn != nil {
		for _, w := range warnings {
			f.warn(w)
		}
	}
	if err != nil {
		return nil, err
	}
	byName := map[string]*corpus.Case{}
	for _, c := range d.corpus.Cases {
		byName[c.FullName()] = c
	}
	var run []string
	for _, n := range names {
		if sel.Match(byName[n]) {
			run = append(run, n)
		}
	}
	if len(run) == 0 {
		return nil, nothingToRerun{fmt.Sprintf("nothing to rerun: --run/--skip leave out all %d failed or errored case(s) of %s", len(names), f.rerunFailed)}
	}
	return &runner.Selector{Run: run}, nil
}

// checkGlobs rejects a --run/--skip glob that matches no case and no
// catalogued ID: a typo must not silently run nothing.
func checkGlobs(d *data, globs []string) error {
	for _, g := range globs {
		sel := &runner.Selector{Run: []string{g}}
		found := false
		for _, c := range d.corpus.Cases {
			if sel.Match(c) {
				found = true
				break
			}
		}
		if !found {
			return usageError{fmt.Sprintf("glob %q matches no case and no ID of any case (see `forge-conform list`)", g)}
		}
	}
	return nil
}

// stopAfter is how many first cases, all errored with one cause, stop a
// run (runner.Options.StopAfter): a command line that cannot work costs a
// few lines and exit 2, not an error per case.
const stopAfter = 5

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	var f runFlags
	fs := newFlagSet("forge-conform")
	f.register(fs)
	if err := parse(fs, args); err != nil {
		return exitHarness, err
	}
	prog := newProgress(stderr)
	if prog != nil {
		f.progress = prog.update
	}
	f.warn = func(msg string) { fmt.Fprintf(stderr, "forge-conform: warning: %s\n", msg) }
	run, err := execute(ctx, &f)
	prog.clear()
	if err != nil {
		return exitHarness, err
	}
	text := stdout
	if f.jsonOut == "-" || f.junitOut == "-" || f.htmlOut == "-" || f.mdOut == "-" {
		text = stderr // keep stdout machine-readable
	}
	if f.verbose && run.Fixtures != "" {
		fmt.Fprintf(text, "forge-conform: fixtures in %s\n", run.Fixtures)
	}
	report.Text(text, run, report.TextOptions{Verbose: f.verbose})
	if err := writeReports(&f, run, stdout); err != nil {
		return exitHarness, err
	}
	if ctx.Err() != nil {
		return exitHarness, errors.New("interrupted")
	}
	if run.Stopped != nil {
		return exitHarness, nil
	}
	if !run.OK() {
		return exitFailed, nil
	}
	if run.Ran() == 0 {
		fmt.Fprintln(stderr, "forge-conform: no case ran: every selected case was skipped (see the reasons above)")
		return exitFailed, nil
	}
	return exitOK, nil
}

func execute(ctx context.Context, f *runFlags) (*runner.Run, error) {
	d, err := f.data.load()
	if err != nil {
		return nil, err
	}
	opts, err := f.options(d)
	if err != nil {
		return nil, err
	}
	quotes, err := f.quotes(d.specs)
	if err != nil {
		return nil, err
	}
	r, err := runner.New(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	run := r.RunAll(ctx)
	run.Quotes = quotes
	return run, nil
}

// quotes opens the SRDs of --srd-dir (or FORGE_CONFORM_SRD_DIR) for the
// reports to quote; without either, reports show the catalog's summaries.
func (f *runFlags) quotes(set *spec.Set) (*quote.Book, error) {
	dir := f.srdDir
	if dir == "" {
		dir = os.Getenv("FORGE_CONFORM_SRD_DIR")
	}
	var srds fs.FS
	if dir != "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, usageError{fmt.Sprintf("--srd-dir %s: not a directory (name the directory holding the SRDs, e.g. TOOL_EXECUTOR_SRD.md)", dir)}
		}
		srds = os.DirFS(dir)
	}
	return quote.New(set, srds)
}

// writeReport renders into path ("-" for stdout; "" writes nothing).
func writeReport(path string, stdout io.Writer, render func(io.Writer) error) error {
	if path == "" {
		return nil
	}
	if path == "-" {
		return render(stdout)
	}
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := render(file); err != nil {
		file.Close()
		return err
	}
	return file.Close()
}

func writeReports(f *runFlags, run *runner.Run, stdout io.Writer) error {
	write := func(path string, render func(io.Writer) error) error { return writeReport(path, stdout, render) }
	if err := write(f.htmlOut, func(w io.Writer) error { return report.RunHTML(w, run, f.command()) }); err != nil {
		return fmt.Errorf("--report-html: %w", err)
	}
	if err := write(f.mdOut, func(w io.Writer) error { return report.RunMarkdown(w, run, f.command()) }); err != nil {
		return fmt.Errorf("--report-md: %w", err)
	}
	if err := write(f.jsonOut, func(w io.Writer) error { return report.JSON(w, run) }); err != nil {
		return fmt.Errorf("--report-json: %w", err)
	}
	if err := write(f.junitOut, func(w io.Writer) error { return report.JUnit(w, run) }); err != nil {
		return fmt.Errorf("--report-junit: %w", err)
	}
	return nil
}

func cmdList(args []string, stdout io.Writer) (int, error) {
	fs := newFlagSet("list")
	var run multi
	fs.Var(&run, "run", "glob")
	if err := parse(fs, args); err != nil {
		return exitHarness, err
	}
	d, err := loadData()
	if err != nil {
		return exitHarness, err
	}
	sel := &runner.Selector{Run: run}
	if err := sel.Validate(); err != nil {
		return exitHarness, usageError{err.Error()}
	}
	if err := checkGlobs(d, run); err != nil {
		return exitHarness, err
	}
	for _, c := range d.corpus.Cases {
		if !sel.Match(c) {
			continue
		}
		extra := ""
		if len(c.Interpretations) > 0 {
			extra = "  (" + strings.Join(c.Interpretations, ", ") + ")"
		}
		fmt.Fprintf(stdout, "%-58s %s%s\n", c.FullName(), strings.Join(c.IDs, " "), extra)
	}
	return exitOK, nil
}

func cmdTrace(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	var f runFlags
	fs := newFlagSet("trace")
	f.register(fs)
	if err := parse(fs, args); err != nil {
		return exitHarness, err
	}
	run, err := execute(ctx, &f)
	if err != nil {
		return exitHarness, err
	}
	if run.Stopped != nil {
		report.Text(stdout, run, report.TextOptions{})
		return exitHarness, nil
	}
	status := map[string]runner.Status{}
	for _, r := range run.Results {
		status[r.Case.FullName()] = r.Status
	}
	spec := ""
	scripts := idScripts()
	for _, ir := range run.IDs {
		if ir.Spec != spec {
			spec = ir.Spec
			fmt.Fprintf(stdout, "%s\n", spec)
		}
		fmt.Fprintf(stdout, "  %-16s %-7s %-10s %s\n", ir.ID, ir.Level, ir.Status, ir.Summary)
		traceTests(stdout, ir, scripts)
		for _, c := range ir.Cases {
			fmt.Fprintf(stdout, "      %-8s %s\n", status[c], c)
		}
	}
	if !run.OK() {
		return exitFailed, nil
	}
	return exitOK, nil
}
