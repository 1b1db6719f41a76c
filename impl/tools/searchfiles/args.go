package searchfiles

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/toolerr"
	"github.com/forge-conform/forge-conform/impl/tools/listdir"
)

// Search modes (schema "mode").
const (
	modeExact = "exact"
	modeRegex = "regex"
	modeFuzzy = "fuzzy"
)

// Case modes (schema "case").
const (
	caseSensitive   = "sensitive"
	caseInsensitive = "insensitive"
	caseSmart       = "smart"
)

// Backends (CFG-SF-01 "backend").
const (
	backendNative = "native"
	backendRg     = "rg"
	backendUgrep  = "ugrep"
)

// Config mirrors the [tools.search_files] table (CFG-SF-01). The five
// limits are both the defaults of their arguments and hard caps
// (CFG-SF-02); the *_default keys are used when the matching argument is
// omitted.
type Config struct {
	Backend                 string  `json:"backend"`
	MaxResults              int64   `json:"max_results"`
	MaxMatchesPerFile       int64   `json:"max_matches_per_file"`
	MaxFileSizeBytes        int64   `json:"max_file_size_bytes"`
	MaxFiles                int64   `json:"max_files"`
	MaxDepth                int64   `json:"max_depth"`
	RespectGitignoreDefault bool    `json:"respect_gitignore_default"`
	IncludeHiddenDefault    bool    `json:"include_hidden_default"`
	FollowSymlinksDefault   bool    `json:"follow_symlinks_default"`
	ModeDefault             string  `json:"mode_default"`
	CaseDefault             string  `json:"case_default"`
	FuzzyThreshold          float64 `json:"fuzzy_threshold"`
}

// DefaultConfig returns the values of the SRD's example table (CFG-SF-01),
// used for every key the [tools.search_files] table leaves out.
func DefaultConfig() Config {
	return Config{
		Backend:                 backendNative,
		MaxResults:              200,
		MaxMatchesPerFile:       20,
		MaxFileSizeBytes:        2_000_000,
		MaxFiles:                5000,
		MaxDepth:                12,
		RespectGitignoreDefault: true,
		IncludeHiddenDefault:    false,
		FollowSymlinksDefault:   false,
		ModeDefault:             modeExact,
		CaseDefault:             caseSmart,
		FuzzyThreshold:          0.8,
	}
}

// loadConfig decodes [tools.search_files] over the built-in defaults and
// checks every value; a bad table fails the call with ExecutionFailed.
func loadConfig(c config.Config) (Config, error) {
	cfg := DefaultConfig()
	bad := func(format string, a ...any) (Config, error) {
		return cfg, toolerr.Failed(Name, "invalid configuration: [tools.search_files] "+format, a...)
	}
	if err := c.Table(Name, &cfg); err != nil {
		return cfg, toolerr.Failed(Name, "invalid configuration: %v; fix the [tools.search_files] table", err)
	}
	for _, l := range []struct {
		key string
		v   int64
	}{
		{"max_results", cfg.MaxResults},
		{"max_matches_per_file", cfg.MaxMatchesPerFile},
		{"max_file_size_bytes", cfg.MaxFileSizeBytes},
		{"max_files", cfg.MaxFiles},
		{"max_depth", cfg.MaxDepth},
	} {
		if l.v < 1 {
			return bad("%s is %d; set it to 1 or more", l.key, l.v)
		}
	}
	switch cfg.Backend {
	case backendNative, backendRg, backendUgrep:
	default:
		return bad("backend is %q; use native, rg or ugrep", cfg.Backend)
	}
	if !oneOf(cfg.ModeDefault, modeExact, modeRegex, modeFuzzy) {
		return bad("mode_default is %q; use exact, regex or fuzzy", cfg.ModeDefault)
	}
	if !oneOf(cfg.CaseDefault, caseSensitive, caseInsensitive, caseSmart) {
		return bad("case_default is %q; use sensitive, insensitive or smart", cfg.CaseDefault)
	}
	if !(cfg.FuzzyThreshold >= 0 && cfg.FuzzyThreshold <= 1) {
		return bad("fuzzy_threshold is %v; set it between 0.0 and 1.0", cfg.FuzzyThreshold)
	}
	return cfg, nil
}

