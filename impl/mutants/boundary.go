package mutants

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/canonjson"
	"github.com/forge-conform/forge-conform/impl/sandbox"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
	"github.com/forge-conform/forge-conform/impl/tools/listdir"
)

// boundaryMutants break the edges of the file tools: the sandbox's
// rejections (T-SBX-01..03, T-LD-03), read_file's scan bound (T-READ-02),
// list_directory on a non-directory (T-LD-02) and write_file's report of
// a created file (T-WR-01).
func boundaryMutants() []Mutant {
	return []Mutant{
		{
			Name: "dotdot-after-clean", Doc: "the sandbox looks for `..` components in the cleaned path, where none is left: a traversal that stays inside the root is accepted (read_file and list_directory calls)",
			Specs:   []string{"tool_executor", "list_directory"},
			Breaks:  append(ids("tool_executor", "T-SBX-01"), ids("list_directory", "T-LD-03")...),
			Options: wrap(onTools([]string{"list_directory", "read_file"}, cleanDotDot)),
		},
		{
			Name: "deny-before-resolve", Doc: "the sandbox matches denied patterns against the path as joined to the working directory, before symlinks are resolved (read_file, write_file and list_directory calls)",
			Specs:  []string{"tool_executor", "list_directory", "write_file"},
			Breaks: ids("tool_executor", "T-SBX-03"),
			Options: wrap(func(t tool.Tool) tool.Tool {
				switch t.Name() {
				case "list_directory": // FR-LD-VAL-10: the tool trims the path first
					return wrapped{Tool: t, exec: denyBeforeResolve(strings.TrimSpace)}
				case "read_file", "write_file":
					return wrapped{Tool: t, exec: denyBeforeResolve(func(p string) string { return p })}
				}
				return t
			}),
		},
		{
			Name: "absolute-always-allowed", Doc: "the sandbox accepts absolute paths inside a root when allow_absolute is false",
			Specs:   []string{"tool_executor", "list_directory"},
			Breaks:  append(ids("tool_executor", "T-SBX-02"), ids("list_directory", "T-LD-03")...),
			Options: wrap(onTools(sandboxTools(), withSandbox(func(c *sandbox.Config) { c.AllowAbsolute = true }, nil))),
		},
		{
			Name: "sandbox-lexical-resolve", Doc: "the sandbox resolves paths lexically, without following symlinks: a link escapes the roots and a denied target hides behind an allowed name",
			Specs: []string{"tool_executor", "list_directory"},
			// Symlinks inside the root stay links, which read_file's no-follow
			// open then refuses: read-symlink-inside fails, and so does the
			// read before patch-through-symlink-inside (an errored case).
			Breaks: append(ids("tool_executor", "T-SBX-03", "FR-VAL-04", "FR-VAL-04a", "FR-TOOL-PATCH-01", "FR-TOOL-PATCH-02c"), ids("list_directory", "T-LD-03")...),
			Options: wrap(onTools(sandboxTools(), withSandbox(nil, func(fs afero.Fs) afero.Fs {
				return followFS{fs}
			}))),
		},
		{
			Name: "not-a-directory-bad-args", Doc: "list_directory reports a path that is not a directory as BadArgs instead of ExecutionFailed",
			Specs:   []string{"list_directory"},
			Breaks:  ids("list_directory", "T-LD-02"),
			Options: wrap(onTool("list_directory", notADirectoryBadArgs)),
		},
		{
			Name: "read-file-scan-line-overrun", Doc: "read_file checks max_scan_bytes before each line, so the line that crosses the bound is still scanned",
			Specs:   []string{"tool_executor"},
			Breaks:  ids("tool_executor", "T-READ-02"),
			Options: wrap(onTool("read_file", scanLineOverrun)),
		},
		{
			Name: "write-file-counts-characters", Doc: "write_file reports the characters of the content as bytes_written, not its UTF-8 bytes",
			Specs:   []string{"write_file"},
			Breaks:  ids("write_file", "FR-WR-05", "T-WR-01"),
			Options: wrap(onTool("write_file", countCharacters)),
		},
	}
}

// sandboxTools are the tools whose paths the sandbox validates.
func sandboxTools() []string {
	return []string{"apply_patch", "list_directory", "read_file", "search_files", "write_file"}
}

// onTools is onTool for each tool named.
func onTools(names []string, exec func(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error)) func(tool.Tool) tool.Tool {
	return func(t tool.Tool) tool.Tool {
		for _, name := range names {
			if t.Name() == name {
				return wrapped{Tool: t, exec: exec}
			}
		}
		return t
	}
}

// withSandbox runs the tool with a sandbox rebuilt from the call's
// [tools.sandbox] table: config, when set, changes the table's values;
// view, when set, is the filesystem the sandbox sees (the tool keeps the
// call's). A table the reference cannot build a sandbox from leaves the
// call alone.
func withSandbox(config func(*sandbox.Config), view func(afero.Fs) afero.Fs) func(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	return func(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
		cfg := sandbox.DefaultConfig()
		if err := c.Config.Table("sandbox", &cfg); err != nil || c.Sandbox == nil {
			return inner(ctx, args, c)
		}
		if config != nil {
			config(&cfg)
		}
		fs := c.FS
		if view != nil {
			fs = view(fs)
		}
		sb, err := sandbox.New(fs, cfg, c.WorkingDir)
		if err != nil {
			return inner(ctx, args, c)
		}
		cc := *c
		cc.Sandbox = sb
		out, err := inner(ctx, args, &cc)
		c.AllowTruncation = cc.AllowTruncation
		return out, err
	}
}

