package mutants

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"strings"

	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
	"github.com/forge-conform/forge-conform/impl/tools/searchfiles"
)

// cfgSF03Mutants are defects of search_files' binary check (CFG-SF-03):
// an rg or ugrep too old for the implementation is passed over silently.
func cfgSF03Mutants() []Mutant {
	return []Mutant{{
		Name: "search-files-old-binary-falls-back", Doc: "search_files falls back to the native backend when the rg or ugrep binary is missing or too old, instead of failing with ExecutionFailed",
		Specs:   []string{searchfiles.Name},
		Breaks:  ids(searchfiles.Name, "CFG-SF-03"),
		Options: wrap(onTool(searchfiles.Name, fallBackToNative)),
	}}
}

// fallBackToNative reruns a call whose binary check failed with the
// [tools.search_files] table's backend set to native.
func fallBackToNative(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	out, err := inner(ctx, args, c)
	var te *toolerr.Error
	if !errors.As(err, &te) || te.Kind != toolerr.ExecutionFailed || !strings.Contains(te.Message, "binary check failed") {
		return out, err
	}
	table := map[string]json.RawMessage{}
	if json.Unmarshal(c.Config.Tools[searchfiles.Name], &table) != nil {
		return out, err
	}
	table["backend"] = json.RawMessage(`"native"`)
	cc := *c
	cc.Config.Tools = maps.Clone(c.Config.Tools)
	cc.Config.Tools[searchfiles.Name], _ = json.Marshal(table)
	out, err = inner(ctx, args, &cc)
	c.AllowTruncation = cc.AllowTruncation
	return out, err
}
