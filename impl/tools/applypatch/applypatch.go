// Package applypatch is the reference implementation of Forge's built-in
// apply_patch tool (TOOL_EXECUTOR_SRD.md §3.6.9, FR-TOOL-PATCH-01/02), read
// as recorded in spec/INTERPRETATIONS.md (I-AP-01..06). Patches are LP1
// (LP1.md), parsed and applied by package lp1.
//
// A call, in order:
//
//  1. parses the patch (PatchFailed with an empty file and "line N: ..."
//     when it does not parse, I-AP-04);
//  2. validates every distinct path with the sandbox (SandboxViolation);
//  3. checks every file: an existing entry must be a regular file
//     (PatchFailed) that this conversation has read with read_file and
//     that still has the SHA-256 recorded then (StaleFile,
//     FR-TOOL-PATCH-02a/b/d); a missing file may only be created;
//  4. stages every edit in memory: decode, apply the file's sections in
//     patch order (I-AP-03), encode (PatchFailed naming the file and the
//     patch line);
//  5. commits (I-AP-06): every changed file is written to a temp file in
//     its own directory and synced, then all temp files are renamed into
//     place; if anything fails, files already replaced are restored from
//     their staged originals and every temp file is removed, so a failed
//     call leaves every file byte-identical (FR-TOOL-PATCH-01a);
//  6. records the new SHA-256 of every written file in the read cache
//     (I-AP-05) and reports "created: <path>" / "modified: <path>" per
//     changed file, or "No changes applied." (I-AP-02).
//
// Nothing is written before steps 1-4 have succeeded for every file.
//
// That is the reference's reading; Tool.Options takes the others the SRD
// allows (path spelling, cache after a patch, repeated sections, the file
// and line numbers of errors, LP1's own readings), named in impl/readings.
//
// File creation policy (LP1's backend policy, I-AP-01): a file that does
// not exist can be created only by a patch whose first operation on it is
// T (append) or B (prepend); it needs no prior read, gets mode 0644, and
// its directory must exist (directories are never created). Any other
// operation on a missing file fails with PatchFailed "file not found".
// The file is created even when the block is empty. A new file is linked
// into place with an operation that fails if the name exists, so a racing
// creator is never overwritten. Files are never deleted.
//
// A patched file keeps its permission bits (and, where the process may set
// them, its owner); all filesystem access goes through the call's afero.Fs,
// with no-follow opens for reads and temp files (FR-VAL-06).
package applypatch

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/lp1"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// Name is the tool's name.
const Name = "apply_patch"

// Description is the tool's description.
const Description = "Apply an LP1 patch to files"

// DefaultMaxPatchBytes is CFG-PATCH-01's built-in max_patch_bytes.
const DefaultMaxPatchBytes = 524288

//go:embed schema.json
var schema []byte

// Tool is the apply_patch executor.
type Tool struct {
	// MissingFile is the lp1_missing_file policy (spec/PROTOCOL.md):
	// "create" (or empty) creates a missing file with T/B as described
	// above (I-AP-01); "refuse" answers StaleFile "File was not read before
	// patching" for a missing file not read in the conversation, as for
	// any file not read.
	MissingFile string
	// Dialect, when set, reads and applies patches its own way instead of
	// package lp1's (impl/forgelike sets Forge's, observed in its code): every
	// parse, decode and apply goes through it, and its errors are the
	// whole PatchFailed message (no line prefix, no advice). Sandbox,
	// stale-file checks, creation policy and the atomic commit stay the
	// tool's. nil is LP1 as package lp1 reads it.
	Dialect Dialect
	// Options choose among the readings the SRD allows; the zero value is
	// the reference's.
	Options Options
}

