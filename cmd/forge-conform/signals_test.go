package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestRefTUIStopSignals: `forge-conform ref --tui` that its terminal hangs
// up on (SIGHUP), or that gets SIGINT or SIGTERM, while a turn waits for
// approval, forwards the signal to forge-tui (TestMain builds it beside
// forge-conform), which removes its temp dir; both exit 128+signal.
func TestRefTUIStopSignals(t *testing.T) {
	bin, err := exec.LookPath("forge-conform") // TestMain put it on PATH
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM} {
		t.Run(unix.SignalName(sig), func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			cmd := exec.Command(bin, "ref", "--tui", "--case", "tool_executor/tui-hostile")
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			stdin, err := cmd.StdinPipe() // held open: no key is ever pressed
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			out := &watcher{want: "Approval required", seen: make(chan struct{})}
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = out, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			defer func() {
				_ = cmd.Process.Kill()
				<-exited
			}()
			select {
			case <-out.seen:
			case err := <-exited:
				exited <- err
				t.Fatalf("ref --tui ended before showing the prompt: %v\n%s", err, stderr.String())
			case <-time.After(30 * time.Second):
				t.Fatal("ref --tui did not show the approval prompt within 30s")
			}
			entries, _ := os.ReadDir(tmp)
			if len(entries) != 1 || !strings.HasPrefix(entries[0].Name(), "forge-conform-tui@") {
				t.Fatalf("want the fixture's dir in TMPDIR while the TUI runs, got %v", entries)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err = <-exited:
				exited <- err
			case <-time.After(30 * time.Second):
				t.Fatalf("ref --tui still runs 30s after %s", unix.SignalName(sig))
			}
			if got, want := cmd.ProcessState.ExitCode(), 128+int(sig); got != want {
				t.Errorf("exit status %d, want %d (128+%s); stderr:\n%s", got, want, unix.SignalName(sig), stderr.String())
			}
			if want := "forge-conform: stopped by " + unix.SignalName(sig); !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr does not say %q:\n%s", want, stderr.String())
			}
			if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
				t.Errorf("left in TMPDIR after %s: %v", unix.SignalName(sig), entries)
			}
		})
	}
}

// watcher is an io.Writer that closes seen once want has been written.
type watcher struct {
	want string
	seen chan struct{}
	mu   sync.Mutex
	buf  []byte
	done bool
}

func (w *watcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.buf = append(w.buf, p...)
		if bytes.Contains(w.buf, []byte(w.want)) {
			w.done = true
			w.buf = nil
			close(w.seen)
		}
	}
	return len(p), nil
}
