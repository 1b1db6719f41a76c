package main

import (
	"context"
	"fmt"
	"io"

	"github.com/forge-conform/forge-conform/impl/fcpserver"
	"github.com/forge-conform/forge-conform/impl/inproc"
	"github.com/forge-conform/forge-conform/impl/readings"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/internal/refopts"
)

// referenceTarget is the built-in reference in-process (the default run),
// or the mutant chosen, with the policies and readings chosen (package
// internal/refopts).
func referenceTarget(c refopts.Choices) (*inproc.Target, error) {
	opts, err := refopts.Build(c)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	return inproc.New(opts)
}

// tuiArgs are forge-tui's flags for those of `ref --tui`.
func tuiArgs(mutantName string, policies, readingKeys []string, caseName, turnFile, workdir string) []string {
	var args []string
	add := func(flag, v string) {
		if v != "" {
			args = append(args, "--"+flag, v)
		}
	}
	add("mutant", mutantName)
	for _, p := range policies {
		add("policy", p)
	}
	for _, r := range readingKeys {
		add("reading", r)
	}
	add("case", caseName)
	add("turn", turnFile)
	add("workdir", workdir)
	return args
}

// cmdRef serves the reference implementation over FCP/1 on stdin/stdout,
// or with --tui runs forge-tui (cmd/forge-tui) to show a turn.
func cmdRef(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("ref")
	name := fs.String("mutant", "", "serve a deliberately broken reference")
	var policies multi
	fs.Var(&policies, "policy", "declare and follow a policy, KEY=VALUE (repeatable)")
	var readingKeys multi
	fs.Var(&readingKeys, "reading", "take a reading the SRD allows, INTERPRETATION=NAME (repeatable)")
	withTUI := fs.Bool("tui", false, "run one turn in the reference TUI (forge-tui) instead of serving FCP/1 (needs --case or --turn)")
	turnFile := fs.String("turn", "", "with --tui: a file holding a turn request (PROTOCOL.md §9.1)")
	caseName := fs.String("case", "", "with --tui: a turn case of the corpus")
	workdir := fs.String("workdir", "", "with --tui: the turn's working directory (default: the request's, else a temporary one)")
	if err := parse(fs, args); err != nil {
		return exitHarness, err
	}
	opts, err := refopts.Build(refopts.Choices{Mutant: *name, Policies: policies, Readings: readingKeys})
	if err != nil {
		return exitHarness, usageError{err.Error()}
	}
	if *withTUI {
		return refTUI(tuiArgs(*name, policies, readingKeys, *caseName, *turnFile, *workdir), stdin, stdout, stderr)
	}
	ref, err := reference.New(opts)
	if err != nil {
		return exitHarness, err
	}
	fcpserver.TuneCollector()
	if err := fcpserver.Serve(ctx, stdin, stdout, ref); err != nil {
		return exitHarness, err
	}
	return exitOK, nil
}

// cmdReadings lists the readings the built-in reference can take, grouped
// by interpretation: what `--reading` and `forge-ref --reading` accept.
func cmdReadings(args []string, stdout io.Writer) (int, error) {
	fs := newFlagSet("readings")
	forge := fs.Bool("forge", false, "only the readings Forge's own code takes")
	if err := parse(fs, args); err != nil {
		return exitHarness, err
	}
	rs := readings.All()
	if *forge {
		rs = readings.Forge()
	}
	for _, r := range rs {
		mark := ""
		if r.Forge {
			mark = " (Forge)"
		}
		fmt.Fprintf(stdout, "%-34s %s%s\n", r.Key(), r.Doc, mark)
	}
	return exitOK, nil
}