// Options are the readings of apply_patch the tool can take where the SRD
// leaves room (spec/INTERPRETATIONS.md; package impl/readings names them).
// The zero value is the reference's reading of each.
type Options struct {
	// PathForm spells <path> in "modified: <path>" and "created: <path>"
	// (I-AP-02): PathAsWritten (or empty), PathCanonical or PathRelative.
	PathForm string
	// KeepCache leaves the read cache as it was after a successful patch
	// (I-AP-05 "not-refreshed"): the cache then holds what read_file
	// recorded, so patching a file again needs a new read_file
	// (FR-TOOL-PATCH-02b's "since the last read_file call"). false records
	// the new SHA-256 of every written file.
	KeepCache bool
	// SectionsFromDisk applies each F section to the file's bytes on disk,
	// not to what earlier sections of the patch made of it (I-AP-03
	// "from-disk"): every section must apply to the original content, the
	// last section's result is written, and the file gets one output line
	// per section, in section order. false applies a file's sections in
	// order to the evolving content.
	SectionsFromDisk bool
	// LP1 are the readings of LP1 itself (I-LP-01, I-LP-09, I-LP-11) the
	// tool parses and applies patches with.
	LP1 lp1.Options
	// ParseErrorFile is the error's file for a patch that does not parse
	// (I-AP-04): empty (the reference's) or, e.g., "<patch>".
	ParseErrorFile string
	// NoLineNumbers leaves the "line N: " prefix out of PatchFailed
	// messages (I-LP-15 "no-line-numbers").
	NoLineNumbers bool
}

// Path forms of the success lines (Options.PathForm).
const (
	// PathAsWritten is the path of the file's first F line, decoded.
	PathAsWritten = "as-written"
	// PathCanonical is the canonical absolute path the sandbox resolved.
	PathCanonical = "canonical"
	// PathRelative is the path relative to the working directory, cleaned.
	PathRelative = "relative"
)

// Dialect is another reading of LP1 (Tool.Dialect): how a patch parses,
// how file bytes decode, and how a section's operations apply.
type Dialect interface {
	Parse(patch string) (*lp1.Patch, error)
	Decode(content []byte) (lp1.File, error)
	Apply(f lp1.File, ops []lp1.Op) (lp1.File, error)
}

// Missing-file policies.
const (
	MissingFileCreate = "create"
	MissingFileRefuse = "refuse"
)

var (
	_ tool.Tool      = Tool{}
	_ tool.Timeouter = Tool{}
)

// Name implements tool.Tool.
func (Tool) Name() string { return Name }

// Description implements tool.Tool.
func (Tool) Description() string { return Description }

// Schema implements tool.Tool: one required string "patch", nothing else.
func (Tool) Schema() json.RawMessage { return slices.Clone(schema) }

// SideEffecting implements tool.Tool: the tool writes files.
func (Tool) SideEffecting() bool { return true }

// RequiresApproval implements tool.Tool. It is false: the approval policy
// prompts for side-effecting tools unless they are allowlisted.
func (Tool) RequiresApproval() bool { return false }

// RiskLevel implements tool.Tool (FR-APR-06: apply_patch is Medium).
func (Tool) RiskLevel() tool.RiskLevel { return tool.Medium }

// Timeout implements tool.Timeouter: [tools.timeouts]
// file_operations_seconds (default 30 s, CFG-TMO-01a).
func (Tool) Timeout(cfg config.Config) time.Duration { return tool.FileOperationsTimeout(cfg) }

// ApprovalSummary is "Apply patch to <n> file(s): <file1>, <file2>" with
// the distinct paths as written, in order of first appearance, secrets
// redacted and cut to 200 characters (FR-APR-01, FR-APR-06). It parses the
// patch exactly as Execute does and touches no file (FR-REG-01a); a patch
// that does not parse fails as Execute fails it, PatchFailed (LP1 failures
// map to PatchFailed, §3.6.9), so the call is pre-resolved without a
// prompt.
func (t Tool) ApprovalSummary(raw json.RawMessage, c config.Config) (string, error) {
	text, err := prepare(raw, c)
	if err != nil {
		return "", err
	}
	p, err := t.parse(text)
	if err != nil {
		return "", t.patchFailed(&toolerr.Error{Kind: toolerr.PatchFailed, Message: err.Error()})
	}
	paths := distinctPaths(p)
	s := fmt.Sprintf("Apply patch to %d file(s)", len(paths))
	if len(paths) > 0 {
		s += ": " + strings.Join(paths, ", ")
	}
	return tool.Summarize(s), nil
}

