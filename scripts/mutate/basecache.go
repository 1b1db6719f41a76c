//go:build unix

package main

import (
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The baseline cache: the unmutated runs (coverage.go, run.go's baseline)
// take minutes, and their results depend only on the instrumented build,
// the SRDs the runs read, which runs are asked for, and the machine's
// programs and privileges. When all of those are what an earlier baseline
// saw, its results (the stages kept with their cases and times, what each
// run executed) are reused, so a `-key` check starts its first mutant in
// seconds. -baseline-cache=false runs the baseline afresh.

// baselineRecord is what a baseline found, as kept in the cache.
type baselineRecord struct {
	Stages      []stageRecord
	Dropped     []string
	Cover       covered
	PlainCover  covered
	Readings    []stageRecord
	ReadingTook time.Duration
}

// stageRecord is one kept run: its name, the cases a narrow run keeps,
// its unmutated time and (a reading's run) what it executed.
type stageRecord struct {
	Name  string
	Run   []string
	Took  time.Duration
	Cover covered
}

// baselineCacheVersion changes when baselineRecord or the key's parts do.
const baselineCacheVersion = "mutate-baseline-2"

// keepBaselines is how many records the cache directory keeps.
const keepBaselines = 4

// baselineKey names the record of a baseline run with the instrumented
// build bin: everything its outcome depends on goes in.
func (h *harness) baselineKey(bin string) (string, error) {
	hash := sha256.New()
	fmt.Fprintln(hash, baselineCacheVersion)
	if err := hashFile(hash, bin); err != nil {
		return "", err
	}
	if dir := os.Getenv("FORGE_CONFORM_SRD_DIR"); dir != "" {
		fmt.Fprintln(hash, "srd", dir)
		if err := hashTree(hash, dir); err != nil {
			return "", fmt.Errorf("hashing the SRDs in %s: %w", dir, err)
		}
	}
	// The runs asked for: the scoped stages of the packages mutated (not
	// the packages: a -key in another package of the same scope hits),
	// -run and -readings.
	for _, st := range allStages() {
		if len(st.pkgs) > 0 && h.scoped(st) {
			p, _ := exec.LookPath(st.needs)
			fmt.Fprintln(hash, "scoped", st.name, "needs", st.needs, p)
		}
	}
	fmt.Fprintln(hash, "run", h.runGlobs, "noReadings", h.noReadings)
	// The runs' definitions live in this program, not in the build: a
	// changed stage or reading run must not reuse the old results.
	for _, st := range append(allStages(), readingStages()...) {
		fmt.Fprintln(hash, "stage", st.name, st.args("BIN"), st.narrow, st.pkgs, st.globs, st.skips, st.needs)
	}
	// What the runs may use of the machine: privileges (root runs
	// implementations as nobody), FUSE, the programs on PATH.
	_, fuse := os.Stat("/dev/fuse")
	fmt.Fprintln(hash, "uid", os.Getuid(), "fuse", fuse == nil, "path", os.Getenv("PATH"))
	return hex.EncodeToString(hash.Sum(nil))[:32], nil
}

func hashFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// hashTree hashes every regular file under dir, by name and content.
func hashTree(w io.Writer, dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		fmt.Fprintln(w, "file", rel)
		return hashFile(w, path)
	})
}

// baselineCacheDir is where records are kept (the user's cache
// directory), or "" when there is none.
func baselineCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "forge-conform", "mutate-baseline")
}

// loadBaseline applies the record named key, if the cache holds one; it
// reports whether it did.
func (h *harness) loadBaseline(dir, key string) (bool, error) {
	f, err := os.Open(filepath.Join(dir, key+".gob"))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	var rec baselineRecord
	if err := gob.NewDecoder(f).Decode(&rec); err != nil {
		return false, fmt.Errorf("reading the cached baseline %s (remove it, or run with -baseline-cache=false): %w", f.Name(), err)
	}
	byName := func(sts []stage) map[string]stage {
		m := map[string]stage{}
		for _, st := range sts {
			m[st.name] = st
		}
		return m
	}
	stages, readings := byName(allStages()), byName(readingStages())
	var kept, runs []stage
	for _, r := range rec.Stages {
		st, ok := stages[r.Name]
		if !ok {
			return false, nil // a record of other runs: run afresh
		}
		st.run, st.took = r.Run, r.Took
		kept = append(kept, st)
	}
	for _, r := range rec.Readings {
		st, ok := readings[r.Name]
		if !ok {
			return false, nil
		}
		st.took, st.cover = r.Took, r.Cover
		st.owns = st.cover.beyond(rec.PlainCover)
		runs = append(runs, st)
	}
	h.stages, h.readingRuns = append(h.stages, kept...), append(h.readingRuns, runs...)
	h.dropped = append(h.dropped, rec.Dropped...)
	h.cover, h.plainCover, h.readingTook = rec.Cover, rec.PlainCover, rec.ReadingTook
	return true, nil
}

// saveBaseline keeps what the baseline found under key and prunes the
// cache to its newest records. A cache that cannot be written only costs
// the next run its baseline.
func (h *harness) saveBaseline(dir, key string, dropped []string) error {
	rec := baselineRecord{Dropped: dropped, Cover: h.cover, PlainCover: h.plainCover, ReadingTook: h.readingTook}
	for _, st := range h.stages {
		rec.Stages = append(rec.Stages, stageRecord{Name: st.name, Run: st.run, Took: st.took})
	}
	for _, st := range h.readingRuns {
		rec.Readings = append(rec.Readings, stageRecord{Name: st.name, Took: st.took, Cover: st.cover})
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, key+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := gob.NewEncoder(tmp).Encode(rec); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, key+".gob")); err != nil {
		return err
	}
	return pruneBaselines(dir)
}

// pruneBaselines removes all but the keepBaselines newest records.
func pruneBaselines(dir string) error {
	es, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	type rec struct {
		name string
		mod  time.Time
	}
	var recs []rec
	for _, e := range es {
		if !strings.HasSuffix(e.Name(), ".gob") {
			continue
		}
		if info, err := e.Info(); err == nil {
			recs = append(recs, rec{e.Name(), info.ModTime()})
		}
	}
	slices.SortFunc(recs, func(a, b rec) int { return b.mod.Compare(a.mod) })
	var errs []error
	for _, r := range recs[min(keepBaselines, len(recs)):] {
		errs = append(errs, os.Remove(filepath.Join(dir, r.name)))
	}
	return errors.Join(errs...)
}
