package runner_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/forge-conform/forge-conform/conformance/cases"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/fcpclient"
	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/fixtures"
	"github.com/forge-conform/forge-conform/golden"
	"github.com/forge-conform/forge-conform/impl/inproc"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/spec"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// The benchmarks run the whole corpus through the runner: in-process, and
// through FCP/1 against forge-ref (cmd/forge-ref, the reference alone, as
// README builds it) in session and one-shot mode.
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

// buildRef builds forge-ref into a temp dir, as README builds it
// (CGO_ENABLED=0), and returns its path.
func buildRef(b testing.TB) string {
	b.Helper()
	dir := b.TempDir()
	bin := filepath.Join(dir, "forge-ref")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/forge-conform/forge-conform/cmd/forge-ref")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("building forge-ref: %v", err)
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
	opts := benchOptions(b)
	t, err := inproc.New(reference.Options{})
	if err != nil {
		b.Fatal(err)
	}
	opts.Target = t
	benchRun(b, opts)
}

func BenchmarkCorpusSession(b *testing.B) {
	opts := benchOptions(b)
	opts.Binary = []string{buildRef(b)}
	opts.Mode = runner.ModeSession
	benchRun(b, opts)
}

func BenchmarkCorpusSessionParallel(b *testing.B) {
	opts := benchOptions(b)
	opts.Binary = []string{buildRef(b)}
	opts.Mode = runner.ModeSession
	opts.Jobs = 2
	benchRun(b, opts)
}

func BenchmarkCorpusOneShot(b *testing.B) {
	opts := benchOptions(b)
	opts.Binary = []string{buildRef(b)}
	opts.Mode = runner.ModeOneShot
	benchRun(b, opts)
}

// BenchmarkDurableCase runs each durability case (PROTOCOL.md §10) through
// FCP/1 on forge-ref: the turn, its crash (a crash point or the
// runner's kill of the process tree), and every recover step in a fresh
// process. ms/case is the runner's time per case, restarts included.
func BenchmarkDurableCase(b *testing.B) {
	opts := benchOptions(b)
	opts.Binary = []string{buildRef(b)}
	ctx := context.Background()
	r, err := runner.New(ctx, opts)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	for _, c := range opts.Corpus.Cases {
		if !c.Durable() {
			continue
		}
		b.Run(c.Name, func(b *testing.B) {
			before := cpuTime()
			for i := 0; i < b.N; i++ {
				if res := r.RunCase(ctx, c); res.Status != runner.Passed {
					b.Fatalf("%s: %s %s", c.Name, res.Status, res.Message)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/case")
			// CPU time of the runner and of the processes it reaped (the
			// crashed implementations and what they reaped; a phase's
			// process that ends normally goes back to the pool and counts
			// only when reaped): a lower bound of a case's cost that does
			// not depend on the machine's load.
			b.ReportMetric(float64((cpuTime()-before).Microseconds())/1000/float64(b.N), "cpu-ms/case")
			b.ReportMetric(float64(1+len(c.Turn.Recover)), "processes")
		})
	}
}

// cpuTime is the user and system time of this process and its reaped
// children.
func cpuTime() time.Duration {
	var self, kids syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime)
}

// BenchmarkFreshProcess is the part of a durability case each process
// costs: start forge-ref, hello with test_tools, close.
func BenchmarkFreshProcess(b *testing.B) {
	bin := buildRef(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := fcpclient.Start(ctx, fcpclient.Options{Command: []string{bin}})
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := s.Do(ctx, fcp.Request{Op: fcp.OpHello, TestTools: true}); err != nil {
			b.Fatal(err)
		}
		s.KillTree()
		_ = s.Close()
	}
}