// Config mirrors the [tools.apply_patch] table (CFG-PATCH-01).
type Config struct {
	MaxPatchBytes int64 `json:"max_patch_bytes"`
}

// DefaultConfig returns CFG-PATCH-01's built-in values.
func DefaultConfig() Config { return Config{MaxPatchBytes: DefaultMaxPatchBytes} }

// loadConfig decodes [tools.apply_patch] over the defaults.
func loadConfig(c config.Config) (Config, error) {
	cfg := DefaultConfig()
	if err := c.Table(Name, &cfg); err != nil {
		return cfg, toolerr.Failed(Name, "invalid configuration: %v; fix the [tools.apply_patch] table", err)
	}
	if cfg.MaxPatchBytes < 1 {
		return cfg, toolerr.Failed(Name, "invalid configuration: [tools.apply_patch] max_patch_bytes is %d; set it to 1 or more", cfg.MaxPatchBytes)
	}
	return cfg, nil
}

// prepare is the shared, I/O-free front of a call: configuration, typed
// parsing (FR-REG-02) and the size limit. It returns the patch text.
func prepare(raw json.RawMessage, c config.Config) (string, error) {
	cfg, err := loadConfig(c)
	if err != nil {
		return "", err
	}
	text, err := parseArgs(raw)
	if err != nil {
		return "", err
	}
	if int64(len(text)) > cfg.MaxPatchBytes {
		return "", toolerr.New(toolerr.BadArgs,
			"the patch is %d bytes, over the limit of %d bytes ([tools.apply_patch] max_patch_bytes); split it into smaller patches",
			len(text), cfg.MaxPatchBytes)
	}
	return text, nil
}

// parseArgs is the single parse boundary: the "patch" string. Keys match
// exactly; the schema already refused any other key.
func parseArgs(raw json.RawMessage) (string, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return "", toolerr.New(toolerr.BadArgs, `arguments must be a JSON object such as {"patch":"LP1\nF a.txt\n...\nEND\n"}`)
	}
	v, ok := fields["patch"]
	if !ok {
		return "", toolerr.New(toolerr.BadArgs, `missing required argument "patch"; send the LP1 patch as a string`)
	}
	var text string
	if bytes.Equal(bytes.TrimSpace(v), []byte("null")) || json.Unmarshal(v, &text) != nil {
		return "", toolerr.New(toolerr.BadArgs, `"patch" must be a string holding an LP1 patch`)
	}
	return text, nil
}

// distinctPaths returns the section paths as written, each once, in order
// of first appearance.
func distinctPaths(p *lp1.Patch) []string {
	var out []string
	for _, s := range p.Sections {
		if !slices.Contains(out, s.Path) {
			out = append(out, s.Path)
		}
	}
	return out
}

// PreflightPaths names the distinct section paths of a call's patch, so
// that the planner validates them with the sandbox before prompting
// (FR-VAL-02 "sandbox preflight for path-based tools", FR-VAL-07); a patch
// that does not parse names none (the call then fails on its own).
func PreflightPaths(raw json.RawMessage) []string {
	text, err := parseArgs(raw)
	if err != nil {
		return nil
	}
	p, err := lp1.Parse(text)
	if err != nil {
		return nil
	}
	return distinctPaths(p)
}

// parse parses text with the Dialect, or with package lp1.
func (t Tool) parse(text string) (*lp1.Patch, error) {
	if t.Dialect != nil {
		return t.Dialect.Parse(text)
	}
	return t.Options.LP1.Parse(text)
}

