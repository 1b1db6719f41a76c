package runner_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/forge-conform/forge-conform/conformance/cases"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/conformance/leftover"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/fixtures"
	"github.com/forge-conform/forge-conform/golden"
	"github.com/forge-conform/forge-conform/impl/inproc"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/internal/scratch"
	"github.com/forge-conform/forge-conform/spec"
)

// refOptions runs the reference in-process on the cases that match sel.
func refOptions(tb testing.TB, sel ...string) runner.Options {
	tb.Helper()
	c, err := corpus.Load(cases.FS)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := spec.Load()
	if err != nil {
		tb.Fatal(err)
	}
	fx, err := fixture.LoadFS(fixtures.FS)
	if err != nil {
		tb.Fatal(err)
	}
	o := runner.Options{Corpus: c, Specs: s, Fixtures: fx, Golden: golden.FS, Timeout: 30 * time.Second}
	if len(sel) > 0 {
		o.Select = &runner.Selector{Run: sel}
	}
	return withReference(tb, o)
}

// withReference returns o with a fresh in-process reference as its
// Target (a runner closes its target).
func withReference(tb testing.TB, o runner.Options) runner.Options {
	tb.Helper()
	t, err := inproc.New(reference.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	o.Target = t
	return o
}

// unsetTMPDIR unsets TMPDIR for the test (restored after it).
func unsetTMPDIR(t *testing.T) {
	t.Setenv("TMPDIR", "")
	os.Unsetenv("TMPDIR")
}

// openTempDir is a temp dir every user can search (t.TempDir's parent is
// 0700: the reference emulates an unprivileged user as root).
func openTempDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "tempdir-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fixture.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestFixtureDir: without TMPDIR the fixtures go to the RAM filesystem
// when there is one, in a directory named and reachable like the runner's
// others; a TMPDIR the user set, and Options.TempDir, are kept.
func TestFixtureDir(t *testing.T) {
	userTmp := openTempDir(t)
	optTmp := openTempDir(t)
	_, haveRAM := scratch.RAM(256 << 20)
	tests := []struct {
		name    string
		tmpdir  string // "-": unset
		opt     string
		wantIn  string
		wantWhy string
	}{
		{name: "TMPDIR set", tmpdir: userTmp, wantIn: userTmp, wantWhy: "(TMPDIR)"},
		{name: "Options.TempDir", tmpdir: "-", opt: optTmp, wantIn: optTmp, wantWhy: "(set by the caller)"},
		{name: "TMPDIR unset", tmpdir: "-", wantIn: "/dev/shm", wantWhy: "(tmpfs, as TMPDIR is unset; set TMPDIR to choose)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.wantIn == "/dev/shm" && !haveRAM {
				t.Skip("no writable tmpfs at /dev/shm with 256 MiB free here")
			}
			if tt.tmpdir == "-" {
				unsetTMPDIR(t)
			} else {
				t.Setenv("TMPDIR", tt.tmpdir)
			}
			o := refOptions(t, "list_directory/default-args")
			o.TempDir = tt.opt
			r, err := runner.New(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			where := r.FixtureDir()
			dir, why, _ := strings.Cut(where, " ")
			if run := r.RunAll(context.Background()); !run.OK() || run.Fixtures != where {
				t.Errorf("run: ok %v, Fixtures %q; want ok and %q", run.OK(), run.Fixtures, where)
			}
			fi, err := os.Stat(dir)
			r.Close()
			if err != nil {
				t.Fatalf("fixture dir %s: %v", where, err)
			}
			kind, o2, ok := leftover.Parse(filepath.Base(dir))
			if filepath.Dir(dir) != tt.wantIn || !ok || kind != "run" || o2 != leftover.Self() || why != tt.wantWhy {
				t.Errorf("fixtures in %q; want a forge-conform-run@%s-* dir in %s %s", where, leftover.Self(), tt.wantIn, tt.wantWhy)
			}
			if fi.Mode().Perm()&0o005 != 0o005 {
				t.Errorf("fixture dir mode %v: others (the user --run-as runs as) must read and search it", fi.Mode())
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("%s left after Close (%v)", dir, err)
			}
		})
	}
}

