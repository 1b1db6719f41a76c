package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// minimalHello is the yardstick of BenchmarkStartHello: the smallest Go
// program that answers FCP/1's hello, decoding the request and encoding
// the answer with encoding/json as any implementation would.
const minimalHello = `package main

import (
	"bufio"
	"encoding/json"
	"os"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req struct{ Seq int64 }
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			os.Exit(2)
		}
		out.Encode(map[string]any{"seq": req.Seq, "fcp": 1,
			"implementation": map[string]string{"name": "minimal", "version": "0", "language": "go"},
			"tools": []string{}, "ops": []string{"hello"}})
	}
}
`

// BenchmarkStartHello measures exec-to-hello: from starting the process to
// reading its answer to {"op":"hello"}, for a minimal Go program and for
// the reference, all built here with the same toolchain, in one run
// (issue 10: the reference within 1.5x of the minimal program):
//
//	go test -run '^$' -bench StartHello -benchtime 200x ./cmd/forge-conform/
//
// forge-ref is the reference as README and CI build it (cmd/forge-ref,
// CGO_ENABLED=0: static, as the minimal program is); forge-ref-cgo is the
// same built with cgo where a C compiler exists (plain `go build` or `go
// install`: net, linked through afero and SQLite, then makes it
// dynamically linked); forge-conform-ref is `forge-conform ref`, the
// reference inside the harness, which starts every package the runner
// links (jsonschema/v5, FUSE, the TUI). ratio runs the minimal program
// and forge-ref in turn and reports x-minimal, forge-ref's mean
// exec-to-hello over the minimal program's, and cpu-x-minimal, the same
// for CPU time: on a machine other work shares, alternating keeps both
// under the same load.
//
// The ns/hello metric is the mean exec-to-hello time; ns/op adds the exit;
// cpu-ns/op is the process's CPU time, start to exit (user and system),
// the figure to compare when other work shares the machine.
func BenchmarkStartHello(b *testing.B) {
	dir := b.TempDir()
	fc := filepath.Join(dir, "forge-conform")
	build(b, ".", fc)
	ref := filepath.Join(dir, "forge-ref")
	build(b, "../forge-ref", ref, "CGO_ENABLED=0")
	refCgo := filepath.Join(dir, "forge-ref-cgo")
	build(b, "../forge-ref", refCgo)
	src := filepath.Join(dir, "minimal")
	if err := os.MkdirAll(src, 0o755); err != nil {
		b.Fatal(err)
	}
	for name, data := range map[string]string{"go.mod": "module minimal\n\ngo 1.22\n", "main.go": minimalHello} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(data), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	minimal := filepath.Join(dir, "minimal-hello")
	build(b, src, minimal)

	for _, bc := range []struct {
		name string
		argv []string
	}{{"minimal", []string{minimal}}, {"forge-ref", []string{ref}}, {"forge-ref-cgo", []string{refCgo}},
		{"forge-conform-ref", []string{fc, "ref"}}} {
		b.Run(bc.name, func(b *testing.B) {
			var took, cpu time.Duration
			for b.Loop() {
				t, c := helloOnce(b, bc.argv)
				took, cpu = took+t, cpu+c
			}
			b.ReportMetric(float64(took.Nanoseconds())/float64(b.N), "ns/hello")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
	b.Run("ratio", func(b *testing.B) {
		var took, cpu [2]time.Duration
		for b.Loop() {
			for i, argv := range [][]string{{minimal}, {ref}} {
				t, c := helloOnce(b, argv)
				took[i], cpu[i] = took[i]+t, cpu[i]+c
			}
		}
		b.ReportMetric(float64(took[1])/float64(took[0]), "x-minimal")
		if cpu[0] > 0 {
			b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "cpu-x-minimal")
		}
	})
}

// build compiles the main package in dir into out, with env added to the
// environment.
func build(b *testing.B, dir, out string, env ...string) {
	b.Helper()
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOWORK=off", "GOFLAGS="), env...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build in %s: %v\n%s", dir, err, msg)
	}
}

// helloOnce starts argv, sends hello, reads the answer, closes stdin and
// waits for the exit; it returns the time from start to the answer and the
// process's CPU time (user and system).
func helloOnce(b *testing.B, argv []string) (took, cpu time.Duration) {
	cmd := exec.Command(argv[0], argv[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	if _, err := io.WriteString(stdin, `{"fcp":1,"seq":0,"op":"hello"}`+"\n"); err != nil {
		b.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadBytes('\n')
	took = time.Since(start)
	if err != nil {
		b.Fatalf("%s: no answer to hello: %v", argv[0], err)
	}
	if !bytes.Contains(line, []byte(`"implementation"`)) {
		b.Fatalf("%s: answered hello with %q", argv[0], line)
	}
	_ = stdin.Close()
	if err := cmd.Wait(); err != nil {
		b.Fatalf("%s: %v (answered %q)", argv[0], err, line)
	}
	return took, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}
