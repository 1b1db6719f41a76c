package mutants

import (
	"context"
	"encoding/json"

	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/impl/session"
	"github.com/forge-conform/forge-conform/impl/tool"
)

// sessionMutants are defects of the conversation's read cache across
// conversations (FCP/1 reset).
func sessionMutants() []Mutant {
	return []Mutant{
		{
			Name: "reset-keeps-reads", Doc: "a fresh conversation still knows the files read_file read in an earlier one, so apply_patch patches them without a new read",
			Specs:   []string{"tool_executor"},
			Breaks:  ids("tool_executor", "FR-TOOL-PATCH-02a"),
			Options: keepReadsAcrossResets(),
		},
	}
}

// keepReadsAcrossResets wraps read_file and apply_patch around a record of
// reads that no reset clears: read_file copies each read it records there,
// and apply_patch finds there a read its own conversation lacks. A wrapper
// of the tools (not of the session) because the reference builds a fresh
// conversation on reset; the record lives as long as the Options.
func keepReadsAcrossResets() reference.Options {
	sticky := session.New()
	return wrap(func(t tool.Tool) tool.Tool {
		switch t.Name() {
		case "read_file":
			return wrapped{Tool: t, exec: func(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
				out, err := inner(ctx, args, c)
				var a struct {
					Path string `json:"path"`
				}
				if err == nil && c.Session != nil && c.Sandbox != nil && json.Unmarshal(args, &a) == nil {
					if canon, verr := c.Sandbox.Validate(a.Path); verr == nil {
						if r, ok := c.Session.LastRead(canon); ok {
							sticky.RecordRead(r)
						}
					}
				}
				return out, err
			}}
		case "apply_patch":
			return wrapped{Tool: t, exec: func(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
				if _, files, ok := parsePatch(args, c); ok && c.Session != nil {
					for _, f := range files {
						if _, known := c.Session.LastRead(f.canon); known {
							continue
						}
						if r, ok := sticky.LastRead(f.canon); ok {
							c.Session.RecordRead(r)
						}
					}
				}
				return inner(ctx, args, c)
			}}
		}
		return t
	})
}
