package mutants

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/tools/runcommand"
)

// noGroupKill makes run_command's kill reach only the process it started:
// the command runs under `setsid -w sh -c`, in a session of its own, so
// the SIGKILL the tool sends to its process group on timeout or cancel
// kills setsid and leaves the command's shell and its children running,
// as a tool that kills only its direct child would (FR-EXE-05). The
// approval summary and events still show the command the model sent.
// It needs setsid (util-linux) in PATH; without it every command fails
// with sh's "setsid: not found" and the mutant test says so. (It does not
// look setsid up itself: impl/reference's import test keeps os/exec out of
// the packages the reference is built from.)
func noGroupKill(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	var a struct {
		Command string `json:"command"`
	}
	if err := json.Unmarshal(args, &a); err != nil || a.Command == "" {
		return inner(ctx, args, c)
	}
	a.Command = "exec setsid -w sh -c " + shellQuote(a.Command)
	moved, err := json.Marshal(a)
	if err != nil {
		return "", err
	}
	return inner(ctx, moved, c)
}

// shellQuote quotes s as one sh word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// dropAt is the stdout offset whose chunk dropChunk loses.
const dropAt = 64 << 10

// dropChunk loses one chunk of a call's streamed output: the stdout chunk
// that carries the call's 64 KiB-th byte, as an output channel that drops
// rather than waits when it is full would (FR-OUT-01). Calls with less
// output are untouched, so the mutant's effect does not depend on how a
// pipe happens to cut small outputs into chunks.
func dropChunk(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	var seen int
	dropped := false
	return relayChunks(inner, ctx, args, c, func(ch tool.Chunk) bool {
		if ch.Stream != tool.Stdout {
			return true
		}
		before := seen
		seen += len(ch.Text)
		if !dropped && before < dropAt && seen >= dropAt {
			dropped = true
			return false
		}
		return true
	})
}

// relayChunks runs inner with its output chunks passing through pass, in
// order, on their way to the caller's channel; a chunk pass returns false
// for is lost. A call without an output channel runs as it is.
func relayChunks(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx, pass func(tool.Chunk) bool) (string, error) {
	if c.Output == nil {
		return inner(ctx, args, c)
	}
	out := c.Output
	in := make(chan tool.Chunk)
	cc := *c
	cc.Output = in
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ch := range in {
			if !pass(ch) {
				continue
			}
			select {
			case out <- ch:
			case <-ctx.Done():
			}
		}
	}()
	res, err := inner(ctx, args, &cc)
	close(in)
	wg.Wait()
	c.AllowTruncation = cc.AllowTruncation
	return res, err
}

// onCommand replaces run_command's Execute; its own timeout
// (tool.Timeouter, [tools.timeouts] shell_commands_seconds) is kept, which
// the plain wrapper would hide.
func onCommand(exec func(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error)) func(tool.Tool) tool.Tool {
	return func(t tool.Tool) tool.Tool {
		to, ok := t.(tool.Timeouter)
		if t.Name() != runcommand.Name || !ok {
			return t
		}
		return timedWrapped{wrapped: wrapped{Tool: t, exec: exec}, to: to}
	}
}

// timedWrapped is a wrapped tool that keeps the real tool's timeout.
type timedWrapped struct {
	wrapped
	to tool.Timeouter
}

func (w timedWrapped) Timeout(cfg config.Config) time.Duration { return w.to.Timeout(cfg) }
