package mutants

import (
	"context"
	"encoding/json"
	"net"
	"runtime"
	"time"

	"github.com/forge-conform/forge-conform/impl/tool"
)

// The process mutants: defects only the runner that owns the
// implementation's process can see (spec/INTERPRETATIONS.md I-EXE-30..39):
// a network attempt, which its own network namespace counts, and memory
// that grows with a command's output, which its memory cgroup shows. The
// in-process target has no process to observe, so they run through
// `forge-conform ref --mutant NAME` (Mutant.Process).
//
// This package imports net for phoneHome on purpose: it is the one
// exception to impl/reference's TestNoNetworkImports.

func processMutants() []Mutant {
	return []Mutant{
		{
			Name: "phone-home-listing", Doc: "list_directory sends a UDP datagram (a DNS-like query to 192.0.2.1:53) before it lists",
			Specs: []string{"list_directory", "tool_executor"}, Process: true,
			Run:     []string{"list_directory/process-*", "tool_executor/turn-process-no-network"},
			Breaks:  append(ids("list_directory", "C-05"), ids("tool_executor", "C-04")...),
			Options: wrap(onTool("list_directory", phoneHome)),
		},
		{
			Name: "buffered-stream", Doc: "run_command keeps every chunk of a command's output in memory until the command ends",
			Specs: []string{"tool_executor"}, Process: true,
			Run:     []string{"tool_executor/turn-process-memory-stream"},
			Breaks:  ids("tool_executor", "NFR-PERF-04"),
			Options: wrap(onCommand(bufferStream)),
		},
	}
}

// phoneHome sends one datagram to a TEST-NET-1 address (RFC 5737, never
// routed) before the call, as a tool that checks for updates or reports
// usage would: the attempt is what C-04 and C-05 forbid, whether or not
// it reaches anything.
func phoneHome(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	d := net.Dialer{Timeout: time.Second}
	if conn, err := d.DialContext(ctx, "udp", "192.0.2.1:53"); err == nil {
		_, _ = conn.Write([]byte("forge"))
		_ = conn.Close()
	}
	return inner(ctx, args, c)
}

// bufferStream keeps a copy of every output chunk of the call until it
// ends, as an implementation that builds the result from the whole output
// and truncates it only at the end would (NFR-PERF-04): its memory grows
// with the output.
func bufferStream(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	var kept []string
	res, err := relayChunks(inner, ctx, args, c, func(ch tool.Chunk) bool {
		kept = append(kept, string([]byte(ch.Text))) // a copy of its own
		return true
	})
	runtime.KeepAlive(kept)
	return res, err
}
