package mutants

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"math"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/forge-conform/forge-conform/impl/canonjson"
	"github.com/forge-conform/forge-conform/impl/lossy"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/tools/codexlistdir"
	"github.com/forge-conform/forge-conform/impl/tools/searchfiles"
)

// holeMutants are defects mutation testing found no case for (issue 18):
// read_file's binary budget just above its header, a negative
// fuzzy_threshold, and Codex list_dir's limit (its default and u64 max).
func holeMutants() []Mutant {
	return []Mutant{
		{
			Name: "read-file-binary-partial-quad", Doc: "read_file's binary encoder emits one base64 quad when less than a quad of room is left after the truncated header",
			Specs:   []string{"tool_executor"},
			Breaks:  ids("tool_executor", "FR-TOOL-READ-01b"),
			Options: wrap(onTool("read_file", binaryPartialQuad)),
		},
		{
			Name: "search-files-negative-threshold", Doc: "search_files accepts a negative fuzzy_threshold (read as 0.0) instead of refusing the table",
			Specs:   []string{searchfiles.Name},
			Breaks:  ids(searchfiles.Name, "CFG-SF-04"),
			Options: wrap(onTool(searchfiles.Name, negativeThreshold)),
		},
		{
			Name: "list-directory-lossy-swallows-next", Doc: "list_directory's lossy conversion replaces a two-byte lead byte and the byte after it with one U+FFFD, losing a valid byte (a\\xC3\\x7Fb becomes a\\uFFFDb)",
			Specs:   []string{"list_directory"},
			Breaks:  ids("list_directory", "NFR-LD-REL-02"),
			Options: wrap(onTool("list_directory", lossySwallowsNext)),
		},
		{
			Name: "search-files-gitignore-no-posix-classes", Doc: "search_files' .gitignore matcher knows no POSIX classes ([[:space:]]): a pattern using one matches nothing",
			Specs:   []string{searchfiles.Name},
			Breaks:  ids(searchfiles.Name, "FR-SF-SRC-06"),
			Options: wrap(onTool(searchfiles.Name, noPosixClasses)),
		},
		{
			Name: "codex-list-dir-limit-wraps", Doc: "list_dir adds the offset to the limit with wrap-around: a window whose end overflows u64 lists nothing",
			Specs:   []string{"codex_list_dir"},
			Breaks:  ids("codex_list_dir", "CX-LD-PAG-01"),
			Options: wrap(onTool(codexlistdir.Name, limitWraps)),
		},
		{
			Name: "codex-list-dir-default-limit-50", Doc: "list_dir defaults limit to 50 instead of 25",
			Specs: []string{"codex_list_dir"},
			// The invariant on the window's size (at most limit, 25 by
			// default) names CX-LD-PAG-01, so the case's difference is
			// charged there.
			Breaks:  ids("codex_list_dir", "CX-LD-PAG-01"),
			Options: wrap(onTool(codexlistdir.Name, defaultLimit50)),
		},
	}
}

// binaryPartialQuad gives a truncated binary read with 1 to 3 bytes of
// room after the header one base64 quad of content anyway: the encoder
// rounds a partial quad up where only the header fits.
func binaryPartialQuad(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	out, err := inner(ctx, args, c)
	if err != nil || !strings.HasPrefix(out, truncatedHeader) {
		return out, err
	}
	room := c.EffectiveMax() - int64(len(truncatedHeader)) - 1
	if room <= 0 || room >= 4 {
		return out, nil
	}
	cc := *c
	cc.MaxOutputBytes = c.EffectiveMax() - room + 4
	cc.AvailableCapacityBytes = cc.MaxOutputBytes
	out, err = inner(ctx, args, &cc)
	c.AllowTruncation = cc.AllowTruncation
	return out, err
}

// negativeThreshold runs the call with a negative fuzzy_threshold of the
// [tools.search_files] table read as 0.0, as a check of the upper bound
// alone would.
func negativeThreshold(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	table := map[string]json.RawMessage{}
	var th float64
	if json.Unmarshal(c.Config.Tools[searchfiles.Name], &table) != nil || json.Unmarshal(table["fuzzy_threshold"], &th) != nil || th >= 0 {
		return inner(ctx, args, c)
	}
	table["fuzzy_threshold"] = json.RawMessage("0.0")
	cc := *c
	cc.Config.Tools = maps.Clone(c.Config.Tools)
	cc.Config.Tools[searchfiles.Name], _ = json.Marshal(table)
	out, err := inner(ctx, args, &cc)
	c.AllowTruncation = cc.AllowTruncation
	return out, err
}

