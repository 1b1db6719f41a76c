package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/forge-conform/forge-conform/conformance/check"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/internal/refopts"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// policyRuns runs the corpus on the reference with its default policies,
// then once more per other value of each policy, so that every policy case
// gets its golden: a case skipped for its policy takes the result of the
// run whose reference declares it.
func policyRuns(ctx context.Context, opts runner.Options) ([]*runner.Result, error) {
	variants := [][]string{nil}
	defaults := reference.DefaultPolicies()
	keys := make([]string, 0, len(fcp.PolicyValues()))
	for k := range fcp.PolicyValues() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range fcp.PolicyValues()[k] {
			if v != defaults[k] {
				variants = append(variants, []string{k + "=" + v})
			}
		}
	}
	var out []*runner.Result
	for _, pol := range variants {
		o := opts
		t, err := referenceTarget(refopts.Choices{Policies: pol})
		if err != nil {
			return nil, err
		}
		o.Target = t
		r, err := runner.New(ctx, o)
		if err != nil {
			return nil, err
		}
		run := r.RunAll(ctx)
		r.Close()
		if out == nil {
			out = run.Results
			continue
		}
		for i, res := range run.Results {
			if prev := out[i]; prev.Status == runner.Skipped && strings.HasPrefix(prev.Message, "implementation-defined:") && res.Status != runner.Skipped {
				out[i] = res
			}
		}
	}
	return out, nil
}

// cmdGolden regenerates golden files from the built-in reference. A golden
// is written only for a case whose hand-written expectation and invariants
// pass: a golden records verified behaviour, never a guess.
func cmdGolden(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) == 0 || args[0] != "update" {
		return exitHarness, usageError{"golden: want `golden update [--dir DIR] [--run GLOB] [--affected [--srd FILE]]`"}
	}
	fset := newFlagSet("golden update")
	dir := fset.String("dir", "golden", "golden directory of the repository")
	var runGlobs, srds multi
	var df dataFlags
	fset.Var(&runGlobs, "run", "glob")
	affected := fset.Bool("affected", false, "only the goldens of affected cases: marked for review (spec review), or naming an ID whose sentence an --srd changed")
	fset.Var(&srds, "srd", "with --affected: a revised SRD; cases naming an ID whose sentence it changed or removed are affected (repeatable)")
	config := fset.String("config", "", "JSON object merged over every case's config (as the run flag)")
	df.register(fset)
	if err := parse(fset, args[1:]); err != nil {
		return exitHarness, err
	}
	if df.goldenDir != "" {
		*dir = df.goldenDir
	}
	if len(srds) > 0 && !*affected {
		return exitHarness, usageError{"golden update: --srd selects affected cases: add --affected"}
	}
	if st, err := os.Stat(*dir); err != nil || !st.IsDir() {
		return exitHarness, fmt.Errorf("golden directory %q not found: run from the repository root or pass --dir", *dir)
	}
	d, err := df.load()
	if err != nil {
		return exitHarness, err
	}
	f := runFlags{jobs: 2, run: runGlobs, config: *config}
	if *affected {
		if d.review, err = df.loadReviewFile(); err != nil {
			return exitHarness, err
		}
		names, err := affectedCases(d, *dir, srds, runGlobs, stdout)
		if err != nil {
			return exitHarness, err
		}
		if len(names) == 0 {
			fmt.Fprintf(stdout, "golden: no affected case (no review mark, no case without a golden%s): nothing to regenerate\n", map[bool]string{true: ", no case resting on a changed ID", false: ""}[len(srds) > 0])
			return exitOK, nil
		}
		f.run = names
	}
	opts, err := f.options(d)
	if err != nil {
		return exitHarness, err
	}
	opts.Golden = nil // regenerate: compare against nothing
	opts.Timeout = 30e9
	results, err := policyRuns(ctx, opts)
	if err != nil {
		return exitHarness, err
	}
	run := &runner.Run{Results: results}
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
	// want names every case of the corpus, selected or not, so a golden
	// file no case owns is stale whatever --run selected.
	stale := 0
	_ = filepath.WalkDir(*dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasSuffix(p, ".golden") && !want[p] {
			stale++
			fmt.Fprintf(stdout, "stale    %s (no case has this name: delete it)\n", p)
		}
		return nil
	})
	fmt.Fprintf(stdout, "golden: %d unchanged, %d changed, %d new, %d stale, %d refused\n", same, changed, added, stale, refused)
	return code, nil
}
