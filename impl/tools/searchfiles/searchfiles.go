// Package searchfiles is the reference implementation of Forge's built-in
// search_files tool (SEARCH_FILES_SRD.md v1.0), read as recorded in
// spec/search-files-interpretations.draft.md (I-SF-01..) and, where the
// SRD uses the same words, spec/INTERPRETATIONS.md (I-LD-01..03, I-LD-05,
// I-LD-11, I-SBX-*).
//
// A call validates its arguments, validates the path with the sandbox, and
// searches the directory tree: one goroutine walks it depth-first in the
// order of the output paths (never entering symlinked directories, hidden
// entries unless asked, ignored or denied paths), a bounded pool of
// workers reads and searches the candidate files in parallel, and the
// calling goroutine merges their results in traversal order, so the limits
// (max_results, max_files) cut at the same place on every run and the
// output is deterministic. All filesystem access goes through the call's
// afero.Fs via package fsys, so permission emulation and fault injection
// apply.
//
// Backends (CFG-SF-01/03): native matches in Go. With backend "rg" or
// "ugrep" every call first checks the binary (I-SF-15); the filters,
// binary detection, limits, ordering and rendering stay in the shared
// code. On the operating system's filesystem the binary opens and
// searches the walker's candidate files itself, one process per chunk of
// them, and the shared reader re-reads only the files it reports
// (direct.go); files whose raw bytes differ from the lines the SRD
// searches (a CR, for ugrep a BOM), failed runs, and filesystems the
// binary cannot see get the stdin mode, where the binary finds the
// matches in the lines the shared reader read (I-SF-20..22, backend.go,
// external.go, translate.go). Where every rule that picks the candidates
// has an exact rg equivalent and max_files is large, rg also walks the
// tree itself, in one run, and the walker runs only when that run cannot
// settle the search alone (tree.go).
package searchfiles

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"io/fs"
	"slices"
	"syscall"
	"time"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// Name is the tool's name (FR-SF-DEF-01).
const Name = "search_files"

// Description is the tool's description (FR-SF-DEF-02).
const Description = "Search file contents"

//go:embed schema.json
var schema []byte

// now is the clock elapsed_ms is measured with; tests replace it.
var now = time.Now

// Tool is the search_files executor. The zero value is ready to use; New
// returns one that caches the backend binary's version check.
type Tool struct {
	bins *binChecker
	opts Options
	// environ is the environment whose PATH holds the rg and ugrep
	// binaries (CFG-SF-03); nil means the process's.
	environ func() []string
}

var (
	_ tool.Tool      = Tool{}
	_ tool.Timeouter = Tool{}
)

// Name implements tool.Tool.
func (Tool) Name() string { return Name }

// Description implements tool.Tool.
func (Tool) Description() string { return Description }

// Schema returns the SRD's normative schema (§3.2) under Draft 2020-12.
func (Tool) Schema() json.RawMessage { return slices.Clone(schema) }

// SideEffecting implements tool.Tool: the tool is read-only (FR-SF-DEF-03).
func (Tool) SideEffecting() bool { return false }

// RequiresApproval implements tool.Tool (FR-SF-DEF-04).
func (Tool) RequiresApproval() bool { return false }

// RiskLevel implements tool.Tool (FR-SF-DEF-04).
func (Tool) RiskLevel() tool.RiskLevel { return tool.Low }

// Timeout is [tools.timeouts] file_operations_seconds (CFG-TMO-01a).
func (Tool) Timeout(cfg config.Config) time.Duration { return tool.FileOperationsTimeout(cfg) }

// ApprovalSummary is `Search <path> for "<query>"` (I-SF-17), <path>
// normalized, secrets redacted and cut to 200 characters by
// tool.Summarize. It validates the arguments as Execute does and touches
// no file.
func (t Tool) ApprovalSummary(raw json.RawMessage, c config.Config) (string, error) {
	req, err := prepare(raw, c, t.opts)
	if err != nil {
		return "", err
	}
	return tool.Summarize("Search " + req.display + ` for "` + req.query + `"`), nil
}

// prepare is the I/O-free front half of a call: configuration, typed
// parsing and argument validation (I-SF-02).
func prepare(raw json.RawMessage, c config.Config, opts Options) (*request, error) {
	cfg, err := loadConfig(c)
	if err != nil {
		return nil, err
	}
	a, err := parseArgs(raw)
	if err != nil {
		return nil, err
	}
	req, err := resolve(a, cfg, opts)
	if err != nil {
		return nil, err
	}
	return &req, nil
}

// Execute searches the requested directory and returns the JSON object of
// §3.5. Failures are *toolerr.Error values.
func (t Tool) Execute(ctx context.Context, raw json.RawMessage, c *tool.Ctx) (string, error) {
	start := now()
	req, err := prepare(raw, c.Config, t.opts)
	if err != nil {
		return "", err
	}
	bin, err := t.bins.checkBackend(ctx, req.backend, req.ext != nil && req.ext.pcre2, environPath(t.environ)) // CFG-SF-03, I-SF-15
	if err != nil {
		if ctx.Err() != nil {
			kind := toolerr.Cancelled
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				kind = toolerr.Timeout
			}
			return "", toolerr.New(kind, "search of %s stopped: %v", req.display, ctx.Err())
		}
		return "", err
	}
	if req.ext != nil {
		req.ext.path = bin
	}
	if c.Sandbox == nil {
		return "", toolerr.Failed(Name, "no sandbox configured; the caller must build one from [tools.sandbox]")
	}
	root, err := c.Sandbox.Validate(req.path) // FR-SF-VAL-06
	if err != nil {
		return "", err
	}
	info, err := fsys.Stat(c.FS, root)
	switch { // FR-SF-VAL-07, FR-SF-ERR-03
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.ELOOP):
		return "", toolerr.Failed(Name, "path does not exist: %s; search an existing directory (paths are relative to the working directory)", req.display)
	case err != nil:
		return "", toolerr.Failed(Name, "cannot access path %s: %s", req.display, fsys.ErrText(err))
	case !info.IsDir():
		return "", toolerr.Failed(Name, "path is not a directory: %s; pass the directory that holds the file", req.display)
	}
	ents, err := readDir(c.FS, root, false, nil)
	if err != nil {
		return "", toolerr.Failed(Name, "cannot read directory %s: %s", req.display, fsys.ErrText(err))
	}
	patterns, err := deniedPatterns(c.Config)
	if err != nil {
		return "", toolerr.Failed(Name, "invalid configuration: %v", err)
	}

	deny := newDenyMatcher(patterns)
	if c.Sandbox.Options().Globset {
		deny = sandboxDenyMatcher(c.Sandbox)
	}
	o, err := search(ctx, c.FS, c.Sandbox, req, deny, root, ents)
	var te *toolerr.Error
	if errors.As(err, &te) {
		return "", te
	}
	if err != nil {
		kind := toolerr.Cancelled
		if errors.Is(err, context.DeadlineExceeded) {
			kind = toolerr.Timeout
		}
		return "", toolerr.New(kind, "search of %s stopped: %v", req.display, err)
	}
	if t.opts.CharColumns {
		charColumns(o.matches)
	}
	elapsed := now().Sub(start).Milliseconds()
	out, err := render(req, o, elapsed, c.EffectiveMax())
	if err != nil {
		return "", err
	}
	c.AllowTruncation = false // FR-SF-OUT-04
	return out, nil
}
