package leftover

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		kind string
		o    Owner
		ok   bool
	}{
		{"forge-conform-run@12.345.4026531836-987", "run", Owner{12, 345, 4026531836}, true},
		{"forge-conform-fuse@12.345.4026531836-", "fuse", Owner{12, 345, 4026531836}, true},
		{"forge-conform-fuse@12.345.4026531836", "fuse", Owner{12, 345, 4026531836}, true},
		{"forge-conform-tree@7.0.0-abc", "tree", Owner{7, 0, 0}, true},
		{"forge-conform-1576990737", "", Owner{}, false},       // an older run's name: never swept
		{"forge-conform-layouts-123", "", Owner{}, false},      // idem
		{"forge-conform-run@12.345", "", Owner{}, false},       // no namespace
		{"forge-conform-run@12.345.6x", "", Owner{}, false},    // junk after the owner
		{"forge-conform-run@0.1.2-x", "", Owner{}, false},      // no pid 0
		{"x-forge-conform-run@12.345.6-x", "", Owner{}, false}, // not a prefix
		{"forge-conform-Run@12.345.6-x", "", Owner{}, false},   // kind is lower case
	}
	for _, tt := range tests {
		kind, o, ok := Parse(tt.name)
		if kind != tt.kind || o != tt.o || ok != tt.ok {
			t.Errorf("Parse(%q) = %q, %+v, %v; want %q, %+v, %v", tt.name, kind, o, ok, tt.kind, tt.o, tt.ok)
		}
	}
	self := Self()
	if kind, o, ok := Parse(Name("fix") + "123"); !ok || kind != "fix" || o != self {
		t.Errorf("Parse(Name) = %q, %+v, %v; want fix, %+v", kind, o, ok, self)
	}
}

func TestDead(t *testing.T) {
	self := Self()
	if self.Dead() {
		t.Fatalf("this process (%+v) is dead", self)
	}
	// A process that exited and was reaped.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	child := Owner{Pid: cmd.Process.Pid, Start: self.Start, NS: self.NS}
	_ = cmd.Wait()
	type test struct {
		what string
		o    Owner
		dead bool
	}
	tests := []test{
		{"this process", self, false},
		{"an exited child", child, true},
		{"no pid", Owner{}, false},
	}
	if runtime.GOOS == "linux" {
		tests = append(tests,
			test{"this pid, started at another time (reused)", Owner{self.Pid, self.Start + 1, self.NS}, true},
			test{"a pid of another namespace", Owner{child.Pid, self.Start, self.NS + 1}, false})
	}
	for _, tt := range tests {
		if got := tt.o.Dead(); got != tt.dead {
			t.Errorf("%s (%+v): Dead() = %v, want %v", tt.what, tt.o, got, tt.dead)
		}
	}
}

func TestStale(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	self := Self()
	dead := Owner{Pid: cmd.Process.Pid, Start: self.Start, NS: self.NS}
	names := []string{
		"forge-conform-run@" + dead.String() + "-1",     // stale
		"forge-conform-layouts@" + dead.String() + "-2", // stale
		strings.TrimSuffix(Name("run"), "-") + "-3",     // ours: alive
		"forge-conform-12345",                           // an older run's: unknown owner
		"unrelated",
	}
	for _, n := range names {
		if err := os.Mkdir(filepath.Join(dir, n), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	got := Stale(dir)
	want := []string{filepath.Join(dir, names[1]), filepath.Join(dir, names[0])}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Stale = %q, want %q", got, want)
	}
}