// limitWraps lists nothing but the header and "More than 0 entries found"
// when offset-1+limit overflows u64: the window's end wraps below its
// start.
func limitWraps(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	out, err := inner(ctx, args, c)
	var a struct {
		Offset *uint64 `json:"offset"`
		Limit  *uint64 `json:"limit"`
	}
	if err != nil || json.Unmarshal(args, &a) != nil || a.Limit == nil {
		return out, err
	}
	start := uint64(0)
	if a.Offset != nil {
		start = *a.Offset - 1
	}
	if start <= math.MaxUint64-*a.Limit {
		return out, nil
	}
	header, _, _ := strings.Cut(out, "\n")
	return header + "\nMore than 0 entries found", nil
}

// defaultLimit50 sends limit 50 when the call omits it.
func defaultLimit50(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	var a map[string]json.RawMessage
	if json.Unmarshal(args, &a) != nil || a == nil {
		return inner(ctx, args, c)
	}
	if _, ok := a["limit"]; ok {
		return inner(ctx, args, c)
	}
	return inner(ctx, withArgs(args, map[string]json.RawMessage{"limit": json.RawMessage("50")}), c)
}

// swallowingLossy is a lossy conversion that, on the lead byte of a
// two-byte sequence (C2..DF) followed by a byte that does not continue
// it, replaces both bytes with one U+FFFD: the byte after the bad lead
// byte is lost even when it is valid on its own. Elsewhere it is
// lossy.String.
func swallowingLossy(s string) string {
	var b strings.Builder
	start := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 && s[i] >= 0xC2 && s[i] <= 0xDF && i+1 < len(s) && s[i+1]&0xC0 != 0x80 {
			b.WriteString(lossy.String(s[start:i]))
			b.WriteRune(utf8.RuneError)
			i += 2
			start = i
			continue
		}
		i += n
	}
	b.WriteString(lossy.String(s[start:]))
	return b.String()
}

// lossySwallowsNext gives list_directory's entries the names and paths
// swallowingLossy makes of the names on disk.
func lossySwallowsNext(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	var a struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(args, &a) != nil || c.Sandbox == nil {
		return inner(ctx, args, c)
	}
	root, err := c.Sandbox.Validate(strings.TrimSpace(a.Path))
	if err != nil {
		return inner(ctx, args, c)
	}
	return rewriteWithinBudget(inner, ctx, args, c, rewriteListing(func(l *listing) {
		for i, e := range l.Entries {
			p := key(e).Path
			if !strings.ContainsRune(p, utf8.RuneError) {
				continue
			}
			raw := rawPathOf(c.FS, root, p, 0)
			if raw == p {
				continue
			}
			parts := strings.Split(raw, "/")
			newPath, newName := swallowingLossy(raw), swallowingLossy(parts[len(parts)-1])
			if newPath == p {
				continue
			}
			oldName := p[strings.LastIndex(p, "/")+1:]
			e = bytes.Replace(e, append([]byte(`"name":`), canonjson.AppendString(nil, oldName)...), append([]byte(`"name":`), canonjson.AppendString(nil, newName)...), 1)
			e = bytes.Replace(e, append([]byte(`"path":`), canonjson.AppendString(nil, p)...), append([]byte(`"path":`), canonjson.AppendString(nil, newPath)...), 1)
			l.Entries[i] = e
		}
	}))
}

// noPosixClasses runs search_files on a filesystem whose .gitignore files
// lack the lines that use a POSIX class ("[:"): a matcher that knows no
// class names finds such a bracket malformed, and the pattern matches
// nothing.
func noPosixClasses(inner execFunc, ctx context.Context, raw json.RawMessage, c *tool.Ctx) (string, error) {
	return onRewrittenFiles(inner, ctx, raw, c, func(name string, data []byte) ([]byte, bool) {
		if filepath.Base(name) != ".gitignore" || !bytes.Contains(data, []byte("[:")) {
			return nil, false
		}
		var kept []byte
		for _, line := range bytes.SplitAfter(data, []byte("\n")) {
			if !bytes.Contains(line, []byte("[:")) {
				kept = append(kept, line...)
			}
		}
		return kept, true
	})
}
