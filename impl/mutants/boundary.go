package mutants

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/sandbox"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// boundaryMutants break the edges of the file tools: the sandbox's
// rejections (T-SBX-01..03, T-LD-03), read_file's scan bound (T-READ-02),
// list_directory on a non-directory (T-LD-02) and write_file's report of
// a created file (T-WR-01).
func boundaryMutants() []Mutant {
	return []Mutant{
		{
			Name: "dotdot-after-clean", Doc: "the sandbox looks for `..` components in the cleaned path, where none is left: a traversal that stays inside the root is accepted",
			Specs:   []string{"tool_executor", "list_directory"},
			Breaks:  append(ids("tool_executor", "T-SBX-01"), ids("list_directory", "T-LD-03")...),
			Options: wrap(onTools(pathTools(), cleanDotDot)),
		},
		{
			Name: "absolute-always-allowed", Doc: "the sandbox accepts absolute paths inside a root when allow_absolute is false",
			Specs:   []string{"tool_executor", "list_directory"},
			Breaks:  append(ids("tool_executor", "T-SBX-02"), ids("list_directory", "T-LD-03")...),
			Options: wrap(onTools(sandboxTools(), withSandbox(func(c *sandbox.Config) { c.AllowAbsolute = true }, nil))),
		},
		{
			Name: "sandbox-lexical-resolve", Doc: "the sandbox resolves paths lexically, without following symlinks: a link escapes the roots and a denied target hides behind an allowed name",
			Specs:  []string{"tool_executor", "list_directory"},
			Breaks: append(ids("tool_executor", "T-SBX-03"), ids("list_directory", "T-LD-03")...),
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
			Breaks:  ids("write_file", "T-WR-01"),
			Options: wrap(onTool("write_file", countCharacters)),
		},
	}
}

// sandboxTools are the tools whose paths the sandbox validates.
func sandboxTools() []string {
	return []string{"apply_patch", "list_directory", "read_file", "search_files", "write_file"}
}

// pathTools are the sandboxed tools that name their one path in a "path"
// argument.
func pathTools() []string {
	return []string{"list_directory", "read_file", "search_files", "write_file"}
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
// `..` and is rejected as before.
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
	return inner(ctx, raw, c)
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
