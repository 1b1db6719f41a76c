package readings

import "github.com/forge-conform/forge-conform/impl/reference"

// searchReadings are the readings of the listing and search tools and the
// sandbox: list_directory, Codex's list_dir, search_files
// (LIST_DIRECTORY_SRD.md, CODEX_LIST_DIR.md, SEARCH_FILES_SRD.md,
// TOOL_EXECUTOR_SRD.md §3.5).
func searchReadings() []Reading {
	return []Reading{
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
			Interp: "I-SF-10", Name: "no-nested-repos",
			Doc: "search_files gives a directory holding .git below the searched one no special treatment: " +
				"the ignore rules from above keep applying and its info/exclude is not read",
			Specs: []string{"search_files"},
			Apply: func(o *reference.Options) { o.SearchFiles.NoNestedRepos = true },
		},
	}
}
