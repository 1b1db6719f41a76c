package mutants

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/forge-conform/forge-conform/impl/canonjson"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/tools/searchfiles"
)

// holes3Mutants are the last defects mutation testing found no case for
// (issue 18): search_files' lossy conversion of a\xC3\x7Fb, write_file's
// own timeout, write_file into a directory it may write but not read, and
// the write techniques the write and fsync faults tell apart.
func holes3Mutants() []Mutant {
	return []Mutant{
		{
			Name: "search-files-lossy-swallows-next", Doc: "search_files' lossy conversion replaces a two-byte lead byte and the byte after it with one U+FFFD, losing a valid byte (a\\xC3\\x7Fb becomes a\\uFFFDb)",
			Specs:   []string{searchfiles.Name},
			Breaks:  ids(searchfiles.Name, "NFR-SF-REL-02"),
			Options: wrap(onTool(searchfiles.Name, searchLossySwallowsNext)),
		},
	}
}

// searchLossySwallowsNext gives search_files' matches the paths
// swallowingLossy makes of the names on disk.
func searchLossySwallowsNext(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	s := sfSettingsOf(args, c)
	if c.Sandbox == nil {
		return inner(ctx, args, c)
	}
	path := strings.TrimSpace(s.path)
	if path == "" {
		path = "."
	}
	root, err := c.Sandbox.Validate(path)
	if err != nil {
		return inner(ctx, args, c)
	}
	return rewriteWithinBudget(inner, ctx, args, c, rewriteSearch(func(r *sfResult) {
		for i, m := range r.Matches {
			p := sfKey(m).Path
			if !strings.ContainsRune(p, utf8.RuneError) {
				continue
			}
			raw := rawPathOf(c.FS, root, p, 0)
			if now := swallowingLossy(raw); raw != p && now != p {
				r.Matches[i] = bytes.Replace(m, append([]byte(`"path":`), canonjson.AppendString(nil, p)...),
					append([]byte(`"path":`), canonjson.AppendString(nil, now)...), 1)
			}
		}
	}))
}
