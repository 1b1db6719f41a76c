package mutants

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/tools/searchfiles"
)

// sfHoleMutants are search_files defects a coverage profile found no case
// for: gitignore's "?" pattern syntax, an unreadable .gitignore, and a
// denied pattern that is not of the **/NAME shapes.
func sfHoleMutants() []Mutant {
	return []Mutant{
		{
			Name: "search-files-gitignore-no-question-mark", Doc: `search_files' .gitignore matcher takes "?" for a literal character: a pattern using it ignores nothing`,
			Specs:   []string{searchfiles.Name},
			Breaks:  ids(searchfiles.Name, "FR-SF-SRC-06"),
			Options: wrap(onTool(searchfiles.Name, noQuestionMark)),
		},
		{
			Name: "search-files-unreadable-ignore-silent", Doc: "search_files records no error entry for a .gitignore it cannot read",
			Specs:   []string{searchfiles.Name},
			Breaks:  ids(searchfiles.Name, "FR-SF-ERR-04"),
			Options: wrap(onSearchResult(dropIgnoreFileErrors)),
		},
		{
			Name: "search-files-deny-names-only", Doc: "search_files' walk applies only the denied patterns of the shapes **/NAME and **/NAME/**, so a file under **/src/*.go is searched",
			Specs:   []string{searchfiles.Name},
			Breaks:  ids(searchfiles.Name, "NFR-SF-SEC-01"),
			Options: wrap(onTool(searchfiles.Name, denyNamesOnly)),
		},
	}
}

// noQuestionMark runs search_files on a filesystem whose .gitignore files
// lack the lines holding "?": a matcher that reads "?" literally finds no
// file of such a name in the fixtures.
func noQuestionMark(inner execFunc, ctx context.Context, raw json.RawMessage, c *tool.Ctx) (string, error) {
	return onRewrittenFiles(inner, ctx, raw, c, func(name string, data []byte) ([]byte, bool) {
		if filepath.Base(name) != ".gitignore" || !bytes.Contains(data, []byte("?")) {
			return nil, false
		}
		var kept []byte
		for _, line := range bytes.SplitAfter(data, []byte("\n")) {
			if !bytes.Contains(line, []byte("?")) {
				kept = append(kept, line...)
			}
		}
		return kept, true
	})
}

// dropIgnoreFileErrors removes the error entries of .gitignore files.
func dropIgnoreFileErrors(r *sfResult) {
	r.Errors = slices.DeleteFunc(r.Errors, func(e json.RawMessage) bool {
		return path.Base(sfKey(e).Path) == ".gitignore"
	})
}

// denyNamesOnly runs search_files with the [tools.sandbox] table's denied
// patterns cut to the **/NAME and **/NAME/** shapes (NAME without a
// slash). The call's sandbox, built before, still refuses a requested
// path under any pattern; only the walk loses the others.
func denyNamesOnly(inner execFunc, ctx context.Context, raw json.RawMessage, c *tool.Ctx) (string, error) {
	table := map[string]json.RawMessage{}
	var pats []string
	if json.Unmarshal(c.Config.Tools["sandbox"], &table) != nil || json.Unmarshal(table["denied_patterns"], &pats) != nil {
		return inner(ctx, raw, c)
	}
	pats = slices.DeleteFunc(pats, func(p string) bool {
		x, ok := strings.CutPrefix(p, "**/")
		return !ok || strings.Contains(strings.TrimSuffix(x, "/**"), "/")
	})
	table["denied_patterns"], _ = json.Marshal(pats)
	cc := *c
	cc.Config.Tools = maps.Clone(c.Config.Tools)
	cc.Config.Tools["sandbox"], _ = json.Marshal(table)
	out, err := inner(ctx, raw, &cc)
	c.AllowTruncation = cc.AllowTruncation
	return out, err
}
