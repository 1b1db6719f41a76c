package searchfiles

import "github.com/forge-conform/forge-conform/impl/lossy"

// Options are the readings of SEARCH_FILES_SRD.md the tool can take
// besides the reference's (spec/INTERPRETATIONS.md I-SF-*, package
// impl/readings names them). The zero value is the reference's reading.
type Options struct {
	// CharColumns reports `column` as 1 + the number of characters
	// (Unicode scalar values) before the match in `line_text`, instead of
	// its byte offset (I-SF-06, reading char-columns).
	CharColumns bool
	// StripFinalCR drops a CR that ends the file (a last line without LF)
	// as a CR before an LF is dropped, so that it is not part of the last
	// line's text (I-SF-06, reading strip-final-cr).
	StripFinalCR bool
	// BasenameGlobs matches an include or exclude glob holding no "/"
	// against the entry's name at any depth instead of its whole relative
	// path, as ripgrep's and gitignore's globs do (I-SF-09, reading
	// basename-globs).
	BasenameGlobs bool
	// UntrimmedPath searches the requested `path` as sent: FR-SF-VAL-01
	// only rejects one that is empty after trimming (I-SF-01, reading
	// untrimmed-path). The echoed `path` is normalized either way.
	UntrimmedPath bool
	// EchoAsSent echoes the requested `path` as the search uses it (with
	// "/" its only separator on Unix) instead of normalizing it by
	// FR-LD-VAL-10's rules: "Normalized requested path (forward slashes)"
	// names no other normalization (I-SF-01, reading echo-as-sent).
	EchoAsSent bool
	// TrimmedQuery searches for (and echoes) the query trimmed of
	// surrounding whitespace, the form FR-SF-VAL-02 tests for blankness,
	// instead of the query as sent (I-SF-02, reading trimmed-query).
	TrimmedQuery bool
	// PerByteLossy replaces every byte of an ill-formed UTF-8 sequence in
	// a path with its own U+FFFD instead of one per maximal subpart
	// (I-LD-01 through I-SF-01, reading per-byte).
	PerByteLossy bool
	// NoNestedRepos gives a directory holding `.git` below the searched
	// one no special treatment: the rules from above keep applying and its
	// `.git/info/exclude` is not read (I-SF-10, reading no-nested-repos).
	NoNestedRepos bool
}

// lossy converts a raw path to UTF-8 (NFR-SF-REL-02, I-LD-01).
func (r *request) lossy(raw string) string {
	if r.opts.PerByteLossy {
		return lossy.PerByte(raw)
	}
	return lossy.String(raw)
}

// With returns t taking the readings opts.
func (t Tool) With(opts Options) Tool {
	t.opts = opts
	return t
}

// WithEnviron returns t finding the rg and ugrep binaries in the PATH of
// environ (the host's environment for its tools, as run_command's), nil
// meaning the process's own.
func (t Tool) WithEnviron(environ func() []string) Tool {
	t.environ = environ
	return t
}
