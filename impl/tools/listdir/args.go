package listdir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// Config mirrors the [tools.list_directory] table (CFG-LD-01). The *_default
// keys are used when the matching argument is omitted (CFG-LD-04); MaxEntries
// and MaxDepth are both defaults and hard caps (CFG-LD-02, CFG-LD-03).
type Config struct {
	MaxEntries             int64 `json:"max_entries"`
	MaxDepth               int64 `json:"max_depth"`
	IncludeHiddenDefault   bool  `json:"include_hidden_default"`
	IncludeSymlinksDefault bool  `json:"include_symlinks_default"`
	IncludeFilesDefault    bool  `json:"include_files_default"`
	IncludeDirsDefault     bool  `json:"include_dirs_default"`
	IncludeOtherDefault    bool  `json:"include_other_default"`
}

// DefaultConfig returns the built-in defaults of CFG-LD-05, used for every
// key the [tools.list_directory] table leaves out.
func DefaultConfig() Config {
	return Config{
		MaxEntries:             200,
		MaxDepth:               4,
		IncludeHiddenDefault:   false,
		IncludeSymlinksDefault: true,
		IncludeFilesDefault:    true,
		IncludeDirsDefault:     true,
		IncludeOtherDefault:    false,
	}
}

// loadConfig decodes [tools.list_directory] over the built-in defaults
// (FR-LD-VAL-06a precedence: table keys override built-ins).
func loadConfig(c config.Config) (Config, error) {
	cfg := DefaultConfig()
	if err := c.Table(Name, &cfg); err != nil {
		return cfg, toolerr.Failed(Name, "invalid configuration: %v; fix the [tools.list_directory] table", err)
	}
	if cfg.MaxEntries < 1 {
		return cfg, toolerr.Failed(Name, "invalid configuration: [tools.list_directory] max_entries is %d; set it to 1 or more", cfg.MaxEntries)
	}
	if cfg.MaxDepth < 1 {
		return cfg, toolerr.Failed(Name, "invalid configuration: [tools.list_directory] max_depth is %d; set it to 1 or more", cfg.MaxDepth)
	}
	return cfg, nil
}

// args is the typed form of the call's arguments (FR-REG-02). A nil field
// is an omitted argument; the raw JSON is not consulted after parsing.
type args struct {
	Path            string
	Recursive       *bool
	MaxDepth        *int64
	MaxEntries      *int64
	IncludeHidden   *bool
	IncludeFiles    *bool
	IncludeDirs     *bool
	IncludeSymlinks *bool
	IncludeOther    *bool
}

// parseArgs is the single parse boundary. Keys match exactly (encoding/json
// would also accept "PATH" for path; serde does not); unknown keys are
// ignored, as the schema allows them. A null optional argument counts as
// omitted, as serde's Option does.
func parseArgs(raw json.RawMessage) (args, error) {
	var a args
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return a, badArgs(`arguments must be a JSON object such as {"path":"."}`)
	}
	p, ok := fields["path"]
	if !ok {
		return a, badArgs(`missing required argument "path"; send the directory to list, e.g. {"path":"."}`)
	}
	if err := json.Unmarshal(p, &a.Path); err != nil || isNull(p) {
		return a, badArgs(`"path" must be a string naming a directory, e.g. "src"`)
	}
	bools := []struct {
		key string
		dst **bool
	}{
		{"recursive", &a.Recursive},
		{"include_hidden", &a.IncludeHidden},
		{"include_files", &a.IncludeFiles},
		{"include_dirs", &a.IncludeDirs},
		{"include_symlinks", &a.IncludeSymlinks},
		{"include_other", &a.IncludeOther},
	}
	for _, b := range bools {
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
	ints := []struct {
		key string
		dst **int64
	}{
		{"max_depth", &a.MaxDepth},
		{"max_entries", &a.MaxEntries},
	}
	for _, n := range ints {
		v, ok := fields[n.key]
		if !ok || isNull(v) {
			continue
		}
		x, err := parsePositive(v)
		if err != nil {
			return a, badArgs("%q must be a whole number of at least 1, not %s", n.key, v)
		}
		*n.dst = &x
	}
	return a, nil
}

// parsePositive accepts a JSON integer literal >= 1 that fits an int64.
// Like serde's integer types it rejects fractions and exponents ("1.0").
func parsePositive(v json.RawMessage) (int64, error) {
	var num json.Number
	if err := json.Unmarshal(v, &num); err != nil || !bytes.Equal(bytes.TrimSpace(v), []byte(num.String())) {
		return 0, fmt.Errorf("not a number")
	}
	x, err := strconv.ParseInt(num.String(), 10, 64)
	if err != nil {
		return 0, err
	}
	if x < 1 {
		return 0, fmt.Errorf("below 1")
	}
	return x, nil
}

