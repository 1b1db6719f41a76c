package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/forge-conform/forge-conform/impl/executor/sanitize"
	"github.com/forge-conform/forge-conform/impl/lossy"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
	"github.com/forge-conform/forge-conform/impl/tools/runcommand"
)

// runCommand is run_command as Forge runs it (observed in Forge's own
// code): a blank command is BadArgs "command must not be empty";
// `sh -c` in a session of its own (setsid), stdin null, the environment
// cleared and refilled with the parent's minus the denylist (glob,
// case-sensitive); each of stdout and stderr is read as lossy UTF-8 per
// read and collected up to min(max_output_bytes, capacity) bytes, so a
// longer output is cut there by the tool itself; a non-zero exit is
// ExecutionFailed "exit code <n>" (-1 for a signal) and drops the output;
// stderr is appended as "\n\n[stderr]\n<stderr>" only when it is not
// blank; the result is sanitized keeping \n, \t and \r. Name, schema,
// summary, risk and timeout are the reference tool's. Like the reference
// (and unlike Forge, which waits for the pipes to close), it stops reading
// shortly after the shell exits when a background process keeps the pipes
// open.
type runCommand struct{ runcommand.Tool }

// pipeGrace bounds how long output is read after the shell is gone.
const pipeGrace = 500 * time.Millisecond

func (t runCommand) Execute(ctx context.Context, raw json.RawMessage, c *tool.Ctx) (string, error) {
	var a struct {
		Command string `json:"command"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", toolerr.New(toolerr.BadArgs, "%v", err)
	}
	if strings.TrimSpace(a.Command) == "" {
		return "", toolerr.New(toolerr.BadArgs, "command must not be empty")
	}
	environ := os.Environ
	if t.Environ != nil {
		environ = t.Environ
	}
	env, err := runcommand.Env(environ(), c.Config)
	if err != nil {
		return "", toolerr.New(toolerr.BadArgs, "%v", err)
	}
	limit := c.EffectiveMax()
	stdout := &collector{c: c, ctx: ctx, stream: tool.Stdout, limit: limit}
	stderr := &collector{c: c, ctx: ctx, stream: tool.Stderr, limit: limit}
	cmd := exec.CommandContext(ctx, "sh", "-c", a.Command)
	cmd.Dir, cmd.Env, cmd.Stdin = c.WorkingDir, env, nil
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error { killGroup(cmd); return nil }
	cmd.WaitDelay = pipeGrace
	if err := cmd.Start(); err != nil {
		return "", toolerr.Failed(runcommand.Name, "%v", err)
	}
	err = cmd.Wait()
	if ctx.Err() != nil {
		killGroup(cmd)
		return "", ctx.Err()
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return "", toolerr.Failed(runcommand.Name, "exit code %d", exit.ExitCode())
	}
	if err != nil && !errors.Is(err, exec.ErrWaitDelay) {
		return "", toolerr.Failed(runcommand.Name, "%v", err)
	}
	out := stdout.text()
	if e := stderr.text(); strings.TrimSpace(e) != "" {
		out += "\n\n[stderr]\n" + e
	}
	return sanitize.StringKeepingCR(out), nil
}

// killGroup sends SIGKILL to the command's process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// collector streams one output stream as chunks, each read decoded as
// lossy UTF-8, and keeps the first limit bytes of it (cut on a character
// boundary), as Forge's read_stream does.
type collector struct {
	c      *tool.Ctx
	ctx    context.Context
	stream tool.Stream
	limit  int64

	mu  sync.Mutex
	buf strings.Builder
}

func (w *collector) Write(p []byte) (int, error) {
	chunk := lossy.String(string(p))
	w.mu.Lock()
	if room := w.limit - int64(w.buf.Len()); room > 0 {
		take := min(room, int64(len(chunk)))
		for take > 0 && take < int64(len(chunk)) && !utf8.RuneStart(chunk[take]) {
			take--
		}
		w.buf.WriteString(chunk[:take])
	}
	w.mu.Unlock()
	if !w.c.Send(w.ctx, w.stream, chunk) {
		return 0, w.ctx.Err()
	}
	return len(p), nil
}

func (w *collector) text() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}