// cleanDotDot sends the path argument cleaned when cleaning removes every
// `..` component: that is the path a sandbox that checks for `..` only
// after filepath.Clean goes on to resolve (FR-VAL-04 step 2 rejects any
// `..` component). A path whose cleaned form still climbs out keeps its
// `..` and is rejected as before. A listing still echoes the requested
// path, normalized (FR-LD-VAL-10 keeps `..`).
func cleanDotDot(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	var a map[string]json.RawMessage
	var path string
	if json.Unmarshal(args, &a) != nil || json.Unmarshal(a["path"], &path) != nil || !hasDotDot(path) {
		return inner(ctx, args, c)
	}
	clean := filepath.Clean(path)
	if hasDotDot(clean) {
		return inner(ctx, args, c)
	}
	a["path"], _ = json.Marshal(clean)
	raw, err := json.Marshal(a)
	if err != nil {
		return inner(ctx, args, c)
	}
	echo := json.RawMessage(canonjson.AppendString(nil, listdir.Normalize(path)))
	return rewriteWithinBudget(inner, ctx, raw, c, rewriteListing(func(l *listing) { l.Path = echo }))
}

// denyBeforeResolve runs the tool with a sandbox without denied patterns
// and matches the patterns itself, against the requested path joined to
// the working directory and cleaned: a link with an allowed name passes
// whatever it points to (FR-VAL-04 step 7 matches the canonical path).
// trim is what the tool does to the path before validating it.
func denyBeforeResolve(trim func(string) string) func(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	return func(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
		var a struct {
			Path string `json:"path"`
		}
		cfg := sandbox.DefaultConfig()
		if json.Unmarshal(args, &a) != nil || c.Config.Table("sandbox", &cfg) != nil || c.Sandbox == nil {
			return inner(ctx, args, c)
		}
		patterns := slices.Clone(cfg.DeniedPatterns)
		if cfg.IncludeDefaultDenies {
			patterns = append(patterns, sandbox.DefaultDenies()...)
		}
		cfg.DeniedPatterns, cfg.IncludeDefaultDenies = nil, false
		sb, err := sandbox.New(c.FS, cfg, c.WorkingDir)
		if err != nil {
			return inner(ctx, args, c)
		}
		path := trim(a.Path)
		if _, err := sb.Validate(path); err == nil {
			joined := filepath.Clean(path)
			if !filepath.IsAbs(joined) {
				joined = filepath.Join(c.WorkingDir, joined)
			}
			for _, p := range patterns {
				if ok, _ := doublestar.Match(p, filepath.ToSlash(joined)); ok {
					return "", toolerr.Violation(toolerr.Denial{Reason: toolerr.DeniedPatternMatched, Attempted: path, Pattern: p})
				}
			}
		}
		cc := *c
		cc.Sandbox = sb
		out, err := inner(ctx, args, &cc)
		c.AllowTruncation = cc.AllowTruncation
		return out, err
	}
}

// hasDotDot reports whether path has a `..` component.
func hasDotDot(path string) bool {
	for _, c := range strings.Split(path, "/") {
		if c == ".." {
			return true
		}
	}
	return false
}

// notADirectoryBadArgs turns list_directory's "path is not a directory"
// failure into BadArgs, as an implementation that treats it as a bad
// argument would.
func notADirectoryBadArgs(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	out, err := inner(ctx, args, c)
	var te *toolerr.Error
	if errors.As(err, &te) && te.Kind == toolerr.ExecutionFailed && strings.Contains(te.Message, "path is not a directory") {
		bad := *te
		bad.Kind = toolerr.BadArgs
		return out, &bad
	}
	return out, err
}

// scanLineOverrun gives a ranged read that failed on max_scan_bytes the
// answer of a scan that compares the bytes consumed with the bound before
// each line instead of after it: the read succeeds when its last line
// starts within the bound, however far past it that line ends.
func scanLineOverrun(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	out, err := inner(ctx, args, c)
	var te *toolerr.Error
	if !errors.As(err, &te) || te.Kind != toolerr.ExecutionFailed || !strings.Contains(te.Message, "max_scan_bytes") {
		return out, err
	}
	a, data, ok := readWhole(args, c)
	if !ok {
		return out, err
	}
	table := map[string]json.RawMessage{}
	_ = json.Unmarshal(c.Config.Tools["read_file"], &table)
	maxScan := int64(2097152) // CFG-READ-01's default
	_ = json.Unmarshal(table["max_scan_bytes"], &maxScan)
	// The start of the last line the range reads: end_line, or the last
	// line of the file when end_line is absent or beyond it.
	last, line := int64(0), uint32(1)
	for off := 0; off < len(data); line++ {
		last = int64(off)
		if a.EndLine != nil && *a.EndLine != 0 && line == *a.EndLine {
			break
		}
		nl := bytes.IndexByte(data[off:], '\n')
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	if last > maxScan {
		return out, err
	}
	table["max_scan_bytes"], _ = json.Marshal(max(int64(len(data)), 1))
	cc := *c
	cc.Config.Tools = maps.Clone(c.Config.Tools)
	cc.Config.Tools["read_file"], _ = json.Marshal(table)
	out, err = inner(ctx, args, &cc)
	c.AllowTruncation = cc.AllowTruncation
	return out, err
}

// countCharacters reports bytes_written as the number of characters
// (runes) of the content.
func countCharacters(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	out, err := inner(ctx, args, c)
	var a struct {
		Content string `json:"content"`
	}
	if err != nil || json.Unmarshal(args, &a) != nil {
		return out, err
	}
	bytesKey := []byte(`"bytes_written":` + strconv.Itoa(len(a.Content)) + `}`)
	if !bytes.HasSuffix([]byte(out), bytesKey) {
		return out, nil
	}
	return strings.TrimSuffix(out, string(bytesKey)) + `"bytes_written":` + strconv.Itoa(utf8.RuneCountInString(a.Content)) + `}`, nil
}
