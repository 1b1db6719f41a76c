// Package runcommand is the run_command tool (TOOL_EXECUTOR_SRD.md
// §3.6.10, FR-TOOL-CMD-01, FR-EXE-05, FR-EXE-06, CFG-ENV-01): `sh -c` in the
// working directory with stdin closed, in a session and process group of
// its own whose every member gets SIGKILL on timeout or abort, with the
// environment inherited and then stripped of every variable a denylist
// pattern names. stdout and stderr stream as chunks while the command runs.
//
// It is Unix-only, as the reference is.
package runcommand

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/executor/sanitize"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// Name is the tool's name.
const Name = "run_command"

// DefaultDenylist is CFG-ENV-01's list; configured patterns add to it.
func DefaultDenylist() []string {
	return []string{"*_KEY", "*_TOKEN", "*_SECRET", "*_PASSWORD", "AWS_*", "ANTHROPIC_*", "OPENAI_*"}
}

// pipeGrace bounds how long the tool reads output after the shell is gone
// (a background grandchild may hold the pipes open).
const pipeGrace = 500 * time.Millisecond

// Options are run_command's readings where FR-TOOL-CMD-01 leaves room
// (I-EXE-21). The zero value is the reference's.
type Options struct {
	// SkipBlankStderr appends stderr only when it holds more than white
	// space (Forge's own code); the reference appends any non-empty
	// stderr.
	SkipBlankStderr bool
}

// Tool is run_command.
type Tool struct {
	// Environ is the environment to inherit; nil means os.Environ().
	Environ func() []string
	// Options are run_command's readings where the SRD leaves room.
	Options Options
}

type args struct {
	Command string `json:"command"`
}

func (Tool) Name() string { return Name }
func (Tool) Description() string {
	return "Run a shell command (sh -c) in the working directory; returns stdout, and stderr after a [stderr] line"
}
func (Tool) Schema() json.RawMessage {
	return json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
		`"properties":{"command":{"type":"string","minLength":1,"description":"The command line, run with sh -c"}},` +
		`"required":["command"],"additionalProperties":false}`)
}

// SideEffecting, RequiresApproval and RiskLevel: a shell command can do
// anything (FR-TOOL-CMD-01: tool-level approval; FR-APR-06: High).
func (Tool) SideEffecting() bool       { return true }
func (Tool) RequiresApproval() bool    { return true }
func (Tool) RiskLevel() tool.RiskLevel { return tool.High }

// Timeout is [tools.timeouts] shell_commands_seconds (CFG-TMO-01a).
func (Tool) Timeout(cfg config.Config) time.Duration {
	return tool.Seconds(tool.LoadTimeouts(cfg).ShellCommandsSeconds)
}

func parse(raw json.RawMessage) (args, error) {
	var a args
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, toolerr.New(toolerr.BadArgs, "arguments of run_command: %v", err)
	}
	if strings.TrimSpace(a.Command) == "" {
		return a, toolerr.New(toolerr.BadArgs, "command must not be empty")
	}
	return a, nil
}

// ApprovalSummary is "Run command: <command>" (FR-APR-06's guidance).
func (Tool) ApprovalSummary(raw json.RawMessage, _ config.Config) (string, error) {
	a, err := parse(raw)
	if err != nil {
		return "", err
	}
	return "Run command: " + a.Command, nil
}

// Env returns environ without the variables whose names match a pattern
// of DefaultDenylist or of [tools.environment] denylist (CFG-ENV-01,
// case-sensitive: Unix).
func Env(environ []string, cfg config.Config) ([]string, error) {
	var conf struct {
		Denylist []string `json:"denylist"`
	}
	if err := cfg.Table("environment", &conf); err != nil {
		return nil, err
	}
	patterns := append(DefaultDenylist(), conf.Denylist...)
	for _, p := range patterns {
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("[tools.environment] denylist pattern %q is not a valid glob: %v", p, err)
		}
	}
	out := make([]string, 0, len(environ))
next:
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		for _, p := range patterns {
			if ok, _ := path.Match(p, name); ok {
				continue next
			}
		}
		out = append(out, kv)
	}
	return out, nil
}

// Execute runs the command. Success is stdout, followed by
// "\n\n[stderr]\n<stderr>" when stderr is not empty; a non-zero exit is
// ExecutionFailed "exit code <n>" (-1 when a signal ended the shell).
func (t Tool) Execute(ctx context.Context, raw json.RawMessage, c *tool.Ctx) (string, error) {
	a, err := parse(raw)
	if err != nil {
		return "", err
	}
	environ := os.Environ
	if t.Environ != nil {
		environ = t.Environ
	}
	env, err := Env(environ(), c.Config)
	if err != nil {
		return "", toolerr.Failed(Name, "%v", err)
	}
	limit := c.EffectiveMax() + 1
	stdout := &collector{c: c, ctx: ctx, stream: tool.Stdout, limit: limit}
	stderr := &collector{c: c, ctx: ctx, stream: tool.Stderr, limit: limit}
	cmd := exec.CommandContext(ctx, "sh", "-c", a.Command)
	cmd.Dir = c.WorkingDir
	cmd.Env = env
	cmd.Stdin = nil // /dev/null: non-interactive (FR-EXE-06)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = pipeGrace
	if err := cmd.Start(); err != nil {
		return "", toolerr.Failed(Name, "starting sh: %v", err)
	}
	err = cmd.Wait()
	if ctx.Err() != nil {
		_ = killGroup(cmd) // FR-EXE-05: whatever is left of the group
		return "", ctx.Err()
	}
	out := stdout.text()
	if e := stderr.text(); e != "" && !(t.Options.SkipBlankStderr && strings.TrimSpace(e) == "") {
		out += "\n\n[stderr]\n" + e
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return "", toolerr.Failed(Name, "exit code %d", exit.ExitCode())
	case errors.Is(err, exec.ErrWaitDelay), err == nil:
		return out, nil
	default:
		return "", toolerr.Failed(Name, "waiting for sh: %v", err)
	}
}

// killGroup sends SIGKILL to the command's process group (the session
// leader's pid is the group id). A failure is not fatal: FR-EXE-05 says it
// must not block completion.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		fmt.Fprintf(os.Stderr, "run_command: killing process group %d: %v\n", cmd.Process.Pid, err)
	}
	return nil
}

// collector streams one output stream as chunks and keeps its sanitized
// text up to limit bytes: enough for the framework's byte-exact truncation
// (it sees the first effective_max bytes and that there is more).
type collector struct {
	c      *tool.Ctx
	ctx    context.Context
	stream tool.Stream
	limit  int64

	mu  sync.Mutex
	san sanitize.Stream
	buf strings.Builder
}

func (w *collector) Write(p []byte) (int, error) {
	w.mu.Lock()
	if int64(w.buf.Len()) < w.limit {
		s := w.san.Write(string(p))
		if room := w.limit - int64(w.buf.Len()); int64(len(s)) > room {
			s = s[:room]
		}
		w.buf.WriteString(s)
	}
	w.mu.Unlock()
	if !w.c.Send(w.ctx, w.stream, string(p)) {
		return 0, w.ctx.Err()
	}
	return len(p), nil
}

func (w *collector) text() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if int64(w.buf.Len()) < w.limit {
		w.buf.WriteString(w.san.Flush())
	}
	return w.buf.String()
}
