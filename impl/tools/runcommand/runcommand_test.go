package runcommand

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// harness runs one command with a drained output channel.
type harness struct {
	mu     sync.Mutex
	chunks map[tool.Stream]*strings.Builder
	n      int
}

func runCmd(t *testing.T, ctx context.Context, tl Tool, command, cfg string, wd string, slow time.Duration) (string, error, *harness) {
	t.Helper()
	conf, err := config.Parse(json.RawMessage(cfg))
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan tool.Chunk, 4)
	h := &harness{chunks: map[tool.Stream]*strings.Builder{tool.Stdout: {}, tool.Stderr: {}}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ch := range out {
			h.mu.Lock()
			h.chunks[ch.Stream].WriteString(ch.Text)
			h.n++
			h.mu.Unlock()
			if slow > 0 {
				time.Sleep(slow)
			}
		}
	}()
	c := &tool.Ctx{WorkingDir: wd, MaxOutputBytes: 102400, AvailableCapacityBytes: 65536, Config: conf, Output: out}
	args, _ := json.Marshal(map[string]string{"command": command})
	res, err := tl.Execute(ctx, args, c)
	close(out)
	<-done
	return res, err, h
}

func TestResults(t *testing.T) {
	wd := t.TempDir()
	tests := []struct {
		id, command, want, wantErr string
	}{
		{"FR-TOOL-CMD-01 stdout", "printf 'a\\nb\\n'", "a\nb\n", ""},
		{"FR-TOOL-CMD-01 stderr appended", "echo out; echo err >&2", "out\n\n\n[stderr]\nerr\n", ""},
		{"FR-TOOL-CMD-01 exit code", "echo x; exit 3", "", "exit code 3"},
		{"FR-EXE-06 working dir", "pwd", wd + "\n", ""},
		{"FR-EXE-06 stdin closed", "cat; read x; echo read=$?", "read=1\n", ""},
		{"FR-EXE-06 sh", "echo $0", "sh\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			got, err, _ := runCmd(t, ctx, Tool{}, tc.command, "", wd, 0)
			if tc.wantErr != "" {
				var te *toolerr.Error
				if !errors.As(err, &te) || te.Kind != toolerr.ExecutionFailed || te.Message != tc.wantErr || te.Tool != Name {
					t.Fatalf("err %v, want ExecutionFailed %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestBlankCommand(t *testing.T) {
	for _, c := range []string{"", "  \t"} {
		_, err := Tool{}.ApprovalSummary(json.RawMessage(`{"command":"`+strings.ReplaceAll(c, "\t", `\t`)+`"}`), config.Config{})
		var te *toolerr.Error
		if !errors.As(err, &te) || te.Kind != toolerr.BadArgs {
			t.Errorf("%q: %v", c, err)
		}
	}
}

// CFG-ENV-01, FR-EXE-06: inherited, then sanitized; configured patterns add
// to the defaults; PATH is kept.
func TestEnvironment(t *testing.T) {
	t.Setenv("FCP_TEST_TOKEN", "secret1")
	t.Setenv("OPENAI_API_BASE", "secret2")
	t.Setenv("FCP_CUSTOM_VALUE", "secret3")
	t.Setenv("FCP_PLAIN", "visible")
	ctx := context.Background()
	got, err, _ := runCmd(t, ctx, Tool{}, "env", `{"tools":{"environment":{"denylist":["FCP_CUSTOM_*"]}}}`, t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"secret1", "secret2", "secret3"} {
		if strings.Contains(got, s) {
			t.Errorf("%s leaked into the command's environment", s)
		}
	}
	if !strings.Contains(got, "FCP_PLAIN=visible") || !strings.Contains(got, "PATH="+os.Getenv("PATH")) {
		t.Errorf("environment lost a variable:\n%s", got)
	}
	env, _ := Env([]string{"a_key=1", "A_KEY=2"}, config.Config{})
	if len(env) != 1 || env[0] != "a_key=1" {
		t.Errorf("matching is case-sensitive on Unix: %v", env)
	}
}

// FR-EXE-05, T-TMO-01: on timeout the whole group, grandchildren included,
// is killed; no pid survives.
func TestGroupKilled(t *testing.T) {
	for _, how := range []string{"timeout", "cancel"} {
		t.Run(how, func(t *testing.T) {
			wd := t.TempDir()
			cmd := `sleep 60 & echo $! >> pids; sh -c 'sleep 60 & echo $! >> pids; wait' & echo $! >> pids; echo $$ >> pids; echo ready; wait`
			var ctx context.Context
			var cancel context.CancelFunc
			if how == "timeout" {
				ctx, cancel = context.WithTimeout(context.Background(), 500*time.Millisecond)
			} else {
				ctx, cancel = context.WithCancel(context.Background())
				go func() { time.Sleep(500 * time.Millisecond); cancel() }()
			}
			defer cancel()
			start := time.Now()
			_, err, h := runCmd(t, ctx, Tool{}, cmd, "", wd, 0)
			if err == nil || ctx.Err() == nil {
				t.Fatalf("err %v", err)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("took %v after the deadline", d)
			}
			if !strings.Contains(h.chunks[tool.Stdout].String(), "ready") {
				t.Errorf("stdout chunks %q", h.chunks[tool.Stdout].String())
			}
			data, _ := os.ReadFile(filepath.Join(wd, "pids"))
			pids := strings.Fields(string(data))
			if len(pids) != 4 {
				t.Fatalf("pids %q", data)
			}
			deadline := time.Now().Add(3 * time.Second)
			for _, p := range pids {
				pid, _ := strconv.Atoi(p)
				for alive(pid) {
					if time.Now().After(deadline) {
						t.Fatalf("pid %d survived", pid)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
		})
	}
}

// alive reports whether pid runs (a zombie counts as dead).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// FR-OUT-01: several MB, read slowly, nothing lost; the result keeps the
// first effective_max+1 bytes for the framework's truncation.
func TestLargeOutput(t *testing.T) {
	const n = 4 << 20
	got, err, h := runCmd(t, context.Background(), Tool{}, "head -c "+strconv.Itoa(n)+" /dev/zero | tr '\\0' a", "", t.TempDir(), 50*time.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	if s := h.chunks[tool.Stdout].String(); len(s) != n || strings.Trim(s, "a") != "" {
		t.Errorf("streamed %d bytes, want %d", len(s), n)
	}
	if len(got) != 65537 {
		t.Errorf("kept %d bytes, want effective_max+1", len(got))
	}
}
