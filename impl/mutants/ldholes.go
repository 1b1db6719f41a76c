package mutants

import (
	"context"
	"encoding/json"

	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// ldHoleMutants are holes mutation testing found in list_directory's
// configuration: its smallest valid limits (CFG-LD-02, CFG-LD-03).
func ldHoleMutants() []Mutant {
	return []Mutant{
		{
			Name: "list-directory-config-minimum-two", Doc: "list_directory refuses a [tools.list_directory] max_entries or max_depth of 1 as an invalid configuration, as if the smallest valid limit were 2",
			Specs:   []string{"list_directory"},
			Breaks:  ids("list_directory", "CFG-LD-02", "CFG-LD-03"),
			Options: wrap(onTool("list_directory", configMinimumTwo)),
		},
	}
}

// configMinimumTwo fails the call, as the reference fails a limit below 1,
// when the table sets max_entries or max_depth to 1.
func configMinimumTwo(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	var table struct {
		MaxEntries *int64 `json:"max_entries"`
		MaxDepth   *int64 `json:"max_depth"`
	}
	if json.Unmarshal(c.Config.Tools["list_directory"], &table) == nil {
		for _, l := range []struct {
			key string
			v   *int64
		}{{"max_entries", table.MaxEntries}, {"max_depth", table.MaxDepth}} {
			if l.v != nil && *l.v == 1 {
				return "", toolerr.Failed("list_directory", "invalid configuration: [tools.list_directory] %s is 1; set it to 2 or more", l.key)
			}
		}
	}
	return inner(ctx, args, c)
}
