package runner

import (
	"encoding/json"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// Line is one step of a case's conversation as the runner performs it:
// a request sent to the implementation (a call, or a before step's reset),
// or (Disk) a change the runner makes on disk between two requests (a
// write, remove or symlink step).
type Line struct {
	Request *fcp.Request
	Disk    *corpus.Step
	// Turn is a turn case's request (the runner then answers its events
	// as the case says: decide, cancel, tool_result).
	Turn *fcp.TurnRequest
	// Fresh: the request goes to a fresh process, after hello (a
	// durability case's recover steps, PROTOCOL.md §10.3).
	Fresh bool
}

// Script returns the steps of c on layout, with overlay (what
// Options.Config holds) merged over its config: its before steps, then the
// checked request, whose call ID is "call_1". The runner sends the same
// requests after hello (and, when the implementation declares it, reset),
// with call IDs of its own and the seq its client assigns; pass a zero
// layout to keep $ROOT and $OUTSIDE as placeholders.
func Script(c *corpus.Case, l fixture.Layout, overlay json.RawMessage) []Line {
	if l.Root == "" {
		l = fixture.Layout{Root: "$ROOT", Outside: "$OUTSIDE"}
	}
	config := caseConfig(c, overlay, l)
	if c.Op == corpus.OpTurn {
		req, err := turnRequest(c, l, config)
		if err != nil {
			return nil
		}
		if !c.Durable() {
			return []Line{{Turn: &req}}
		}
		req.Ctx.JournalDir, req.Crash = "$JOURNAL", c.Turn.Crash
		if l.Base != "" {
			req.Ctx.JournalDir = l.Base + ".journal"
		}
		out := []Line{{Turn: &req}}
		for _, st := range c.Turn.Recover {
			rr := fcp.TurnRequest{FCP: fcp.Version, Op: fcp.OpRecover, Case: c.FullName(), Ctx: req.Ctx, Config: req.Config, Crash: st.Crash}
			if err := json.Unmarshal(expand(st.Model, l), &rr.Model); err != nil {
				return nil
			}
			out = append(out, Line{Turn: &rr, Fresh: true})
		}
		return out
	}
	var out []Line
	for i, st := range c.Before {
		if st.Call != nil {
			req := beforeRequest(c, i, st.Call, l, config)
			out = append(out, Line{Request: &req})
			continue
		}
		if st.Reset {
			out = append(out, Line{Request: &fcp.Request{FCP: fcp.Version, Op: fcp.OpReset, Case: c.FullName()}})
			continue
		}
		st := st
		out = append(out, Line{Disk: &st})
	}
	req := checkedRequest(c, l, "call_1", config)
	return append(out, Line{Request: &req})
}
