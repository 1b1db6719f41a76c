// Package listdir is the reference implementation of Forge's built-in
// list_directory tool (LIST_DIRECTORY_SRD.md v1.1), read as recorded in
// spec/INTERPRETATIONS.md (I-LD-01..14).
//
// A call validates its arguments (I-LD-12), validates the path with the
// sandbox, walks the tree depth-first pre-order without following symlinks,
// stops as soon as max_entries is exceeded, sorts what it kept by relative
// path and returns one canonical JSON object that fits the output budget.
// All filesystem access goes through the call's afero.Fs via package fsys.
package listdir

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"slices"
	"syscall"
	"unicode/utf8"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/lossy"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// Name is the tool's name (FR-LD-DEF-01).
const Name = "list_directory"

// Description is the tool's description (FR-LD-DEF-02).
const Description = "List directory entries"

// maxSummaryChars bounds ApprovalSummary (FR-APR-01, FR-APR-06).
const maxSummaryChars = 200

//go:embed schema.json
var schema []byte

// Tool is the list_directory executor. The zero value takes the
// reference's readings (spec/INTERPRETATIONS.md I-LD-*).
type Tool struct {
	// Options choose among the readings LIST_DIRECTORY_SRD.md allows.
	Options Options
}

// Options are the readings of LIST_DIRECTORY_SRD.md the tool can take
// besides the reference's (package impl/readings names them). The zero
// value is the reference's.
type Options struct {
	// PerByteLossy replaces every byte of an ill-formed UTF-8 sequence in
	// a name with its own U+FFFD instead of one per maximal subpart
	// (I-LD-01, reading per-byte).
	PerByteLossy bool
	// VanishedCode is the error_code of an entry that vanished between
	// reading its directory and its lstat (ENOENT): "" for the reference's
	// metadata_unavailable, or "io_error" or "unknown", which the SRD's
	// list of codes also allows (I-LD-09, readings vanished-io-error and
	// vanished-unknown).
	VanishedCode string
	// KeepDirEntry keeps an unreadable directory's own `dir` entry and adds
	// its read_dir_failed entry as one more entry of the same path, instead
	// of turning the directory's entry into the error entry (I-LD-08,
	// reading keep-dir-entry).
	KeepDirEntry bool
}

var _ tool.Tool = Tool{}

// Name implements tool.Tool.
func (Tool) Name() string { return Name }

// Description implements tool.Tool.
func (Tool) Description() string { return Description }

// Schema returns the SRD's normative schema (§3.2) under Draft 2020-12.
func (Tool) Schema() json.RawMessage { return slices.Clone(schema) }

// SideEffecting implements tool.Tool: the tool is read-only (FR-LD-DEF-03).
func (Tool) SideEffecting() bool { return false }

// RequiresApproval implements tool.Tool (FR-LD-DEF-04).
func (Tool) RequiresApproval() bool { return false }

// RiskLevel implements tool.Tool (FR-LD-DEF-04).
func (Tool) RiskLevel() tool.RiskLevel { return tool.Low }

// ApprovalSummary is "List <path>" or, for a recursive call, "List <path>
// depth N" with the effective depth (I-LD-14), <path> normalized. It parses
// and validates the arguments exactly as Execute does and touches no file.
func (t Tool) ApprovalSummary(raw json.RawMessage, c config.Config) (string, error) {
	req, err := t.prepare(raw, c)
	if err != nil {
		return "", err
	}
	s := "List " + req.display
	if req.recursive {
		s += fmt.Sprintf(" depth %d", req.maxDepth)
	}
	return truncateSummary(s), nil
}

// truncateSummary keeps at most maxSummaryChars characters, the last of
// them "…" when anything was cut.
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

// prepare is the shared, I/O-free front half of a call: configuration,
// typed parsing and argument validation.
func (t Tool) prepare(raw json.RawMessage, c config.Config) (request, error) {
	cfg, err := loadConfig(c)
	if err != nil {
		return request{}, err
	}
	a, err := parseArgs(raw)
	if err != nil {
		return request{}, err
	}
	req, err := resolve(a, cfg)
	req.lossy, req.vanishedCode, req.keepDirEntry = lossy.String, t.Options.VanishedCode, t.Options.KeepDirEntry
	if t.Options.PerByteLossy {
		req.lossy = lossy.PerByte
	}
	return req, err
}

// Execute lists the requested directory and returns the JSON object of
// §3.5. Failures are *toolerr.Error values.
func (t Tool) Execute(ctx context.Context, raw json.RawMessage, c *tool.Ctx) (string, error) {
	req, err := t.prepare(raw, c.Config)
	if err != nil {
		return "", err
	}
	if c.Sandbox == nil {
		return "", toolerr.Failed(Name, "no sandbox configured; the caller must build one from [tools.sandbox]")
	}
	root, err := c.Sandbox.Validate(req.path)
	if err != nil {
		return "", err
	}
	info, err := fsys.Stat(c.FS, root)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.ELOOP):
		// What Rust's Path::exists reports as absent: a missing component,
		// a file used as a directory, a symlink loop.
		return "", toolerr.Failed(Name, "path does not exist: %s; list an existing directory (paths are relative to the working directory)", req.display)
	case err != nil:
		return "", toolerr.Failed(Name, "cannot access path %s: %s", req.display, fsys.ErrText(err))
	case !info.IsDir():
		return "", toolerr.Failed(Name, "path is not a directory: %s; pass a directory, or use read_file for a file", req.display)
	}
	w := newWalker(ctx, c.FS, req)
	names, err := w.readDir(root)
	if err != nil {
		return "", toolerr.Failed(Name, "cannot read directory %s: %s", req.display, fsys.ErrText(err))
	}
	if w.os && req.recursive && req.maxDepth > 1 {
		// The walk keeps one processor busy; the readers take the rest.
		w.reader = newReader(req.includeHidden, req.lossy, max(1, runtime.GOMAXPROCS(0)-1))
	}
	entries, err := w.walk(&dirNode{abs: root, depth: 1, names: names})
	if w.reader != nil {
		w.reader.close()
	}
	if err != nil {
		kind := toolerr.Cancelled
		if errors.Is(err, context.DeadlineExceeded) {
			kind = toolerr.Timeout
		}
		return "", toolerr.New(kind, "listing of %s stopped: %v", req.display, err)
	}
	sortEntries(entries)

	out, err := render(req, entries, w.truncated, c.EffectiveMax())
	if err != nil {
		return "", err
	}
	c.AllowTruncation = false // FR-LD-OUT-04
	return out, nil
}
