package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/forge-conform/forge-conform/conformance/report"
)

// command says how the checked implementation was started, for the HTML
// and Markdown reports ("" for the built-in reference).
func (f *runFlags) command() string {
	switch {
	case f.binary != "":
		return f.binary
	case f.mutant != "":
		return "built-in reference, mutant " + f.mutant
	}
	return ""
}

// cmdMatrix checks several implementations, each by a full run with the
// same flags, and sets their per-ID verdicts side by side.
func cmdMatrix(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	var f runFlags
	var binaries multi
	fs := newFlagSet("matrix")
	fs.Var(&binaries, "binary", "implementation command (repeatable)")
	f.registerShared(fs)
	if err := parse(fs, args); err != nil {
		return exitHarness, err
	}
	switch {
	case len(binaries) == 0:
		return exitHarness, usageError{"matrix: name each implementation with --binary CMD (the reference is --binary 'forge-conform ref')"}
	case f.mutant != "" || len(f.policies) > 0:
		return exitHarness, usageError{"matrix: --mutant and --policy apply to the built-in reference; use --binary 'forge-conform ref --mutant NAME'"}
	case f.jsonOut != "" || f.junitOut != "":
		return exitHarness, usageError{"matrix: --report-json and --report-junit describe one run; use --report-html or --report-md"}
	}
	var cols []report.Column
	code := exitOK
	for _, b := range binaries {
		fb := f
		fb.binary = b
		run, err := execute(ctx, &fb)
		if err != nil {
			return exitHarness, fmt.Errorf("--binary %s: %w", b, err)
		}
		if ctx.Err() != nil {
			return exitHarness, errors.New("interrupted")
		}
		if f.verbose {
			report.Text(stdout, run, report.TextOptions{Verbose: true})
			fmt.Fprintln(stdout)
		}
		if !run.OK() {
			code = exitFailed
		}
		cols = append(cols, report.Column{Command: b, Run: run})
	}
	m := report.BuildMatrix(cols)
	report.MatrixText(stdout, m)
	if err := writeReport(f.htmlOut, stdout, func(w io.Writer) error { return report.HTML(w, m) }); err != nil {
		return exitHarness, fmt.Errorf("--report-html: %w", err)
	}
	if err := writeReport(f.mdOut, stdout, func(w io.Writer) error { return report.Markdown(w, m) }); err != nil {
		return exitHarness, fmt.Errorf("--report-md: %w", err)
	}
	return code, nil
}