// TestSweepsRAM: a crashed runner's fixture dir on the RAM filesystem is
// swept by the next runner, even one whose fixtures go elsewhere (TMPDIR).
func TestSweepsRAM(t *testing.T) {
	ram, ok := scratch.RAM(0)
	if !ok {
		t.Skip("no writable tmpfs at /dev/shm here")
	}
	t.Setenv("TMPDIR", openTempDir(t))
	// Every runner on the machine sweeps /dev/shm as it starts, so another
	// test process may sweep the stale directory first: then it is gone
	// and this runner's notes do not name it. Try again with another one.
	for range 5 {
		cmd := exec.Command("true")
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		self := leftover.Self()
		dead := leftover.Owner{Pid: cmd.Process.Pid, Start: self.Start, NS: self.NS}
		stale := filepath.Join(ram, "forge-conform-run@"+dead.String()+"-test")
		if err := os.MkdirAll(filepath.Join(stale, "root"), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = fixture.RemoveAll(stale) })
		r, err := runner.New(context.Background(), refOptions(t, "list_directory/default-args"))
		if err != nil {
			t.Fatal(err)
		}
		notes := strings.Join(r.Notes(), "\n")
		r.Close()
		if _, err := os.Stat(stale); !os.IsNotExist(err) {
			t.Fatalf("%s is still there (%v)", stale, err)
		}
		if strings.Contains(notes, "temp dir "+stale) {
			return
		}
		t.Logf("%s was swept, not by this runner (notes %q): another runner on this machine took it", stale, notes)
	}
	t.Skip("other runners on this machine swept each stale directory before this one could")
}

// callOpCase reports whether c is one tool call (no turn) of the
// catalogs BenchmarkCallCases runs.
func callOpCase(c *corpus.Case) bool {
	if c.Op != "call" {
		return false
	}
	switch c.Spec {
	case "list_directory", "codex_list_dir", "lp1", "write_file", "search_files":
		return true
	}
	return c.Tool == "read_file"
}

// BenchmarkCallCases is the default path of `forge-conform` (the reference
// in-process, -j 2, a fresh runner per run, so fixtures are materialized
// within the run) on the call-op cases (list_directory, codex_list_dir,
// lp1, write_file, search_files, read_file), with the fixtures on tmpfs
// (the default without TMPDIR) and on disk (a directory under /var/tmp),
// side by side:
//
//	go test ./conformance/runner/ -run '^$' -bench CallCases -benchtime 5x
//
// ms/case is the wall time of a run (runner.New to Close; loading the
// embedded corpus, once per process, is left out) divided by the cases it
// ran; cpu-ms/case is the CPU time spent meanwhile, which the machine's
// load does not change.
func BenchmarkCallCases(b *testing.B) {
	base := refOptions(b)
	var names []string
	for _, c := range base.Corpus.Cases {
		if callOpCase(c) {
			names = append(names, c.FullName())
		}
	}
	base.Select = &runner.Selector{Run: names}
	base.Jobs = 2 // the CLI's default
	disk := diskDir(b)
	places := []struct{ name, tmpdir string }{{"tmpfs", "-"}, {"disk", disk}}
	for _, p := range places {
		b.Run(p.name, func(b *testing.B) {
			if p.tmpdir == "-" {
				if _, ok := scratch.RAM(256 << 20); !ok {
					b.Skip("no writable tmpfs at /dev/shm with 256 MiB free here")
				}
				b.Setenv("TMPDIR", "")
				os.Unsetenv("TMPDIR")
			} else {
				b.Setenv("TMPDIR", p.tmpdir)
			}
			ctx := context.Background()
			n := 0
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				o := withReference(b, base)
				before := cpuTime()
				b.StartTimer()
				r, err := runner.New(ctx, o)
				if err != nil {
					b.Fatal(err)
				}
				run := r.RunAll(ctx)
				r.Close()
				cpu += cpuTime() - before
				if !run.OK() {
					b.Fatalf("run failed: %v", run.Summary())
				}
				n = run.Ran()
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N*n), "ms/case")
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N*n), "cpu-ms/case")
			b.ReportMetric(float64(n), "cases")
		})
	}
}

// diskDir is a directory on disk (under /var/tmp) for BenchmarkCallCases;
// it skips the benchmark where /var/tmp is the RAM filesystem itself.
func diskDir(b *testing.B) string {
	dir, err := os.MkdirTemp("/var/tmp", "forge-conform-bench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = fixture.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	var d, shm syscall.Stat_t
	if syscall.Stat(dir, &d) == nil && syscall.Stat("/dev/shm", &shm) == nil && d.Dev == shm.Dev {
		b.Skip("/var/tmp is on the RAM filesystem here: no disk to compare with")
	}
	return dir
}
