package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/forge-conform/forge-conform/conformance/check"
	"github.com/forge-conform/forge-conform/conformance/runner"
)

// cmdGolden regenerates golden files from the built-in reference. A golden
// is written only for a case whose hand-written expectation and invariants
// pass: a golden records verified behaviour, never a guess.
func cmdGolden(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) == 0 || args[0] != "update" {
		return exitHarness, usageError{"golden: want `golden update [--dir DIR] [--run GLOB]`"}
	}
	fset := newFlagSet("golden update")
	dir := fset.String("dir", "golden", "golden directory of the repository")
	var runGlobs multi
	fset.Var(&runGlobs, "run", "glob")
	if err := parse(fset, args[1:]); err != nil {
		return exitHarness, err
	}
	if st, err := os.Stat(*dir); err != nil || !st.IsDir() {
		return exitHarness, fmt.Errorf("golden directory %q not found: run from the repository root or pass --dir", *dir)
	}
	d, err := loadData()
	if err != nil {
		return exitHarness, err
	}
	f := runFlags{jobs: 2, run: runGlobs}
	opts, err := f.options(d)
	if err != nil {
		return exitHarness, err
	}
	opts.Golden = nil // regenerate: compare against nothing
	opts.Timeout = 30e9
	r, err := runner.New(ctx, opts)
	if err != nil {
		return exitHarness, err
	}
	defer r.Close()
	run := r.RunAll(ctx)
	code := exitOK
	var changed, added, same, refused int
	want := map[string]bool{}
	for _, res := range run.Results {
		name := filepath.Join(*dir, res.Case.Spec, res.Case.Name+".golden")
		want[name] = true
		switch {
		case res.Status == runner.Skipped:
			if res.Message != "not selected by --run/--skip" {
				fmt.Fprintf(stderr, "skipped  %s: %s\n", res.Case.FullName(), res.Message)
			}
			continue
		case res.Status != runner.Passed || res.Golden == nil:
			refused++
			code = exitFailed
			fmt.Fprintf(stderr, "REFUSED  %s: the reference does not meet the case's expectation: %s\n", res.Case.FullName(), res.Message)
			for _, fl := range res.Failures {
				if fl.Diff != "" {
					fmt.Fprintf(stderr, "         %s\n", strings.ReplaceAll(strings.TrimSpace(fl.Diff), "\n", "\n         "))
				}
			}
			continue
		}
		old, err := os.ReadFile(name)
		switch {
		case err == nil && bytes.Equal(old, res.Golden):
			same++
			continue
		case err == nil:
			changed++
			fmt.Fprintf(stdout, "changed  %s\n", name)
			if diffs := check.CompareGolden(res.Case.Tool, old, *res.Response, res.Case.IDs); len(diffs) > 0 {
				fmt.Fprintf(stdout, "         %s\n", strings.ReplaceAll(strings.TrimSpace(diffs[0].Diff), "\n", "\n         "))
			}
		default:
			added++
			fmt.Fprintf(stdout, "new      %s\n", name)
		}
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return exitHarness, err
		}
		if err := os.WriteFile(name, res.Golden, 0o644); err != nil {
			return exitHarness, err
		}
	}
	stale := 0
	if len(runGlobs) == 0 {
		_ = filepath.WalkDir(*dir, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && strings.HasSuffix(p, ".golden") && !want[p] {
				stale++
				fmt.Fprintf(stdout, "stale    %s (no case has this name: delete it)\n", p)
			}
			return nil
		})
	}
	fmt.Fprintf(stdout, "golden: %d unchanged, %d changed, %d new, %d stale, %d refused\n", same, changed, added, stale, refused)
	return code, nil
}
