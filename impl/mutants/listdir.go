package mutants

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/tool"
)

// listing is list_directory's result with every string kept as the tool
// wrote it, so that a rewrite changes only what it means to.
type listing struct {
	Path            json.RawMessage   `json:"path"`
	Entries         []json.RawMessage `json:"entries"`
	Returned        int64             `json:"returned"`
	MaxEntries      int64             `json:"max_entries"`
	Truncated       bool              `json:"truncated"`
	TruncatedReason json.RawMessage   `json:"truncated_reason"`
}

// entryKey is what a rewrite reads of one entry.
type entryKey struct {
	Path     string `json:"path"`
	Depth    int64  `json:"depth"`
	Type     string `json:"type"`
	IsHidden bool   `json:"is_hidden"`
}

func key(raw json.RawMessage) entryKey {
	var k entryKey
	_ = json.Unmarshal(raw, &k)
	return k
}

// render writes the listing back in the tool's byte format.
func (l *listing) render() string {
	var b bytes.Buffer
	b.WriteString(`{"path":`)
	b.Write(l.Path)
	b.WriteString(`,"entries":[`)
	for i, e := range l.Entries {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(e)
	}
	b.WriteString(`],"returned":`)
	b.WriteString(strconv.FormatInt(l.Returned, 10))
	b.WriteString(`,"max_entries":`)
	b.WriteString(strconv.FormatInt(l.MaxEntries, 10))
	b.WriteString(`,"truncated":`)
	b.WriteString(strconv.FormatBool(l.Truncated))
	b.WriteString(`,"truncated_reason":`)
	b.Write(l.TruncatedReason)
	b.WriteByte('}')
	return b.String()
}

// rewriteListing applies f to a list_directory result; output that is not
// a listing passes unchanged.
func rewriteListing(f func(*listing)) func(string) string {
	return func(out string) string {
		var l listing
		if err := json.Unmarshal([]byte(out), &l); err != nil || l.Path == nil {
			return out
		}
		f(&l)
		return l.render()
	}
}

// onListing is a list_directory mutant that rewrites the result.
func onListing(f func(*listing)) func(tool.Tool) tool.Tool {
	return onTool("list_directory", func(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
		return rewriteWithinBudget(inner, ctx, args, c, rewriteListing(f))
	})
}

// dirSize gives every directory entry a size, as a stat's st_size would
// (FR-LD-OUT-01's size_bytes is null for directories).
func dirSize(l *listing) {
	for i, e := range l.Entries {
		if key(e).Type == "dir" {
			l.Entries[i] = bytes.Replace(e, []byte(`"size_bytes":null`), []byte(`"size_bytes":4096`), 1)
		}
	}
}

// traversalOrder leaves the entries in depth-first pre-order, each
// directory's names sorted, and skips FR-LD-OUT-01's final sort by path:
// "a/x" then comes before "a-b" ('/' sorts after '-').
func traversalOrder(l *listing) {
	slices.SortStableFunc(l.Entries, func(a, b json.RawMessage) int {
		return slices.Compare(strings.Split(key(a).Path, "/"), strings.Split(key(b).Path, "/"))
	})
}

// wrongTruncatedReason reports max_entries for output-size truncation.
func wrongTruncatedReason(l *listing) {
	if string(l.TruncatedReason) == `"max_output_bytes"` {
		l.TruncatedReason = json.RawMessage(`"max_entries"`)
	}
}

