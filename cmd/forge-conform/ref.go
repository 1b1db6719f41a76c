package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/forge-conform/forge-conform/impl/fcpserver"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/impl/tools/listdir"
)

// mutants are deliberately broken references, one defect each: the suite
// must fail every one of them, naming the right requirement.
var mutantDefects = map[string]listdir.Defects{
	"follow-symlinks":        {FollowSymlinks: true},
	"breadth-first":          {BreadthFirst: true},
	"wrong-truncated-reason": {WrongTruncatedReason: true},
	"html-escaping":          {HTMLEscape: true},
	"budget-off-by-one":      {BudgetOffByOne: true},
	"traverse-hidden":        {TraverseHidden: true},
}

// MutantNames lists the mutants, sorted.
func mutantNames() []string {
	out := make([]string, 0, len(mutantDefects))
	for n := range mutantDefects {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func mutant(name string) (listdir.Defects, error) {
	d, ok := mutantDefects[name]
	if !ok {
		return d, fmt.Errorf("unknown mutant %q (want one of %s)", name, strings.Join(mutantNames(), ", "))
	}
	return d, nil
}

// cmdRef serves the reference implementation over FCP/1 on stdin/stdout.
func cmdRef(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) (int, error) {
	fs := newFlagSet("ref")
	name := fs.String("mutant", "", "serve a deliberately broken reference")
	if err := parse(fs, args); err != nil {
		return exitHarness, err
	}
	var opts reference.Options
	if *name != "" {
		d, err := mutant(*name)
		if err != nil {
			return exitHarness, usageError{err.Error()}
		}
		opts.ListDirDefects = d
	}
	ref, err := reference.New(opts)
	if err != nil {
		return exitHarness, err
	}
	if err := fcpserver.Serve(ctx, stdin, stdout, ref); err != nil {
		return exitHarness, err
	}
	return exitOK, nil
}
