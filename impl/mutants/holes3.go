package mutants

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/forge-conform/forge-conform/impl/canonjson"
	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
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
		{
			Name: "write-file-lists-directory", Doc: "write_file lists the target directory to see whether the name is free, and fails when it may not read the directory",
			Specs:   []string{"write_file"},
			Breaks:  ids("write_file", "T-WR-01"),
			Options: wrap(onTool("write_file", listsDirectory)),
		},
		{
			Name: "write-file-no-own-timeout", Doc: "write_file has no timeout of its own: [tools.timeouts] file_operations_seconds is ignored and the context default (default_seconds) applies",
			Specs: []string{"tool_executor"}, Run: []string{"write_file/write-file-timeout"},
			// CFG-TMO-01a is a SHOULD: its failure is a warning, which
			// only a strict run fails.
			Strict:  true,
			Breaks:  ids("tool_executor", "CFG-TMO-01a"),
			Options: wrap(noOwnTimeout("write_file")),
		},
		{
			Name: "write-file-in-place", Doc: "write_file opens the path itself and writes into it, and leaves what it wrote when a write or fsync fails",
			Specs:   []string{"write_file"},
			Breaks:  ids("write_file", "WR-ATOMIC-01", "T-WR-01"),
			Options: wrap(onTool("write_file", writeInPlace)),
		},
		{
			Name: "apply-patch-in-place", Doc: "apply_patch writes each file in place (truncate and write), one by one, and stops at the first write or fsync that fails",
			Specs:   []string{"tool_executor"},
			Breaks:  ids("tool_executor", "FR-TOOL-PATCH-01a", "FR-TOOL-PATCH-02d", "T-PATCH-01"),
			Options: wrap(onTool("apply_patch", patchInPlace)),
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

// listsDirectory reads the names of the validated path's directory before
// write_file runs, as a tool that looks for the name in a listing instead
// of creating it exclusively would: a directory it may write into but not
// read fails the call.
func listsDirectory(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	var a struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(args, &a) != nil || c.Sandbox == nil {
		return inner(ctx, args, c)
	}
	canon, err := c.Sandbox.Validate(a.Path)
	if err != nil {
		return inner(ctx, args, c)
	}
	names, err := fsys.ReadDirNames(c.FS, filepath.Dir(canon))
	switch {
	case err == nil && slices.Contains(names, filepath.Base(canon)):
		return "", toolerr.Failed("write_file", "already exists: %s", a.Path)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", toolerr.Failed("write_file", "cannot list the directory of %s: %s", a.Path, fsys.ErrText(err))
	}
	return inner(ctx, args, c)
}

// untimed is a tool without a timeout of its own (no tool.Timeouter).
type untimed struct{ tool.Tool }

// noOwnTimeout hides the own timeout of the tool called name, so that the
// call gets the context default.
func noOwnTimeout(name string) func(tool.Tool) tool.Tool {
	return func(t tool.Tool) tool.Tool {
		if t.Name() != name {
			return t
		}
		return untimed{t}
	}
}
