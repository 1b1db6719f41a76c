package mutants

import (
	"context"
	"encoding/json"

	"github.com/forge-conform/forge-conform/impl/tool"
)

// execFunc is a tool's Execute.
type execFunc func(ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error)

// wrapped is a tool whose Execute a mutant replaces; everything else
// (name, schema, summary) is the real tool's.
type wrapped struct {
	tool.Tool
	exec func(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error)
}

func (w wrapped) Execute(ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	return w.exec(w.Tool.Execute, ctx, args, c)
}

// onTool returns a reference.Options.WrapTool that replaces the Execute of
// the tool called name and leaves every other tool alone.
func onTool(name string, exec func(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error)) func(tool.Tool) tool.Tool {
	return func(t tool.Tool) tool.Tool {
		if t.Name() != name {
			return t
		}
		return wrapped{Tool: t, exec: exec}
	}
}

// rewriteWithinBudget calls inner and rewrites its result with rewrite. A
// rewrite that grows the output is what a tool with that bug would have
// budgeted for: while the rewritten output exceeds the call's
// effective_max, the call is repeated with the budget lowered by the
// excess, so that the tool's own truncation makes room.
func rewriteWithinBudget(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx, rewrite func(string) string) (string, error) {
	effMax := c.EffectiveMax()
	budget := effMax
	var got string
	for range 8 {
		cc := *c
		cc.MaxOutputBytes, cc.AvailableCapacityBytes = budget, budget
		out, err := inner(ctx, args, &cc)
		if err != nil {
			return out, err
		}
		c.AllowTruncation = cc.AllowTruncation
		got = rewrite(out)
		if int64(len(got)) <= effMax {
			break
		}
		budget -= int64(len(got)) - effMax
	}
	return got, nil
}