func oneOf(s string, set ...string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

// args is the typed form of the call's arguments (FR-REG-02). A nil field
// is an omitted argument; the raw JSON is not consulted after parsing.
type args struct {
	Path              string
	Query             string
	Mode              *string
	Case              *string
	Recursive         *bool
	MaxDepth          *int64
	MaxResults        *int64
	MaxMatchesPerFile *int64
	MaxFileSizeBytes  *int64
	MaxFiles          *int64
	ContextLines      *int64
	IncludeHidden     *bool
	FollowSymlinks    *bool
	RespectGitignore  *bool
	IncludeGlobs      []string
	ExcludeGlobs      []string
}

// parseArgs is the single parse boundary. Keys match exactly (as serde
// does); unknown keys are ignored, as the schema allows them; a null
// optional argument counts as omitted, as serde's Option does. Types and
// enums are checked here because Execute may be called without the
// registry's schema validation.
func parseArgs(raw json.RawMessage) (args, error) {
	var a args
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return a, badArgs(`arguments must be a JSON object such as {"path":".","query":"TODO"}`)
	}
	for _, s := range []struct {
		key, hint string
		dst       *string
	}{
		{"path", `the directory to search, e.g. "src"`, &a.Path},
		{"query", `the text to look for, e.g. "TODO"`, &a.Query},
	} {
		v, ok := fields[s.key]
		if !ok {
			return a, badArgs("missing required argument %q; send %s", s.key, s.hint)
		}
		if err := json.Unmarshal(v, s.dst); err != nil || isNull(v) {
			return a, badArgs("%q must be a string: %s", s.key, s.hint)
		}
	}
	for _, e := range []struct {
		key string
		set []string
		dst **string
	}{
		{"mode", []string{modeExact, modeRegex, modeFuzzy}, &a.Mode},
		{"case", []string{caseSensitive, caseInsensitive, caseSmart}, &a.Case},
	} {
		v, ok := fields[e.key]
		if !ok || isNull(v) {
			continue
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil || !oneOf(s, e.set...) {
			return a, badArgs("%q must be one of %s, not %s", e.key, strings.Join(e.set, ", "), v)
		}
		*e.dst = &s
	}
	for _, b := range []struct {
		key string
		dst **bool
	}{
		{"recursive", &a.Recursive},
		{"include_hidden", &a.IncludeHidden},
		{"follow_symlinks", &a.FollowSymlinks},
		{"respect_gitignore", &a.RespectGitignore},
	} {
		v, ok := fields[b.key]
		if !ok || isNull(v) {
			continue
		}
		var x bool
		if err := json.Unmarshal(v, &x); err != nil {
			return a, badArgs("%q must be true or false, not %s", b.key, v)
		}
		*b.dst = &x
	}
	for _, n := range []struct {
		key string
		min int64
		dst **int64
	}{
		{"max_depth", 1, &a.MaxDepth},
		{"max_results", 1, &a.MaxResults},
		{"max_matches_per_file", 1, &a.MaxMatchesPerFile},
		{"max_file_size_bytes", 1, &a.MaxFileSizeBytes},
		{"max_files", 1, &a.MaxFiles},
		{"context_lines", 0, &a.ContextLines},
	} {
		v, ok := fields[n.key]
		if !ok || isNull(v) {
			continue
		}
		x, err := parseInt(v, n.min)
		if err != nil {
			return a, badArgs("%q must be a whole number of at least %d, not %s", n.key, n.min, v)
		}
		*n.dst = &x
	}
	for _, g := range []struct {
		key string
		dst *[]string
	}{
		{"include_globs", &a.IncludeGlobs},
		{"exclude_globs", &a.ExcludeGlobs},
	} {
		v, ok := fields[g.key]
		if !ok || isNull(v) {
			continue
		}
		var list []string
		if err := json.Unmarshal(v, &list); err != nil || hasNull(v) {
			return a, badArgs(`%q must be an array of glob strings such as ["**/*.go"], not %s`, g.key, v)
		}
		*g.dst = list
	}
	return a, nil
}

// parseInt accepts a JSON integer literal >= min that fits an int64. Like
// serde's integer types it rejects fractions and exponents ("1.0").
func parseInt(v json.RawMessage, min int64) (int64, error) {
	var num json.Number
	if err := json.Unmarshal(v, &num); err != nil || !bytes.Equal(bytes.TrimSpace(v), []byte(num.String())) {
		return 0, fmt.Errorf("not a number")
	}
	x, err := strconv.ParseInt(num.String(), 10, 64)
	if err != nil {
		return 0, err
	}
	if x < min {
		return 0, fmt.Errorf("below %d", min)
	}
	return x, nil
}

func isNull(v json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(v), []byte("null")) }

// hasNull reports whether the JSON array v holds a null element, which
// encoding/json would silently turn into "".
func hasNull(v json.RawMessage) bool {
	var items []json.RawMessage
	if json.Unmarshal(v, &items) != nil {
		return false
	}
	for _, it := range items {
		if isNull(it) {
			return true
		}
	}
	return false
}

func badArgs(format string, a ...any) *toolerr.Error {
	return toolerr.New(toolerr.BadArgs, format, a...)
}

// request is a validated call with every default resolved.
type request struct {
	// path is the trimmed requested path (as sent under
	// Options.UntrimmedPath), the one the sandbox validates;
	// display is its normalized form (I-LD-11).
	path, display     string
	query             string
	mode              string
	caseMode          string // as requested: sensitive, insensitive or smart
	foldCase          bool   // the effective case rule (I-SF-07)
	recursive         bool
	maxDepth          int64 // effective: 1 when not recursive
	maxResults        int64
	maxMatchesPerFile int64
	maxFileSize       int64
	maxFiles          int64
	contextLines      int64
	includeHidden     bool
	followSymlinks    bool
	respectGitignore  bool
	includeGlobs      []string
	excludeGlobs      []string
	backend           string
	fuzzyThreshold    float64
	matcher           matcher
	ext               *extQuery // backend rg or ugrep: what the binary runs
	opts              Options   // the readings the tool takes
}

