package runner_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/forge-conform/forge-conform/conformance/cases"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/fixtures"
	"github.com/forge-conform/forge-conform/golden"
	"github.com/forge-conform/forge-conform/scripts/gen-fixtures/fixture"
	"github.com/forge-conform/forge-conform/spec"
)

// The benchmarks run the whole corpus through the runner: in-process, and
// through FCP/1 against `forge-conform ref` in session and one-shot mode.
// ns/case is the runner's cost per case including the implementation's
// work; fixtures are materialized once, before the timer starts.

func benchOptions(b *testing.B) runner.Options {
	c, err := corpus.Load(cases.FS)
	if err != nil {
		b.Fatal(err)
	}
	s, err := spec.Load()
	if err != nil {
		b.Fatal(err)
	}
	fx, err := fixture.LoadFS(fixtures.FS)
	if err != nil {
		b.Fatal(err)
	}
	return runner.Options{Corpus: c, Specs: s, Fixtures: fx, Golden: golden.FS, RunAs: "root", Timeout: 30 * time.Second}
}

// buildRef builds forge-conform into a temp dir and returns its path.
func buildRef(b *testing.B) string {
	dir := b.TempDir()
	bin := filepath.Join(dir, "forge-conform")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/forge-conform/forge-conform/cmd/forge-conform")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("building forge-conform: %v", err)
	}
	return bin
}

func benchRun(b *testing.B, opts runner.Options) {
	ctx := context.Background()
	r, err := runner.New(ctx, opts)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	warm := r.RunAll(ctx) // materializes fixtures, starts sessions
	if !warm.OK() {
		b.Fatalf("warm-up run failed: %v", warm.Summary())
	}
	n := len(opts.Corpus.Cases)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run := r.RunAll(ctx)
		if !run.OK() {
			b.Fatalf("run failed: %v", run.Summary())
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/case")
	b.ReportMetric(float64(n), "cases")
}

func BenchmarkCorpusInProcess(b *testing.B) {
	benchRun(b, benchOptions(b))
}

func BenchmarkCorpusSession(b *testing.B) {
	opts := benchOptions(b)
	opts.Binary = []string{buildRef(b), "ref"}
	opts.Mode = runner.ModeSession
	benchRun(b, opts)
}

func BenchmarkCorpusSessionParallel(b *testing.B) {
	opts := benchOptions(b)
	opts.Binary = []string{buildRef(b), "ref"}
	opts.Mode = runner.ModeSession
	opts.Jobs = 2
	benchRun(b, opts)
}

func BenchmarkCorpusOneShot(b *testing.B) {
	opts := benchOptions(b)
	opts.Binary = []string{buildRef(b), "ref"}
	opts.Mode = runner.ModeOneShot
	benchRun(b, opts)
}
