// Package codexlistdir reproduces the Codex CLI's list_dir tool
// (codex-rs/core/src/tools/handlers/list_dir.rs, described in
// CODEX_LIST_DIR.md) as a reference tool, read as recorded in
// spec/INTERPRETATIONS.md (I-CX-01..05).
//
// The tool takes an absolute dir_path, runs no sandbox, collects entries
// breadth-first down to depth levels, sorts them by their lossy relative
// path, and returns an offset/limit window as indented text lines.
package codexlistdir

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/lossy"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// Name is the tool's name.
const Name = "list_dir"

// Description is Codex's description of the tool.
const Description = "Lists entries in a local directory with 1-indexed entry numbers and simple type labels."

const (
	maxEntryLength    = 500 // MAX_ENTRY_LENGTH, bytes
	indentationSpaces = 2   // INDENTATION_SPACES
	maxSummaryChars   = 200 // FR-APR-01
)

//go:embed schema.json
var schema []byte

// Tool is the Codex list_dir executor. The zero value takes the
// reference's readings of I-CX-01 (spec/INTERPRETATIONS.md).
type Tool struct {
	// Options choose among the readings CODEX_LIST_DIR.md allows.
	Options Options
}

// Options are the readings of CODEX_LIST_DIR.md the tool can take besides
// the reference's (package impl/readings names them). The zero value is
// the reference's.
type Options struct {
	// IgnoreUnknown drops "additionalProperties": false from the schema, so
	// that an argument the handler's ListDirArgs does not name is ignored,
	// as serde ignores unknown fields (the seed names that struct as the
	// parsing authority), instead of failing schema validation (I-CX-01,
	// reading ignore-unknown).
	IgnoreUnknown bool
	// ExecutionFailed reports every error of the handler itself (argument
	// parsing and validation included) as ExecutionFailed, Codex's one
	// error form RespondToModel carrying no kind (I-CX-01, reading
	// execution-failed). Cancellation and timeouts keep their kinds.
	ExecutionFailed bool
}

var _ tool.Tool = Tool{}

// Name implements tool.Tool.
func (Tool) Name() string { return Name }

// Description implements tool.Tool.
func (Tool) Description() string { return Description }

