package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/session"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
	"github.com/forge-conform/forge-conform/impl/tools/applypatch"
	"github.com/forge-conform/forge-conform/impl/tools/runcommand"
)

// forgeTool is the emulation's reference.Options.WrapTool: each built-in
// tool behaves as Forge's (observed in its own code), for calls and turns alike.
// A wrapper that does not define Timeout gets the engine's default
// timeout, as Forge gives every tool but read_file, apply_patch and
// run_command (as observed in Forge's own code): so write_file and search_files
// lose their file-operations timeout.
func forgeTool(t tool.Tool) tool.Tool {
	switch t := t.(type) {
	case applypatch.Tool:
		t.Dialect = forgeLP1{}
		return applyPatch{t}
	case runcommand.Tool:
		return runCommand{t}
	}
	switch t.Name() {
	case "write_file":
		return writeFile{t}
	case "read_file":
		return readFile{t}
	case "search_files":
		return resolving{t} // and the default timeout
	case "list_directory":
		return resolving{t}
	}
	return t
}

// resolving is a path tool whose path goes through Forge's resolve_path
// first (forgeResolve); it has the default timeout.
type resolving struct{ tool.Tool }

func (t resolving) Execute(ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	if err := forgeResolve(c, pathArg(args)); err != nil {
		return "", err
	}
	return t.Tool.Execute(ctx, args, c)
}

// forgeResolve is where Forge's sandbox (resolve_path) differs from
// FR-VAL-04 step 4: a path that does not exist is resolved by
// canonicalizing its parent only, so a path under a missing directory is
// PathOutsideSandbox (attempted = resolved = the working dir joined with
// the path), not resolved from its deepest existing ancestor. Paths with a
// ".." component are left to the reference sandbox, which rejects them as
// Forge does. nil when the path exists or its parent does.
func forgeResolve(c *tool.Ctx, path string) error {
	for _, part := range strings.Split(filepath.ToSlash(path), "/") {
		if part == ".." {
			return nil
		}
	}
	resolved := join(c.WorkingDir, path)
	if _, err := c.FS.Stat(resolved); err == nil {
		return nil
	}
	if _, err := filepath.EvalSymlinks(filepath.Dir(resolved)); err == nil {
		return nil
	}
	return toolerr.Violation(toolerr.Denial{Reason: toolerr.PathOutsideSandbox, Attempted: resolved, Resolved: resolved})
}

// pathArg returns the call's "path" argument.
func pathArg(args json.RawMessage) string {
	var a struct {
		Path string `json:"path"`
	}
	_ = json.Unmarshal(args, &a)
	return a.Path
}

// badPath is Forge's check for control and bidi characters in a path.
func badPath(p string) error {
	for _, r := range p {
		if unicode.IsControl(r) || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) {
			return toolerr.New(toolerr.BadArgs, "path contains invalid control characters")
		}
	}
	return nil
}

// forgeDenial words a denial as Forge does: attempted is the canonical
// absolute path (DeniedPatternMatched) or the working dir joined with the
// request (PathOutsideSandbox).
func forgeDenial(err error, wd, path string) error {
	var te *toolerr.Error
	if !errors.As(err, &te) || te.Denial == nil {
		return err
	}
	e, d := *te, *te.Denial
	switch d.Reason {
	case toolerr.DeniedPatternMatched:
		if d.Resolved != "" {
			d.Attempted = d.Resolved
		} else if path != "" {
			d.Attempted = canonical(join(wd, path))
		}
	case toolerr.PathOutsideSandbox:
		if d.Attempted != "" && !filepath.IsAbs(d.Attempted) {
			d.Attempted = join(wd, d.Attempted)
		}
	}
	e.Denial = &d
	return &e
}

func join(wd, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(wd, p)
}

// canonical resolves symlinks of p's directory (p itself may not exist).
func canonical(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(dir, filepath.Base(p))
	}
	return p
}

// ---- apply_patch ----

// applyPatch is apply_patch with Forge's LP1 (forgeLP1): parse errors name
// the file "<patch>", and the planner preflights the paths Forge's parser
// reads.
type applyPatch struct{ applypatch.Tool }

// PreflightPaths names the section paths (executor.Preflighter).
func (applyPatch) PreflightPaths(args json.RawMessage) []string {
	var a struct {
		Patch string `json:"patch"`
	}
	if json.Unmarshal(args, &a) != nil {
		return nil
	}
	p, err := forgeLP1{}.Parse(a.Patch)
	if err != nil {
		return nil
	}
	var paths []string
	for _, s := range p.Sections {
		paths = append(paths, s.Path)
	}
	return paths
}

func (t applyPatch) Execute(ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	var a struct {
		Patch string `json:"patch"`
	}
	if json.Unmarshal(args, &a) == nil {
		if p, err := (forgeLP1{}).Parse(a.Patch); err == nil {
			for _, s := range p.Sections {
				if err := forgeResolve(c, s.Path); err != nil {
					return "", err
				}
			}
		}
	}
	out, err := t.Tool.Execute(ctx, args, c)
	var te *toolerr.Error
	if errors.As(err, &te) && te.Kind == toolerr.PatchFailed && te.File == "" {
		e := *te
		e.File = "<patch>"
		return out, &e
	}
	return out, forgeDenial(err, c.WorkingDir, "")
}