// Execute applies the patch; see the package documentation for the steps.
// Failures are *toolerr.Error values: Timeout or Cancelled when the ctx
// ends before anything is renamed into place (once renaming starts, the
// call finishes, so that it stays all-or-nothing).
func (t Tool) Execute(ctx context.Context, raw json.RawMessage, c *tool.Ctx) (string, error) {
	out, err := t.execute(ctx, raw, c)
	var te *toolerr.Error
	if err == nil || !errors.As(err, &te) || te.Kind != toolerr.PatchFailed {
		return out, err
	}
	return out, t.patchFailed(te)
}

// patchFailed is a PatchFailed error as the tool's readings word it
// (Options.ParseErrorFile, Options.NoLineNumbers).
func (t Tool) patchFailed(te *toolerr.Error) *toolerr.Error {
	e := *te
	if e.File == "" && t.Options.ParseErrorFile != "" {
		e.File = t.Options.ParseErrorFile
	}
	if t.Options.NoLineNumbers {
		e.Message = lineNumber.ReplaceAllString(e.Message, "")
	}
	return &e
}

// lineNumber is the "line N: " prefix of a PatchFailed message.
var lineNumber = regexp.MustCompile(`^line [0-9]+: `)

// execute is Execute before Options rewrite a PatchFailed error.
func (t Tool) execute(ctx context.Context, raw json.RawMessage, c *tool.Ctx) (string, error) {
	text, err := prepare(raw, c.Config)
	if err != nil {
		return "", err
	}
	p, err := t.parse(text)
	if err != nil {
		return "", &toolerr.Error{Kind: toolerr.PatchFailed, Message: err.Error()}
	}
	if c.Sandbox == nil {
		return "", toolerr.Failed(Name, "no sandbox configured; the caller must build one from [tools.sandbox]")
	}
	files, err := resolveFiles(p, c)
	if err != nil {
		return "", err
	}
	for _, f := range files {
		if err := check(f, c, t.MissingFile == MissingFileRefuse); err != nil {
			return "", err
		}
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return "", ctxError(err)
		}
		if err := stage(f, t.Dialect, t.Options); err != nil {
			return "", err
		}
	}
	var changed []*file
	for _, f := range files {
		if f.changed() {
			changed = append(changed, f)
		}
	}
	if len(changed) == 0 {
		return "No changes applied.", nil
	}
	if err := commit(ctx, c.FS, changed); err != nil {
		return "", err
	}
	if c.Session != nil && !t.Options.KeepCache {
		for _, f := range changed {
			c.Session.RecordRead(f.cacheEntry(time.Now()))
		}
	}
	return t.report(changed, c.WorkingDir), nil
}

// report is the success output (I-AP-02): one line per changed file in
// order of first appearance, or, with Options.SectionsFromDisk, one per
// section of a changed file in section order.
func (t Tool) report(changed []*file, wd string) string {
	type entry struct {
		line int
		f    *file
	}
	var entries []entry
	for _, f := range changed {
		if !t.Options.SectionsFromDisk {
			entries = append(entries, entry{f.firstLine(), f})
			continue
		}
		for _, s := range f.sections {
			entries = append(entries, entry{s.Line, f})
		}
	}
	slices.SortStableFunc(entries, func(a, b entry) int { return a.line - b.line })
	lines := make([]string, len(entries))
	for i, e := range entries {
		verb := "modified"
		if !e.f.exists {
			verb = "created"
		}
		lines[i] = verb + ": " + t.spell(e.f, wd)
	}
	return strings.Join(lines, "\n")
}

// spell is f's path in the success output, in Options.PathForm.
func (t Tool) spell(f *file, wd string) string {
	switch t.Options.PathForm {
	case PathCanonical:
		return f.canon
	case PathRelative:
		p := filepath.Clean(f.path)
		if filepath.IsAbs(p) {
			if rel, err := filepath.Rel(wd, p); err == nil {
				return rel
			}
		}
		return p
	}
	return f.path
}