// Schema is create_list_dir_tool's parameters under Draft 2020-12;
// without "additionalProperties": false under Options.IgnoreUnknown.
func (t Tool) Schema() json.RawMessage {
	if !t.Options.IgnoreUnknown {
		return slices.Clone(schema)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(schema, &m); err != nil {
		panic("codexlistdir: embedded schema.json: " + err.Error())
	}
	delete(m, "additionalProperties")
	out, err := json.Marshal(m)
	if err != nil {
		panic("codexlistdir: schema: " + err.Error())
	}
	return out
}

// SideEffecting implements tool.Tool: the tool only reads.
func (Tool) SideEffecting() bool { return false }

// RequiresApproval implements tool.Tool.
func (Tool) RequiresApproval() bool { return false }

// RiskLevel implements tool.Tool.
func (Tool) RiskLevel() tool.RiskLevel { return tool.Low }

// ApprovalSummary is "List <dir_path>", dir_path as given, after the same
// parsing and validation as Execute; it touches no file.
func (t Tool) ApprovalSummary(raw json.RawMessage, _ config.Config) (string, error) {
	a, err := parseArgs(raw)
	if err == nil {
		err = validate(a)
	}
	if err != nil {
		return "", t.kind(err)
	}
	return truncateSummary("List " + a.DirPath), nil
}

// kind applies Options.ExecutionFailed to an error of the handler.
func (t Tool) kind(err error) error {
	var te *toolerr.Error
	if !t.Options.ExecutionFailed || !errors.As(err, &te) || te.Kind != toolerr.BadArgs {
		return err
	}
	failed := *te
	failed.Kind = toolerr.ExecutionFailed
	return &failed
}

func truncateSummary(s string) string {
	if utf8.RuneCountInString(s) <= maxSummaryChars {
		return s
	}
	n := 0
	for i := range s {
		if n == maxSummaryChars-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// kind is DirEntryKind.
type kind int

const (
	kindDirectory kind = iota
	kindFile
	kindSymlink
	kindOther
)

// dirEntry is one collected entry: sortKey is the capped lossy relative
// path with "\" replaced by "/", name the capped lossy file name, depth the
// number of components above it (0 at the top level).
type dirEntry struct {
	sortKey string
	name    string
	depth   int
	kind    kind
}

// Execute lists dir_path and returns Codex's text output. Errors follow
// I-CX-01: BadArgs for arguments, ExecutionFailed otherwise (every one
// ExecutionFailed under Options.ExecutionFailed).
func (t Tool) Execute(ctx context.Context, raw json.RawMessage, c *tool.Ctx) (string, error) {
	out, err := execute(ctx, raw, c)
	if err != nil {
		return "", t.kind(err)
	}
	return out, nil
}

func execute(ctx context.Context, raw json.RawMessage, c *tool.Ctx) (string, error) {
	a, err := parseArgs(raw)
	if err != nil {
		return "", err
	}
	if err := validate(a); err != nil {
		return "", err
	}
	entries, err := collect(ctx, c.FS, a.DirPath, a.Depth)
	if err != nil {
		return "", err
	}
	lines := []string{"Absolute path: " + a.DirPath}
	window, err := slice(entries, a.Offset, a.Limit)
	if err != nil {
		return "", err
	}
	return strings.Join(append(lines, window...), "\n"), nil
}

// slice is list_dir_slice after collection: a global sort by sort key
// (stable, where Codex's sort_unstable leaves ties unspecified, I-CX-03),
// then the 1-indexed offset/limit window and the "More than" line.
func slice(entries []dirEntry, offset, limit uint64) ([]string, error) {
	if len(entries) == 0 {
		return nil, nil // I-CX-04: offset is not checked
	}
	slices.SortStableFunc(entries, func(x, y dirEntry) int { return cmp.Compare(x.sortKey, y.sortKey) })
	start := offset - 1
	if start >= uint64(len(entries)) {
		return nil, toolerr.Failed(Name, "offset exceeds directory entry count")
	}
	capped := min(limit, uint64(len(entries))-start)
	end := start + capped
	out := make([]string, 0, capped+1)
	for _, e := range entries[start:end] {
		out = append(out, formatLine(e))
	}
	if end < uint64(len(entries)) {
		out = append(out, fmt.Sprintf("More than %d entries found", capped))
	}
	return out, nil
}

func formatLine(e dirEntry) string {
	suffix := ""
	switch e.kind {
	case kindDirectory:
		suffix = "/"
	case kindSymlink:
		suffix = "@"
	case kindOther:
		suffix = "?"
	}
	return strings.Repeat(" ", e.depth*indentationSpaces) + e.name + suffix
}

// queued is a directory waiting in the breadth-first queue.
type queued struct {
	path      string // filesystem path: dir_path as given, then joined names
	prefix    string // lossy relative path, "" at the top
	depth     int    // components in prefix
	remaining uint64 // remaining depth, >= 1
}

// collect is collect_entries: breadth-first from dirPath; each directory's
// entries sorted by sort key; a directory is queued only while its parent's
// remaining depth exceeds 1. Any unreadable directory fails the call.
func collect(ctx context.Context, afs afero.Fs, dirPath string, depth uint64) ([]dirEntry, error) {
	var entries []dirEntry
	var inspectErr error // the first entry whose type could not be read
	queue := []queued{{path: dirPath, remaining: depth}}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if err := ctx.Err(); err != nil {
			kind := toolerr.Cancelled
			if errors.Is(err, context.DeadlineExceeded) {
				kind = toolerr.Timeout
			}
			return nil, toolerr.New(kind, "list_dir stopped: %v", err)
		}
		names, err := readDir(afs, cur.path)
		if err != nil {
			return nil, toolerr.Failed(Name, "failed to read directory: %s", rustIOError(err))
		}
		type pending struct {
			entry     dirEntry
			path      string
			lossyRel  string
			isDirKind bool
		}
		batch := make([]pending, 0, len(names))
		for _, n := range names {
			path := joinPath(cur.path, n)
			// Deviation: Codex reads the type from the directory entry
			// (d_type), which needs no search permission on the directory
			// and never fails; afero has no d_type, so the type comes from
			// lstat, which fails in a directory that grants read but not
			// search. Such a failure is held back: a later unreadable
			// directory still fails the call with Codex's own message, and
			// only a call that would otherwise succeed reports it.
			info, err := fsys.Lstat(afs, path)
			if err != nil {
				if inspectErr == nil {
					inspectErr = toolerr.Failed(Name, "failed to inspect entry: %s", rustIOError(err))
				}
				continue
			}
			k := kindOf(info.Mode())
			rel := fsys.JoinRel(cur.prefix, lossy.String(n))
			batch = append(batch, pending{
				entry: dirEntry{
					sortKey: capBytes(strings.ReplaceAll(rel, `\`, "/")),
					name:    capBytes(lossy.String(n)),
					depth:   cur.depth,
					kind:    k,
				},
				path:      path,
				lossyRel:  rel,
				isDirKind: k == kindDirectory,
			})
		}
		slices.SortStableFunc(batch, func(x, y pending) int { return cmp.Compare(x.entry.sortKey, y.entry.sortKey) })
		for _, p := range batch {
			if p.isDirKind && cur.remaining > 1 {
				queue = append(queue, queued{
					path: p.path, prefix: p.lossyRel,
					depth: cur.depth + 1, remaining: cur.remaining - 1,
				})
			}
			entries = append(entries, p.entry)
		}
	}
	if inspectErr != nil {
		return nil, inspectErr
	}
	return entries, nil
}

// readDir returns the names of dir, "." and ".." excluded, in raw byte
// order. A path with a NUL byte fails as Rust's path
// conversion does.
func readDir(afs afero.Fs, dir string) ([]string, error) {
	if strings.IndexByte(dir, 0) >= 0 {
		return nil, nulInPath{}
	}
	names, err := fsys.ReadDirNames(afs, dir)
	if err != nil {
		return nil, err
	}
	names = slices.DeleteFunc(names, func(n string) bool { return n == "." || n == ".." })
	// Codex keeps read_dir order for entries whose capped sort keys tie;
	// raw-byte order makes those ties deterministic here (I-CX-03).
	slices.Sort(names)
	return names, nil
}

// nulInPath is Rust's io::Error for a path with an interior NUL byte.
type nulInPath struct{}

func (nulInPath) Error() string { return "file name contained an unexpected NUL byte" }

func kindOf(m fs.FileMode) kind {
	switch {
	case m&fs.ModeSymlink != 0:
		return kindSymlink
	case m.IsDir():
		return kindDirectory
	case m.IsRegular():
		return kindFile
	}
	return kindOther
}

// capBytes is take_bytes_at_char_boundary(s, MAX_ENTRY_LENGTH) for strings
// longer than the cap: the longest prefix of at most 500 bytes that ends on
// a character boundary.
func capBytes(s string) string {
	if len(s) <= maxEntryLength {
		return s
	}
	end := maxEntryLength
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end]
}

// joinPath is Path::join for a name without separators.
func joinPath(dir, name string) string {
	if strings.HasSuffix(dir, "/") {
		return dir + name
	}
	return dir + "/" + name
}

// rustIOError formats err as Rust's io::Error Display does for an OS
// error: glibc's strerror text and "(os error N)". Go's errno strings are
// glibc's with a lower-case first letter.
func rustIOError(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		msg := errno.Error()
		if msg != "" {
			msg = strings.ToUpper(msg[:1]) + msg[1:]
		}
		return fmt.Sprintf("%s (os error %d)", msg, int(errno))
	}
	return err.Error()
}
