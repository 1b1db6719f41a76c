//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/tools/cover"

	"github.com/forge-conform/forge-conform/conformance/cases"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/internal/mutation"
)

// Coverage: the unmutated reference's first pass over the stages runs a
// build instrumented with -cover, so that mutate knows which statements
// of impl/ some case executes. A mutant inside statements that none
// executes cannot change what any case sees, except through a process the
// runner kills: a SIGKILLed process writes no counters (the crashes of the
// durability cases, the implementations killed from outside). So such a
// mutant runs only the cases of killed processes (lostCoverageCases); if
// it survives them it is reported as not covered: no case reaches its
// line, the surest sign of a hole or of dead code.

// covered holds the blocks of one coverage profile by module-relative
// file name.
type covered map[string][]cover.ProfileBlock

// reaches reports whether a statement some case executed holds offset
// off of src, and whether any instrumented block holds it at all (a
// package-level declaration is in none: nothing is known of it).
func (c covered) reaches(file string, src []byte, off int) (hit, known bool) {
	line := 1 + strings.Count(string(src[:off]), "\n")
	col := 1 + off - (strings.LastIndexByte(string(src[:off]), '\n') + 1)
	for _, b := range c[file] {
		after := line > b.StartLine || line == b.StartLine && col >= b.StartCol
		before := line < b.EndLine || line == b.EndLine && col <= b.EndCol
		if after && before {
			known = true
			if b.Count > 0 {
				return true, true
			}
		}
	}
	return false, known
}

// uncovered reports whether no case executes the site s of file f.
func (c covered) uncovered(f *mutation.File, s mutation.Site) bool {
	if c == nil {
		return false
	}
	hit, known := c.reaches(s.File, f.Src, s.Start)
	return known && !hit
}

// buildCover builds ./cmd/forge-conform instrumented for coverage of
// module m's impl/ (and the command itself: the coverage runtime writes
// counters at exit only when the main package is instrumented).
func (h *harness) buildCover(ctx context.Context, bin, m string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", "build", "-ldflags=-w", "-cover", "-coverpkg="+m+"/impl/...,"+m+"/cmd/forge-conform",
		"-o", bin, "./cmd/forge-conform")
	cmd.Dir = h.root
	return cmd.CombinedOutput()
}

// readCoverage merges the counters in dirs into one profile, its files
// named relative to the module mod.
func (h *harness) readCoverage(ctx context.Context, mod string, dirs ...string) (covered, error) {
	// A directory no process wrote to (no scoped stage ran) is left out:
	// covdata wants counters in each.
	dirs = slices.DeleteFunc(slices.Clone(dirs), func(d string) bool {
		es, err := os.ReadDir(d)
		return err == nil && len(es) == 0
	})
	if len(dirs) == 0 {
		return covered{}, nil
	}
	prof := dirs[0] + ".txt"
	if len(dirs) > 1 {
		prof = dirs[0] + "-merged.txt"
	}
	cmd := exec.CommandContext(ctx, "go", "tool", "covdata", "textfmt", "-i="+strings.Join(dirs, ","), "-o="+prof)
	cmd.Dir = h.root
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go tool covdata textfmt: %v\n%s", err, out)
	}
	ps, err := cover.ParseProfiles(prof)
	if err != nil {
		return nil, fmt.Errorf("reading the coverage profile: %w", err)
	}
	prefix := mod + "/"
	c := covered{}
	for _, p := range ps {
		c[strings.TrimPrefix(p.FileName, prefix)] = p.Blocks
	}
	return c, nil
}

// coverDir makes the directory name under work the instrumented processes
// write their counters to: forge-conform runs a --binary as nobody when
// root, and that process writes there too.
func coverDir(work, name string) (string, error) {
	dir := filepath.Join(work, name)
	if err := os.Mkdir(dir, 0o777); err != nil {
		return "", err
	}
	return dir, os.Chmod(dir, 0o777) // past the umask
}

// lostCoverageCases are the cases whose implementation process is killed
// (a crash point, a kill from outside, a process observed and ended): the
// counters of what ran in it before are lost.
func lostCoverageCases() ([]string, error) {
	c, err := corpus.Load(cases.FS)
	if err != nil {
		return nil, fmt.Errorf("loading the corpus: %w", err)
	}
	var out []string
	for _, k := range c.Cases {
		if k.Durable() || k.Observed() {
			out = append(out, k.FullName())
		}
	}
	return out, nil
}

// modulePath is the path of the main module.
func (h *harness) modulePath(ctx context.Context) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-m")
	cmd.Dir = h.root
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list -m: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// beyond returns the files where c executed a statement that other
// holds but never executed: code c's run reaches and other's do not. Both profiles come
// from one build, so a block is the same span in each.
func (c covered) beyond(other covered) map[string]bool {
	out := map[string]bool{}
	for file, blocks := range c {
		unrun := map[[4]int]bool{}
		for _, b := range other[file] {
			if b.Count == 0 {
				unrun[[4]int{b.StartLine, b.StartCol, b.EndLine, b.EndCol}] = true
			}
		}
		for _, b := range blocks {
			if b.Count > 0 && unrun[[4]int{b.StartLine, b.StartCol, b.EndLine, b.EndCol}] {
				out[file] = true
				break
			}
		}
	}
	return out
}

// readingBaseline runs the corpus under each reading alone with the
// instrumented reference first (two at a time), keeping with each run what
// it executed, into h.readingRuns. Each must pass, as every stage must.
func (h *harness) readingBaseline(ctx context.Context, dir, first, mod string) error {
	runs := readingStages()
	began := time.Now()
	defer func() { h.readingTook = time.Since(began) }()
	errs := make([]error, len(runs))
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			st := &runs[i]
			cdir, err := coverDir(h.work, fmt.Sprintf("cover-reading-%02d", i))
			if err != nil {
				errs[i] = err
				return
			}
			sub := filepath.Join(dir, fmt.Sprintf("reading-%02d", i))
			if err := os.Mkdir(sub, 0o755); err != nil {
				errs[i] = err
				return
			}
			began := time.Now()
			if r := h.runStage(ctx, sub, first, *st, 30*time.Minute, "GOCOVERDIR="+cdir); r.outcome != Survived {
				errs[i] = fmt.Errorf("the unmutated reference does not pass the %s run (%s: %s): fix that first (go run ./cmd/forge-conform %s)",
					st.name, r.outcome, r.detail, strings.Join(st.args("./forge-conform"), " "))
				return
			}
			st.took = time.Since(began)
			st.cover, errs[i] = h.readCoverage(ctx, mod, cdir)
			st.owns = st.cover.beyond(h.plainCover)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	h.readingRuns = runs
	return nil
}
