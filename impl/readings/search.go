package readings

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/impl/sandbox"
	"github.com/forge-conform/forge-conform/impl/tool"
)

// searchReadings are the readings of the listing and search tools and the
// sandbox: list_directory, Codex's list_dir, search_files
// (LIST_DIRECTORY_SRD.md, CODEX_LIST_DIR.md, SEARCH_FILES_SRD.md,
// TOOL_EXECUTOR_SRD.md §3.5).
func searchReadings() []Reading {
	return slices.Concat(sandboxReadings(), []Reading{
		{
			Interp: "I-LD-01", Name: "per-byte",
			Doc:   "list_directory and search_files replace every byte of an ill-formed UTF-8 sequence in a name with its own U+FFFD",
			Specs: []string{"list_directory", "search_files"},
			Apply: func(o *reference.Options) { o.ListDir.PerByteLossy, o.SearchFiles.PerByteLossy = true, true },
		},
		{
			Interp: "I-LD-08", Name: "keep-dir-entry",
			Doc:   "list_directory keeps an unreadable directory's dir entry and adds its read_dir_failed entry beside it",
			Specs: []string{"list_directory"},
			Apply: func(o *reference.Options) { o.ListDir.KeepDirEntry = true },
		},
		{
			Interp: "I-LD-09", Name: "vanished-io-error",
			Doc:   "list_directory reports io_error for an entry that vanished before its lstat",
			Specs: []string{"list_directory"},
			Apply: func(o *reference.Options) { o.ListDir.VanishedCode = "io_error" },
		},
		{
			Interp: "I-LD-09", Name: "vanished-unknown",
			Doc:   "list_directory reports the code unknown for an entry that vanished before its lstat",
			Specs: []string{"list_directory"},
			Apply: func(o *reference.Options) { o.ListDir.VanishedCode = "unknown" },
		},
		{
			Interp: "I-CX-01", Name: "ignore-unknown",
			Doc: "list_dir ignores an argument ListDirArgs does not name, as serde does " +
				"(its schema does not forbid additional properties)",
			Specs: []string{"codex_list_dir"},
			Apply: func(o *reference.Options) { o.CodexListDir.IgnoreUnknown = true },
		},
		{
			Interp: "I-CX-01", Name: "execution-failed",
			Doc:   "every error of list_dir's handler is ExecutionFailed (Codex's one error form carries no kind)",
			Specs: []string{"codex_list_dir"},
			Apply: func(o *reference.Options) { o.CodexListDir.ExecutionFailed = true },
		},
		{
			Interp: "I-SF-06", Name: "char-columns",
			Doc:   "search_files reports a match's column in characters of line_text, not bytes",
			Specs: []string{"search_files"},
			Apply: func(o *reference.Options) { o.SearchFiles.CharColumns = true },
		},
		{
			Interp: "I-SF-06", Name: "strip-final-cr",
			Doc:   "search_files drops a CR that ends the file from the last line, as it drops the CR of a CRLF",
			Specs: []string{"search_files"},
			Apply: func(o *reference.Options) { o.SearchFiles.StripFinalCR = true },
		},
		{
			Interp: "I-SF-09", Name: "basename-globs",
			Doc:   "search_files matches a glob without a slash against the entry's name at any depth",
			Specs: []string{"search_files"},
			Apply: func(o *reference.Options) { o.SearchFiles.BasenameGlobs = true },
		},
		{
			Interp: "I-SF-01", Name: "untrimmed-path",
			Doc:   "search_files searches the requested path as sent, rejecting only one that is blank",
			Specs: []string{"search_files"},
			Apply: func(o *reference.Options) { o.SearchFiles.UntrimmedPath = true },
		},
		{
			Interp: "I-SF-01", Name: "echo-as-sent",
			Doc:   "search_files echoes the requested path as the search uses it, not normalized by list_directory's rules",
			Specs: []string{"search_files"},
			Apply: func(o *reference.Options) { o.SearchFiles.EchoAsSent = true },
		},
		{
			Interp: "I-SF-02", Name: "trimmed-query",
			Doc:   "search_files searches for and echoes the query trimmed of surrounding whitespace",
			Specs: []string{"search_files"},
			Apply: func(o *reference.Options) { o.SearchFiles.TrimmedQuery = true },
		},
		{
			Interp: "I-SF-10", Name: "no-nested-repos",
			Doc: "search_files gives a directory holding .git below the searched one no special treatment: " +
				"the ignore rules from above keep applying and its info/exclude is not read",
			Specs: []string{"search_files"},
			Apply: func(o *reference.Options) { o.SearchFiles.NoNestedRepos = true },
		},
	})
}

// sandboxReadings are the readings of the sandbox (TOOL_EXECUTOR_SRD.md
// §3.5), which every file tool's calls take.
func sandboxReadings() []Reading {
	return []Reading{
		{
			Interp: "I-SBX-03", Name: "globset",
			Doc: "denied patterns are read as Rust's globset crate does by default: * and ? also match /, " +
				"and a trailing /** matches what is inside a directory, not the directory itself",
			Specs: sandboxSpecs(),
			Apply: func(o *reference.Options) { withSandbox(o, func(s *sandbox.Options) { s.Globset = true }) },
		},
		{
			Interp: "I-SBX-05", Name: "forge", Forge: true,
			Doc: "a denial names the canonical absolute path as attempted for DeniedPatternMatched, and the " +
				"working directory joined with the request for a PathOutsideSandbox found once resolved",
			Specs: sandboxSpecs(),
			Apply: func(o *reference.Options) { withSandbox(o, func(s *sandbox.Options) { s.ForgeDenials = true }) },
		},
		{
			Interp: "I-SBX-06", Name: "reject-control", Forge: true,
			Doc:   `a path holding a control or bidi character is BadArgs "path contains invalid control characters"`,
			Specs: sandboxSpecs(),
			Apply: func(o *reference.Options) { withSandbox(o, func(s *sandbox.Options) { s.RejectControl = true }) },
		},
	}
}

// sandboxSpecs are the catalogs whose cases go through the sandbox.
func sandboxSpecs() []string {
	return []string{"list_directory", "search_files", "tool_executor", "write_file", "lp1"}
}

// withSandbox makes every tool validate its paths with the call's sandbox
// taking the readings set adds to those it already takes.
func withSandbox(opts *reference.Options, set func(*sandbox.Options)) {
	wrapAlso(opts, func(t tool.Tool) tool.Tool { return sandboxed{Tool: t, set: set} })
}

// sandboxed is a tool whose calls see the sandbox with readings added.
type sandboxed struct {
	tool.Tool
	set func(*sandbox.Options)
}

// Execute runs the tool with the call's sandbox taking the readings.
func (s sandboxed) Execute(ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	if c == nil || c.Sandbox == nil {
		return s.Tool.Execute(ctx, args, c)
	}
	o := c.Sandbox.Options()
	s.set(&o)
	cc := *c
	cc.Sandbox = c.Sandbox.With(o)
	out, err := s.Tool.Execute(ctx, args, &cc)
	c.AllowTruncation = cc.AllowTruncation
	return out, err
}

// Timeout is the wrapped tool's own time limit (tool.Timeouter), or the
// default one.
func (s sandboxed) Timeout(cfg config.Config) time.Duration {
	if t, ok := s.Tool.(tool.Timeouter); ok {
		return t.Timeout(cfg)
	}
	return tool.DefaultTimeout(cfg)
}
