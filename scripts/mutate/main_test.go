//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/internal/mutation"
)

// TestEndToEnd mutates one site of a small package through the real build
// and corpus path, narrowed to a few cases (-run) so that it costs seconds:
// the mutant is killed or survives (not a harness error), the report says
// so, and the work directory is gone afterwards.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds forge-conform twice")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: the mutants are built with go build")
	}
	dir := t.TempDir()
	verdicts := filepath.Join(dir, "verdicts.txt")
	if err := os.WriteFile(verdicts, []byte("# none\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A temp dir of the test's own, so another mutate run on the machine
	// does not look like a work directory left behind. forge-conform runs
	// the --binary as nobody when root: nobody must reach the binaries.
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("TMPDIR", tmp)
	cache := filepath.Join(dir, "cache")
	t.Setenv("XDG_CACHE_HOME", cache)
	out := filepath.Join(dir, "report.json")
	args := []string{"-pkg", "^impl/executor/truncate$", "-n", "1", "-seed", "3",
		"-run", "tool_executor/turn-output-truncate*", "-readings=false", "-budget", "0", "-verdicts", verdicts, "-json", out, "-v"}
	once := func() (int, *bytes.Buffer, *bytes.Buffer, Report, []byte) {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, &stdout, &stderr)
		if code != exitOK && code != exitLow {
			t.Fatalf("exit %d, want 0 or 1\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
		}
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var rep Report
		if err := json.Unmarshal(raw, &rep); err != nil {
			t.Fatal(err)
		}
		return code, &stdout, &stderr, rep, raw
	}
	code, stdout, stderr, rep, raw := once()
	if strings.Contains(stderr.String(), "cached in") {
		t.Errorf("the first run says its baseline came from an empty cache:\n%s", stderr.String())
	}
	// The second run reuses the first's baseline (the same build, SRDs,
	// runs and machine) and judges the mutant alike.
	code2, _, stderr2, rep2, _ := once()
	if !strings.Contains(stderr2.String(), "cached in "+cache) {
		t.Errorf("the second run did not reuse the cached baseline:\n%s", stderr2.String())
	}
	if code2 != code || len(rep2.Mutants) != 1 || len(rep.Mutants) == 1 && rep2.Mutants[0].Outcome != rep.Mutants[0].Outcome {
		t.Errorf("with the cached baseline: exit %d, %+v; without: exit %d, %+v", code2, rep2.Mutants, code, rep.Mutants)
	}
	if len(rep.Mutants) != 1 || len(rep.Packages) != 1 || rep.Packages[0].Path != "impl/executor/truncate" {
		t.Fatalf("report: %s", raw)
	}
	m := rep.Mutants[0]
	if m.Outcome != Killed && m.Outcome != Survived {
		t.Errorf("mutant %s: %s (%s), want killed or survived", m.Key, m.Outcome, m.Detail)
	}
	if (code == exitLow) != (m.Outcome == Survived) {
		t.Errorf("exit %d with the only mutant %s", code, m.Outcome)
	}
	if !strings.Contains(stdout.String(), "impl/executor/truncate") {
		t.Errorf("the text report names no package:\n%s", stdout.String())
	}
	if rep.Judged.Sites == 0 || !strings.Contains(stdout.String(), "verdicts judge 0 of the") {
		t.Errorf("the report does not count the sites judged in advance (none, with an empty verdicts file): %+v\n%s", rep.Judged, stdout.String())
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "forge-mutate-*")); len(left) > 0 {
		t.Errorf("work directory left behind: %s", left)
	}
}

// TestVerdictWithoutReason: a verdicts line without a reason stops the run
// before anything is built (exit 2, naming the line).
func TestVerdictWithoutReason(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: mutate runs go list")
	}
	verdicts := filepath.Join(t.TempDir(), "verdicts.txt")
	line := `impl/executor/truncate/truncate.go: Output: cond-boundary "<=" -> "<" #1  equivalent` + "\n"
	if err := os.WriteFile(verdicts, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-pkg", "^impl/executor/truncate$", "-verdicts", verdicts, "-list"}, &stdout, &stderr)
	if code != exitHarness || !strings.Contains(stderr.String(), "verdicts.txt:1: ") || !strings.Contains(stderr.String(), "has no reason") {
		t.Errorf("exit %d, stderr %q: want 2 and the line without a reason", code, stderr.String())
	}
}

// TestListStale: -list prints the sampled keys with their diffs and
// reports a verdict naming no site.
func TestListStale(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: mutate runs go list")
	}
	verdicts := filepath.Join(t.TempDir(), "verdicts.txt")
	line := `impl/executor/truncate/truncate.go: Gone: cond-boundary "<=" -> "<" #1  equivalent  it was` + "\n"
	if err := os.WriteFile(verdicts, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-pkg", "^impl/executor/truncate$", "-n", "3", "-verdicts", verdicts, "-list"}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if n := strings.Count(stdout.String(), "impl/executor/truncate/truncate.go: Output: "); n != 3 {
		t.Errorf("listed %d mutants, want 3:\n%s", n, stdout.String())
	}
	if !strings.Contains(stderr.String(), "verdicts.txt:1: stale verdict") {
		t.Errorf("stale verdict not reported: %q", stderr.String())
	}
}

// TestVerdictsFile: the verdicts (scripts/mutate/verdicts/) parse (every
// line has a class and a reason) and name only mutants that exist.
func TestVerdictsFile(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: the packages are loaded with go list")
	}
	verdicts, err := mutation.ReadVerdicts("verdicts")
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, p := range Packages {
		patterns = append(patterns, "./"+p)
	}
	pkgs, err := mutation.Load(root, patterns, SkipFiles)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range staleVerdicts(pkgs, verdicts) {
		t.Errorf("%s: no such mutant (the code changed: judge the new mutant or remove the line): %s", v.Pos(), v.Key)
	}
}

// TestJudgedSample: -judged samples only the sites a verdict judges in
// advance, by its own line or by a pattern.
func TestJudgedSample(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: mutate runs go list")
	}
	verdicts := filepath.Join(t.TempDir(), "verdicts.txt")
	lines := `impl/executor/truncate/truncate.go: Output: cond-boundary "<=" -> "<" #1  equivalent  a line of its own` + "\n" +
		`impl/executor/truncate/truncate.go: Output: incdec * #*  srd-free  a pattern` + "\n"
	if err := os.WriteFile(verdicts, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-pkg", "^impl/executor/truncate$", "-verdicts", verdicts, "-judged", "-n", "0", "-list"}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var keys []string
	for _, l := range strings.Split(stdout.String(), "\n") {
		if strings.HasPrefix(l, "impl/") {
			keys = append(keys, l)
		}
	}
	if len(keys) < 2 || !slices.Contains(keys, `impl/executor/truncate/truncate.go: Output: cond-boundary "<=" -> "<" #1`) {
		t.Fatalf("sampled %q: want the judged line's site and the pattern's", keys)
	}
	for _, k := range keys {
		if !strings.Contains(k, `cond-boundary "<=" -> "<" #1`) && !strings.Contains(k, ": incdec ") {
			t.Errorf("sampled %s, which no verdict judges", k)
		}
	}
}