// resolve applies defaults (explicit > config > built-in) and the argument
// rules in the order of I-SF-02. It performs no I/O.
func resolve(a args, cfg Config, opts Options) (request, error) {
	r := request{
		opts:              opts,
		path:              strings.TrimSpace(a.Path),
		query:             a.Query,
		mode:              deref(a.Mode, cfg.ModeDefault),
		caseMode:          deref(a.Case, cfg.CaseDefault),
		recursive:         deref(a.Recursive, true),
		maxDepth:          1,
		maxResults:        cfg.MaxResults,
		maxMatchesPerFile: cfg.MaxMatchesPerFile,
		maxFileSize:       cfg.MaxFileSizeBytes,
		maxFiles:          cfg.MaxFiles,
		contextLines:      deref(a.ContextLines, 0),
		includeHidden:     deref(a.IncludeHidden, cfg.IncludeHiddenDefault),
		followSymlinks:    deref(a.FollowSymlinks, cfg.FollowSymlinksDefault),
		respectGitignore:  deref(a.RespectGitignore, cfg.RespectGitignoreDefault),
		includeGlobs:      a.IncludeGlobs,
		excludeGlobs:      a.ExcludeGlobs,
		backend:           cfg.Backend,
		fuzzyThreshold:    cfg.FuzzyThreshold,
	}
	r.display = listdir.Normalize(r.path)
	// FR-SF-VAL-01, FR-SF-VAL-02.
	if r.path == "" {
		return r, badArgs(`"path" is empty; send a directory such as "." (the working directory) or "src"`)
	}
	if opts.UntrimmedPath {
		r.path = a.Path // the sandbox validates the path as sent
	}
	if opts.EchoAsSent {
		r.display = r.path
	}
	if strings.TrimSpace(r.query) == "" {
		return r, badArgs(`"query" is empty or only whitespace; send the text or pattern to search for`)
	}
	if opts.TrimmedQuery {
		r.query = strings.TrimSpace(r.query)
	}
	// FR-SF-VAL-03.
	if !r.recursive && a.MaxDepth != nil && *a.MaxDepth != 1 {
		return r, badArgs(`max_depth %d needs "recursive": true; set recursive to true or omit max_depth`, *a.MaxDepth)
	}
	// FR-SF-VAL-04, then the max_depth cap of CFG-SF-02.
	for _, l := range []struct {
		key string
		arg *int64
		cap int64
		dst *int64
	}{
		{"max_results", a.MaxResults, cfg.MaxResults, &r.maxResults},
		{"max_matches_per_file", a.MaxMatchesPerFile, cfg.MaxMatchesPerFile, &r.maxMatchesPerFile},
		{"max_file_size_bytes", a.MaxFileSizeBytes, cfg.MaxFileSizeBytes, &r.maxFileSize},
		{"max_files", a.MaxFiles, cfg.MaxFiles, &r.maxFiles},
	} {
		if l.arg == nil {
			continue
		}
		if *l.arg > l.cap {
			return r, badArgs("%s %d exceeds the configured limit of %d; send %s between 1 and %d",
				l.key, *l.arg, l.cap, l.key, l.cap)
		}
		*l.dst = *l.arg
	}
	if r.recursive {
		r.maxDepth = cfg.MaxDepth
		if a.MaxDepth != nil {
			if *a.MaxDepth > cfg.MaxDepth {
				return r, badArgs("max_depth %d exceeds the configured limit of %d; send max_depth between 1 and %d",
					*a.MaxDepth, cfg.MaxDepth, cfg.MaxDepth)
			}
			r.maxDepth = *a.MaxDepth
		}
	}
	// FR-SF-VAL-05 (I-SF-14): only the native backend computes fuzzy scores.
	if r.mode == modeFuzzy && r.backend != backendNative {
		return r, badArgs(`mode "fuzzy" is not supported by the configured backend %q; use mode "exact" or "regex", or set [tools.search_files] backend = "native"`, r.backend)
	}
	// FR-SF-SRC-02: the query must compile (regex mode).
	m, foldCase, err := newMatcher(r.mode, r.caseMode, r.query, r.fuzzyThreshold)
	if err != nil {
		return r, err
	}
	r.matcher, r.foldCase = m, foldCase
	// I-SF-21, I-SF-22: the query as the external backend runs it.
	if r.backend != backendNative {
		if r.ext, err = newExtQuery(r.backend, r.mode, r.query, foldCase); err != nil {
			return r, err
		}
	}
	// FR-SF-SRC-05: globs must be valid.
	for _, g := range []struct {
		key  string
		list []string
	}{{"include_globs", r.includeGlobs}, {"exclude_globs", r.excludeGlobs}} {
		for _, p := range g.list {
			if !doublestar.ValidatePattern(p) {
				return r, badArgs("%s holds %q, which is not a valid glob; fix the pattern (e.g. \"**/*.go\")", g.key, p)
			}
		}
	}
	return r, nil
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