func isNull(v json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(v), []byte("null")) }

func badArgs(format string, a ...any) *toolerr.Error {
	return toolerr.New(toolerr.BadArgs, format, a...)
}

// request is a validated call with every default resolved.
type request struct {
	// path is the trimmed requested path, the one the sandbox validates
	// (I-LD-11); display is its normalized form (FR-LD-VAL-10).
	path, display   string
	recursive       bool
	maxDepth        int64 // effective: 1 when not recursive
	maxEntries      int64
	includeHidden   bool
	includeFiles    bool
	includeDirs     bool
	includeSymlinks bool
	includeOther    bool
	// lossy converts a raw name to UTF-8 (NFR-LD-REL-02, I-LD-01).
	lossy func(string) string
	// vanishedCode is Options.VanishedCode (I-LD-09); keepDirEntry is
	// Options.KeepDirEntry (I-LD-08).
	vanishedCode string
	keepDirEntry bool
}

// resolve applies defaults (explicit > config > built-in, FR-LD-VAL-06a) and
// the argument rules in the order of I-LD-12: VAL-01, VAL-02, VAL-04,
// VAL-05, VAL-06b. It performs no I/O.
func resolve(a args, cfg Config) (request, error) {
	r := request{
		path:            strings.TrimSpace(a.Path),
		recursive:       orDefault(a.Recursive, false),
		maxDepth:        1,
		maxEntries:      cfg.MaxEntries,
		includeHidden:   orDefault(a.IncludeHidden, cfg.IncludeHiddenDefault),
		includeFiles:    orDefault(a.IncludeFiles, cfg.IncludeFilesDefault),
		includeDirs:     orDefault(a.IncludeDirs, cfg.IncludeDirsDefault),
		includeSymlinks: orDefault(a.IncludeSymlinks, cfg.IncludeSymlinksDefault),
		includeOther:    orDefault(a.IncludeOther, cfg.IncludeOtherDefault),
	}
	r.display = Normalize(r.path)
	if r.path == "" {
		return r, badArgs(`"path" is empty; send a directory path such as "." (the working directory) or "src"`)
	}
	if !r.recursive && a.MaxDepth != nil && *a.MaxDepth != 1 {
		return r, badArgs(`max_depth %d needs "recursive": true; set recursive to true or omit max_depth`, *a.MaxDepth)
	}
	if a.MaxEntries != nil {
		if *a.MaxEntries > cfg.MaxEntries {
			return r, badArgs("max_entries %d exceeds the configured limit of %d; send max_entries between 1 and %d",
				*a.MaxEntries, cfg.MaxEntries, cfg.MaxEntries)
		}
		r.maxEntries = *a.MaxEntries
	}
	if !r.includeFiles && !r.includeDirs && !r.includeSymlinks {
		return r, badArgs("include_files, include_dirs and include_symlinks are all false, so nothing could be listed; set at least one of them to true")
	}
	if r.recursive {
		r.maxDepth = cfg.MaxDepth
		if a.MaxDepth != nil {
			if *a.MaxDepth > cfg.MaxDepth {
				return r, badArgs("max_depth %d exceeds the configured cap of %d; send max_depth between 1 and %d",
					*a.MaxDepth, cfg.MaxDepth, cfg.MaxDepth)
			}
			r.maxDepth = *a.MaxDepth
		}
	}
	return r, nil
}

func orDefault(p *bool, def bool) bool {
	if p == nil {
		return def
	}
	return *p
}

// Normalize returns the output form of a requested path (FR-LD-VAL-10,
// I-LD-11): whitespace trimmed, empty and "." segments dropped (which also
// collapses repeated "/" and removes a trailing "/"), a leading "/" kept,
// case preserved; an empty result is ".". Only "/" is a separator: a
// backslash is part of a name on Unix, and "C:/" is the relative directory
// "C:" there, not a drive root.
func Normalize(p string) string {
	p = strings.TrimSpace(p)
	abs := strings.HasPrefix(p, "/")
	segs := strings.Split(p, "/")
	kept := segs[:0]
	for _, s := range segs {
		if s != "" && s != "." {
			kept = append(kept, s)
		}
	}
	out := strings.Join(kept, "/")
	switch {
	case abs:
		return "/" + out
	case out == "":
		return "."
	}
	return out
}
