package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/forge-conform/forge-conform/impl/fcpserver"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/impl/tools/applypatch"
	"github.com/forge-conform/forge-conform/impl/tools/listdir"
	"github.com/forge-conform/forge-conform/impl/tools/readfile"
	"github.com/forge-conform/forge-conform/impl/tools/writefile"
)

// mutants are deliberately broken references, one defect each: the suite
// must fail every one of them, naming the right requirement. The
// list_directory mutants have bare names; the others name their tool.
var mutantDefects = map[string]reference.Defects{
	"follow-symlinks":        {ListDir: listdir.Defects{FollowSymlinks: true}},
	"breadth-first":          {ListDir: listdir.Defects{BreadthFirst: true}},
	"wrong-truncated-reason": {ListDir: listdir.Defects{WrongTruncatedReason: true}},
	"html-escaping":          {ListDir: listdir.Defects{HTMLEscape: true}},
	"budget-off-by-one":      {ListDir: listdir.Defects{BudgetOffByOne: true}},
	"traverse-hidden":        {ListDir: listdir.Defects{TraverseHidden: true}},

	"read-file-sniff-whole-file":      {ReadFile: readfile.Defects{SniffWholeFile: true}},
	"read-file-no-range-end-clamp":    {ReadFile: readfile.Defects{NoRangeEndClamp: true}},
	"read-file-no-cache-record":       {ReadFile: readfile.Defects{NoCacheRecord: true}},
	"read-file-binary-over-budget":    {ReadFile: readfile.Defects{BinaryOverBudget: true}},
	"write-file-overwrite":            {WriteFile: writefile.Defects{Overwrite: true}},
	"write-file-follow-symlink":       {WriteFile: writefile.Defects{FollowSymlink: true}},
	"apply-patch-skip-stale-check":    {ApplyPatch: applypatch.Defects{SkipStaleCheck: true}},
	"apply-patch-non-atomic":          {ApplyPatch: applypatch.Defects{NonAtomic: true}},
	"apply-patch-newline-on-create":   {ApplyPatch: applypatch.Defects{TrailingNewlineOnCreate: true}},
	"apply-patch-occurrence-from-end": {ApplyPatch: applypatch.Defects{OccFromEnd: true}},
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

func mutant(name string) (reference.Defects, error) {
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
		opts.Defects = d
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
