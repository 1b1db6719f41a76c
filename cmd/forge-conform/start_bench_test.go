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
// `forge-conform ref`, both built here with the same toolchain, in one
// run (issue 10: the reference within 1.5x of the minimal program; ref-static
// is the reference built with CGO_ENABLED=0, for comparison):
//
//	go test -run '^$' -bench StartHello -benchtime 200x ./cmd/forge-conform/
//
// The ns/hello metric is the mean exec-to-hello time; ns/op adds the exit;
// cpu-ns/op is the process's CPU time, start to exit (user and system),
// the figure to compare when other work shares the machine.
func BenchmarkStartHello(b *testing.B) {
	dir := b.TempDir()
	ref := filepath.Join(dir, "forge-conform")
	build(b, ".", ref)
	// The same without cgo, for comparison: net and os/user then link no C
	// library, and the binary is static like the minimal program.
	static := filepath.Join(dir, "forge-conform-static")
	build(b, ".", static, "CGO_ENABLED=0")
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
	}{{"minimal", []string{minimal}}, {"ref", []string{ref, "ref"}}, {"ref-static", []string{static, "ref"}}} {
		b.Run(bc.name, func(b *testing.B) {
			var total time.Duration
			cpu := childrenCPU()
			for b.Loop() {
				total += helloOnce(b, bc.argv)
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/hello")
			if cpu := childrenCPU() - cpu; cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
		})
	}
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
// waits for the exit; it returns the time from start to the answer.
func helloOnce(b *testing.B, argv []string) time.Duration {
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
	took := time.Since(start)
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
	return took
}