// ---- write_file ----

// writeFile answers "Created <canonical absolute path> (<n> bytes)",
// records the new file's SHA-256 in the read cache, and words an existing
// path "file already exists: <path>. Use apply_patch to modify existing
// files.".
type writeFile struct{ tool.Tool }

func (t writeFile) Execute(ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	p := pathArg(args)
	if err := badPath(p); err != nil {
		return "", err
	}
	if err := forgeResolve(c, p); err != nil {
		return "", err
	}
	out, err := t.Tool.Execute(ctx, args, c)
	abs := canonical(join(c.WorkingDir, p))
	var te *toolerr.Error
	if errors.As(err, &te) && strings.Contains(te.Message, "already exists") {
		e := *te
		e.Message = fmt.Sprintf("file already exists: %s. Use apply_patch to modify existing files.", abs)
		return "", &e
	}
	if err != nil {
		return "", forgeDenial(err, c.WorkingDir, p)
	}
	var a struct {
		Content string `json:"content"`
	}
	_ = json.Unmarshal(args, &a)
	if canon, err := c.Sandbox.Validate(p); err == nil && c.Session != nil {
		c.Session.RecordRead(session.Read{Path: canon, SHA256: sha256.Sum256([]byte(a.Content)), At: time.Now()})
	}
	var res struct {
		BytesWritten int64 `json:"bytes_written"`
	}
	_ = json.Unmarshal([]byte(out), &res)
	return fmt.Sprintf("Created %s (%d bytes)", abs, res.BytesWritten), nil
}

// ---- read_file ----

const (
	sniffBytes       = 8192
	binHeader        = "[binary:base64]"
	binTruncated     = "[binary:base64][truncated]"
	defaultScanBytes = 2097152
)

// readFile is read_file with Forge's binary header "[binary:base64]
// [truncated]" (no space); an output limit below the header gives the
// header cut to the limit; a UTF-8 character cut by the 8 KB sniff window
// makes the file binary; a whole-file read with invalid UTF-8 past the
// window is ExecutionFailed; the scan bound of a range read counts the
// whole file.
type readFile struct{ tool.Tool }

func (readFile) Timeout(cfg config.Config) time.Duration { return tool.FileOperationsTimeout(cfg) }

func (t readFile) Execute(ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	p := pathArg(args)
	if err := badPath(p); err != nil {
		return "", err
	}
	if err := forgeResolve(c, p); err != nil {
		return "", err
	}
	out, err := t.Tool.Execute(ctx, args, c)
	limit := c.EffectiveMax()
	var te *toolerr.Error
	if errors.As(err, &te) && strings.Contains(te.Message, "output budget too small") {
		c.AllowTruncation = false
		return (binTruncated + "\n")[:min(int64(len(binTruncated)+1), max(limit, 0))], nil
	}
	if err != nil {
		return "", forgeDenial(err, c.WorkingDir, p)
	}
	if s, ok := strings.CutPrefix(out, binHeader+" [truncated]\n"); ok {
		return binTruncated + "\n" + s, nil
	}
	if strings.HasPrefix(out, binHeader) {
		return out, nil
	}
	abs := join(c.WorkingDir, p)
	fi, err := c.FS.Stat(abs)
	if err != nil {
		return out, nil
	}
	var rng struct {
		Start *int64 `json:"start_line"`
		End   *int64 `json:"end_line"`
	}
	_ = json.Unmarshal(args, &rng)
	if rng.Start != nil || rng.End != nil {
		scan := int64(defaultScanBytes)
		var cfg struct {
			MaxScanBytes *int64 `json:"max_scan_bytes"`
		}
		if c.Config.Table("read_file", &cfg) == nil && cfg.MaxScanBytes != nil {
			scan = *cfg.MaxScanBytes
		}
		if fi.Size() > scan {
			return "", toolerr.Failed("read_file", "File exceeds the scan limit of %d bytes; narrow the line range", scan)
		}
		return out, nil
	}
	if fi.Size() <= sniffBytes {
		return out, nil
	}
	data, err := afero.ReadFile(c.FS, abs)
	if err != nil {
		return out, nil
	}
	if !utf8.Valid(data[:sniffBytes]) {
		c.AllowTruncation = false
		return binary(data, limit), nil
	}
	if !utf8.Valid(data) {
		return "", toolerr.Failed("read_file", "stream did not contain valid UTF-8")
	}
	return out, nil
}

// binary renders data as Forge does, within limit bytes.
func binary(data []byte, limit int64) string {
	full := binHeader + "\n" + base64.StdEncoding.EncodeToString(data)
	if int64(len(full)) <= limit {
		return full
	}
	room := limit - int64(len(binTruncated)) - 1
	if room < 0 {
		return (binTruncated + "\n")[:max(limit, 0)]
	}
	n := min(int64(len(data)), room/4*3)
	return binTruncated + "\n" + base64.StdEncoding.EncodeToString(data[:n])
}
