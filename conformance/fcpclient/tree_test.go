//go:build linux

package fcpclient

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/forge-conform/forge-conform/spec/fcp"
)

// KillTree reaches a descendant that left the process group with setsid,
// and Signal reports the SIGKILL.
func TestKillTreeReachesSetsidChildren(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	script := "setsid sleep 60 & echo $! > " + pidFile + "; read line"
	ctx := context.Background()
	s, err := Start(ctx, Options{Command: []string{"sh", "-c", script}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var child int
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
			child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			break
		}
	}
	if child == 0 {
		t.Fatal("the script did not record its child's pid")
	}
	// The pid is written before setsid runs: wait until the child has left
	// the group.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		pgid, _ := syscall.Getpgid(child)
		if pgid != s.Pid() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the child %d is still in the group %d: the test needs one that left it", child, pgid)
		}
	}
	s.KillTree()
	_, _, err = s.Do(ctx, fcp.Request{Op: fcp.OpHello})
	if err == nil {
		t.Fatal("the session answered after KillTree")
	}
	if sig, ok := s.Signal(); !ok || sig != syscall.SIGKILL {
		t.Errorf("Signal() = %v, %v; want SIGKILL", sig, ok)
	}
	for deadline := time.Now().Add(2 * time.Second); Alive(child); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(child, syscall.SIGKILL)
			t.Fatalf("the setsid child %d outlived KillTree", child)
		}
	}
}
