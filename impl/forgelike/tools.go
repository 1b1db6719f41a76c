package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
	"github.com/forge-conform/forge-conform/impl/tools/applypatch"
	"github.com/forge-conform/forge-conform/impl/tools/runcommand"
)

// forgeTool is the emulation's tool wrapper, applied after the readings'
// (which give the tools Forge's outputs where the SRD leaves room): each
// built-in tool with Forge's deviations, for calls and turns alike. Every
// path tool resolves a missing path as Forge's sandbox does (forgeResolve);
// apply_patch parses with Forge's LP1 (forgeLP1); read_file requires
// approval at Medium risk. A wrapper that does not define Timeout gets the
// engine's default timeout, as Forge gives every tool but read_file,
// apply_patch and run_command: so write_file and search_files lose their
// file-operations timeout (CFG-TMO-01a is a SHOULD).
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
	case "search_files", "list_directory":
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

// join is p under the working directory wd, unless p is absolute.
func join(wd, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(wd, p)
}

// ---- apply_patch ----

// applyPatch is apply_patch with Forge's LP1 (forgeLP1) behind Forge's path
// checks; the planner preflights the paths Forge's parser reads.
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
	return t.Tool.Execute(ctx, args, c)
}

// ---- write_file ----

// writeFile is write_file behind Forge's resolution of a missing path.
type writeFile struct{ tool.Tool }

func (t writeFile) Execute(ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	if err := forgeResolve(c, pathArg(args)); err != nil {
		return "", err
	}
	return t.Tool.Execute(ctx, args, c)
}

// ---- read_file ----

// readFile is read_file behind Forge's resolution of a missing path, with its file-operations
// timeout, and with Forge's definition: it requires approval at Medium
// risk, which FR-TOOL-READ-01's definition forbids.
type readFile struct{ tool.Tool }

func (readFile) Timeout(cfg config.Config) time.Duration { return tool.FileOperationsTimeout(cfg) }

// RequiresApproval is Forge's: true.
func (readFile) RequiresApproval() bool { return true }

// RiskLevel is Forge's: Medium.
func (readFile) RiskLevel() tool.RiskLevel { return tool.Medium }

// ApprovalSummary is Forge's: "Read <path>[ lines X-Y]" redacted by
// forgeSummary, which masks "sk-" keys only (FR-APR-01 asks for tokens,
// credentials, API keys and passwords).
func (t readFile) ApprovalSummary(raw json.RawMessage, cfg config.Config) (string, error) {
	if _, err := t.Tool.ApprovalSummary(raw, cfg); err != nil {
		return "", err
	}
	var a struct {
		Path string `json:"path"`
	}
	var rng struct {
		Start *int64 `json:"start_line"`
		End   *int64 `json:"end_line"`
	}
	_ = json.Unmarshal(raw, &a)
	_ = json.Unmarshal(raw, &rng)
	s := "Read " + a.Path
	if rng.Start != nil || rng.End != nil {
		start := int64(1)
		if rng.Start != nil {
			start = *rng.Start
		}
		s += fmt.Sprintf(" lines %d-", start)
		if rng.End != nil {
			s += fmt.Sprint(*rng.End)
		}
	}
	return forgeSummary(s), nil
}

func (t readFile) Execute(ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	if err := forgeResolve(c, pathArg(args)); err != nil {
		return "", err
	}
	return t.Tool.Execute(ctx, args, c)
}