// htmlEscape escapes <, > and & as \u003c, \u003e, \u0026, like Go's
// encoding/json with its default HTML escaping. In JSON text these bytes
// occur only inside strings.
func htmlEscape(out string) string {
	return strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`).Replace(out)
}

// budgetPlusOne gives the tool one byte more than effective_max.
func budgetPlusOne(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	return budgetPlus(1)(inner, ctx, args, c)
}

// budgetPlus gives the tool n bytes more than effective_max.
func budgetPlus(n int64) func(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	return func(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
		cc := *c
		cc.MaxOutputBytes = c.EffectiveMax() + n
		cc.AvailableCapacityBytes = cc.MaxOutputBytes
		out, err := inner(ctx, args, &cc)
		c.AllowTruncation = cc.AllowTruncation
		return out, err
	}
}

// followFS is a filesystem whose lstat follows symlinks: an entry that
// lstat shows as a symlink is stat'ed instead. Other entries keep their
// lstat result, so faults injected on lstat still show.
type followFS struct{ afero.Fs }

func (f followFS) LstatIfPossible(name string) (fs.FileInfo, bool, error) {
	fi, err := fsys.Lstat(f.Fs, name)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return fi, true, err
	}
	fi, err = f.Stat(name)
	return fi, true, err
}

// followSymlinks runs the tool on a filesystem whose lstat follows
// symlinks, so links are typed as their targets and linked directories
// are descended into.
func followSymlinks(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	cc := *c
	cc.FS = followFS{c.FS}
	out, err := inner(ctx, args, &cc)
	c.AllowTruncation = cc.AllowTruncation
	return out, err
}

// relist is a list_directory whose traversal a mutant changes: the call
// is made as sent (its errors and its effective max_entries stand), then
// again with the arguments rewritten by args, without an entry limit and
// without a budget. keep filters the full listing's entries and less
// orders them for the cut at max_entries; what is kept is sorted by path
// and fitted into the budget as the tool does (entries dropped from the
// end, reason max_output_bytes). With onlyIfFiltered, a full listing keep
// leaves whole gives the first call's answer: the rewritten arguments
// changed nothing (and names that differ only in invalid UTF-8 keep the
// order the tool gave them).
func relist(inner execFunc, ctx context.Context, raw json.RawMessage, c *tool.Ctx,
	args func(map[string]json.RawMessage), keep func(entryKey) bool, onlyIfFiltered bool, less func(a, b entryKey) int) (string, error) {
	out, err := inner(ctx, raw, c)
	var first listing
	if err != nil || json.Unmarshal([]byte(out), &first) != nil || first.Path == nil {
		return out, err
	}
	var a map[string]json.RawMessage
	if json.Unmarshal(raw, &a) != nil {
		return out, nil
	}
	delete(a, "max_entries")
	args(a)
	all, _ := json.Marshal(a)
	cc := *c
	cc.MaxOutputBytes, cc.AvailableCapacityBytes = 1<<40, 1<<40
	cc.Config.Tools = maps.Clone(c.Config.Tools)
	if cc.Config.Tools == nil {
		cc.Config.Tools = map[string]json.RawMessage{}
	}
	table := map[string]json.RawMessage{}
	_ = json.Unmarshal(c.Config.Tools["list_directory"], &table)
	table["max_entries"] = json.RawMessage("1000000000")
	cc.Config.Tools["list_directory"], _ = json.Marshal(table)
	full, err := inner(ctx, all, &cc)
	var l listing
	if err != nil || json.Unmarshal([]byte(full), &l) != nil {
		return out, nil
	}
	kept := l.Entries[:0]
	for _, e := range l.Entries {
		if keep(key(e)) {
			kept = append(kept, e)
		}
	}
	if onlyIfFiltered && len(kept) == len(l.Entries) {
		return out, nil
	}
	slices.SortStableFunc(kept, func(a, b json.RawMessage) int { return less(key(a), key(b)) })
	l.MaxEntries, l.Truncated, l.TruncatedReason = first.MaxEntries, false, json.RawMessage("null")
	if int64(len(kept)) > first.MaxEntries {
		kept = kept[:first.MaxEntries]
		l.Truncated, l.TruncatedReason = true, json.RawMessage(`"max_entries"`)
	}
	l.Entries = kept
	slices.SortStableFunc(l.Entries, func(a, b json.RawMessage) int { return strings.Compare(key(a).Path, key(b).Path) })
	c.AllowTruncation = false
	for {
		l.Returned = int64(len(l.Entries))
		if got := l.render(); int64(len(got)) <= c.EffectiveMax() || len(l.Entries) == 0 {
			return got, nil
		}
		l.Entries = l.Entries[:len(l.Entries)-1]
		l.Truncated, l.TruncatedReason = true, json.RawMessage(`"max_output_bytes"`)
	}
}

// dfsOrder is depth-first pre-order, each directory's names ascending.
func dfsOrder(a, b entryKey) int {
	return slices.Compare(strings.Split(a.Path, "/"), strings.Split(b.Path, "/"))
}

// breadthFirst keeps the first max_entries entries of a level-by-level
// traversal instead of a depth-first pre-order one (FR-LD-LST-05).
func breadthFirst(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	return relist(inner, ctx, args, c, func(map[string]json.RawMessage) {}, func(entryKey) bool { return true }, false,
		func(a, b entryKey) int {
			if a.Depth != b.Depth {
				return int(a.Depth - b.Depth)
			}
			return dfsOrder(a, b)
		})
}

// traverseHidden descends into hidden directories when include_hidden is
// false, still leaving out the hidden entries themselves: it lists with
// include_hidden and drops the entries whose own name is hidden, so the
// entries under a hidden directory are listed and counted.
func traverseHidden(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	var a struct {
		IncludeHidden *bool `json:"include_hidden"`
	}
	var t struct {
		IncludeHiddenDefault bool `json:"include_hidden_default"`
	}
	_ = json.Unmarshal(args, &a)
	_ = json.Unmarshal(c.Config.Tools["list_directory"], &t)
	if (a.IncludeHidden != nil && *a.IncludeHidden) || (a.IncludeHidden == nil && t.IncludeHiddenDefault) {
		return inner(ctx, args, c)
	}
	return relist(inner, ctx, args, c,
		func(m map[string]json.RawMessage) { m["include_hidden"] = json.RawMessage("true") },
		func(k entryKey) bool { return !k.IsHidden }, true, dfsOrder)
}
