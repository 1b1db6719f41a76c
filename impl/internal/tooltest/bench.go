package tooltest

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ReportCPU reports the CPU time used since start (a CPUTime reading) per
// operation of b as the cpu-ns/op metric.
func ReportCPU(b *testing.B, start time.Duration) {
	b.Helper()
	if b.N > 0 && start > 0 {
		b.ReportMetric(float64(CPUTime()-start)/float64(b.N), "cpu-ns/op")
	}
}

// GoSrc returns $(go env GOROOT)/src, the tree the side-by-side benchmarks
// walk; it skips b when the go command cannot say.
func GoSrc(b *testing.B) string {
	b.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}
