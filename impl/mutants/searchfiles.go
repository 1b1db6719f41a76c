package mutants

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/afero"
	"github.com/spf13/afero/mem"

	"github.com/forge-conform/forge-conform/impl/canonjson"
	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/lossy"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
	"github.com/forge-conform/forge-conform/impl/tools/listdir"
	"github.com/forge-conform/forge-conform/impl/tools/searchfiles"
)

// searchMutants are the search_files mutants: one defect per verification
// ID of SEARCH_FILES_SRD.md's test table (T-SF-01..10).
func searchMutants() []Mutant {
	const sf = "search_files"
	return []Mutant{
		{
			Name: "search-files-traversal-order", Doc: `search_files leaves matches in traversal order (each directory's names sorted), without the final sort by path ("a/x.txt" before "a-b.txt")`,
			Specs: []string{sf},
			// Every result holding a/x.txt or re/e.txt of search-basic,
			// the max_results cases among them.
			Breaks:  ids(sf, "FR-SF-OUT-01", "T-SF-01", "T-SF-06"),
			Options: wrap(onSearchResult(searchTraversalOrder)),
		},
		{
			Name: "search-files-regex-checked-late", Doc: "search_files compiles a regex query only when it searches, after the path checks: an invalid regex gives ExecutionFailed",
			Specs:   []string{sf},
			Breaks:  ids(sf, "T-SF-02"),
			Options: wrap(onTool(sf, regexCheckedLate)),
		},
		{
			Name: "search-files-sandbox-as-failed", Doc: "search_files reports the sandbox's refusal of its path as ExecutionFailed",
			Specs:   []string{sf},
			Breaks:  ids(sf, "T-SF-03"),
			Options: wrap(onTool(sf, sandboxViolationAsFailed)),
		},
		{
			Name: "search-files-missing-dir-empty", Doc: "search_files answers a path that does not exist with an empty result instead of ExecutionFailed",
			Specs:   []string{sf},
			Breaks:  ids(sf, "T-SF-04"),
			Options: wrap(onTool(sf, missingDirEmptyResult)),
		},
		{
			Name: "search-files-nul-only-binary", Doc: "search_files treats only files with a NUL byte as binary and searches files of invalid UTF-8, decoded lossily",
			Specs: []string{sf},
			// whole-tree, which searches bin/, is also a T-SF-08 case.
			Breaks:  ids(sf, "T-SF-05", "T-SF-08"),
			Options: wrap(onTool(sf, nulOnlyBinary)),
		},
		{
			Name: "search-files-max-results-unflagged", Doc: "search_files stops at max_results but reports truncated=false, truncated_reason=null",
			Specs: []string{sf},
			// budget-replaces-max-results-reason (T-SF-07) and
			// cap-config-at (FR-SF-VAL-04) are cut at max_results too.
			Breaks:  ids(sf, "FR-SF-VAL-04", "T-SF-06", "T-SF-07"),
			Options: wrap(onSearchResult(maxResultsUnflagged)),
		},
		{
			// 16 bytes rather than one: search_files' output holds
			// elapsed_ms, whose width moves every length by a byte per
			// digit, so an overrun of one byte shows only at one
			// width (the case's budget is exact for elapsed_ms < 10) and a
			// slow run hid it. 16 bytes over shows at every width.
			Name: "search-files-budget-overrun", Doc: "search_files allows effective_max+16 bytes of output",
			Specs:   []string{sf},
			Breaks:  ids(sf, "FR-SF-OUT-03", "T-SF-07"),
			Options: wrap(onTool(sf, budgetPlus(16))),
		},
		{
			Name: "search-files-raw-name-bytes", Doc: "search_files writes the bytes of file names that are not UTF-8 into its JSON as they are",
			Specs: []string{sf},
			// The UTF-8 invariant names NFR-SF-REL-02 and T-SF-08;
			// whole-tree is also a T-SF-05 case.
			Breaks:  ids(sf, "NFR-SF-REL-02", "T-SF-05", "T-SF-08"),
			Options: wrap(onTool(sf, rawNameBytes)),
		},
		{
			Name: "search-files-gitignore-off-by-default", Doc: "search_files defaults respect_gitignore to false when the argument is omitted",
			Specs:   []string{sf},
			Breaks:  ids(sf, "T-SF-09"),
			Options: wrap(onTool(sf, gitignoreOffByDefault)),
		},
		{
			Name: "search-files-fuzzy-as-exact", Doc: `search_files with backend "rg" or "ugrep" runs a fuzzy query as an exact search instead of refusing it`,
			Specs:   []string{sf},
			Breaks:  ids(sf, "T-SF-10"),
			Options: wrap(onTool(sf, fuzzyAsExact)),
		},
	}
}

// sfResult is search_files' result with every value kept as the tool
// wrote it, so that a rewrite changes only what it means to.
type sfResult struct {
	Path            json.RawMessage   `json:"path"`
	Query           json.RawMessage   `json:"query"`
	Mode            json.RawMessage   `json:"mode"`
	Case            json.RawMessage   `json:"case"`
	Matches         []json.RawMessage `json:"matches"`
	Returned        int64             `json:"returned"`
	MaxResults      int64             `json:"max_results"`
	Truncated       bool              `json:"truncated"`
	TruncatedReason json.RawMessage   `json:"truncated_reason"`
	Stats           json.RawMessage   `json:"stats"`
	Errors          []json.RawMessage `json:"errors"`
}

// sfMatchKey is what a rewrite reads of one match or error entry.
type sfMatchKey struct {
	Path   string `json:"path"`
	Line   int64  `json:"line"`
	Column int64  `json:"column"`
}

func sfKey(raw json.RawMessage) sfMatchKey {
	var k sfMatchKey
	_ = json.Unmarshal(raw, &k)
	return k
}

// render writes the result back in the tool's byte format.
func (r *sfResult) render() string {
	var b bytes.Buffer
	list := func(items []json.RawMessage) {
		b.WriteByte('[')
		for i, e := range items {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(e)
		}
		b.WriteByte(']')
	}
	b.WriteString(`{"path":`)
	b.Write(r.Path)
	b.WriteString(`,"query":`)
	b.Write(r.Query)
	b.WriteString(`,"mode":`)
	b.Write(r.Mode)
	b.WriteString(`,"case":`)
	b.Write(r.Case)
	b.WriteString(`,"matches":`)
	list(r.Matches)
	b.WriteString(`,"returned":`)
	b.WriteString(strconv.FormatInt(r.Returned, 10))
	b.WriteString(`,"max_results":`)
	b.WriteString(strconv.FormatInt(r.MaxResults, 10))
	b.WriteString(`,"truncated":`)
	b.WriteString(strconv.FormatBool(r.Truncated))
	b.WriteString(`,"truncated_reason":`)
	b.Write(r.TruncatedReason)
	b.WriteString(`,"stats":`)
	b.Write(r.Stats)
	b.WriteString(`,"errors":`)
	list(r.Errors)
	b.WriteByte('}')
	return b.String()
}

// rewriteSearch applies f to a search_files result; output that is not a
// result passes unchanged.
func rewriteSearch(f func(*sfResult)) func(string) string {
	return func(out string) string {
		var r sfResult
		if err := json.Unmarshal([]byte(out), &r); err != nil || r.Path == nil || r.Stats == nil {
			return out
		}
		f(&r)
		return r.render()
	}
}

// onSearchResult is a search_files mutant that rewrites the result.
func onSearchResult(f func(*sfResult)) func(tool.Tool) tool.Tool {
	return onTool(searchfiles.Name, func(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
		return rewriteWithinBudget(inner, ctx, args, c, rewriteSearch(f))
	})
}

// searchTraversalOrder orders the matches as a depth-first walk that
// sorts each directory's names finds them, skipping FR-SF-OUT-01's sort by
// path: "a/x.txt" then comes before "a-b.txt" ('/' sorts after '-').
func searchTraversalOrder(r *sfResult) {
	slices.SortStableFunc(r.Matches, func(a, b json.RawMessage) int {
		return slices.Compare(strings.Split(sfKey(a).Path, "/"), strings.Split(sfKey(b).Path, "/"))
	})
}

// maxResultsUnflagged drops the truncation marker of a result cut at
// max_results (FR-SF-SRC-08).
func maxResultsUnflagged(r *sfResult) {
	if string(r.TruncatedReason) == `"max_results"` {
		r.Truncated, r.TruncatedReason = false, json.RawMessage("null")
	}
}

// sfSettings are the call's effective settings that the mutants read:
// explicit argument > [tools.search_files] > built-in default.
type sfSettings struct {
	path, mode, caseMode, backend string
	maxResults                    int64
}

func sfSettingsOf(raw json.RawMessage, c *tool.Ctx) sfSettings {
	cfg := searchfiles.DefaultConfig()
	_ = c.Config.Table(searchfiles.Name, &cfg)
	var a struct {
		Path       string  `json:"path"`
		Mode       *string `json:"mode"`
		Case       *string `json:"case"`
		MaxResults *int64  `json:"max_results"`
	}
	_ = json.Unmarshal(raw, &a)
	s := sfSettings{path: a.Path, mode: cfg.ModeDefault, caseMode: cfg.CaseDefault, backend: cfg.Backend, maxResults: cfg.MaxResults}
	if a.Mode != nil {
		s.mode = *a.Mode
	}
	if a.Case != nil {
		s.caseMode = *a.Case
	}
	if a.MaxResults != nil {
		s.maxResults = *a.MaxResults
	}
	return s
}

// withArgs returns raw with the given keys set.
func withArgs(raw json.RawMessage, set map[string]json.RawMessage) json.RawMessage {
	var a map[string]json.RawMessage
	if json.Unmarshal(raw, &a) != nil || a == nil {
		return raw
	}
	for k, v := range set {
		a[k] = v
	}
	out, _ := json.Marshal(a)
	return out
}

func kindOf(err error) toolerr.Kind {
	var te *toolerr.Error
	if errors.As(err, &te) {
		return te.Kind
	}
	return ""
}

// regexCheckedLate compiles the regex where the search starts instead of
// with the other arguments (FR-SF-SRC-02): a call whose only fault is its
// regex gets the path's errors first, and then ExecutionFailed.
func regexCheckedLate(inner execFunc, ctx context.Context, raw json.RawMessage, c *tool.Ctx) (string, error) {
	out, err := inner(ctx, raw, c)
	s := sfSettingsOf(raw, c)
	var a struct {
		Query string `json:"query"`
	}
	if kindOf(err) != toolerr.BadArgs || s.mode != "regex" || json.Unmarshal(raw, &a) != nil || strings.TrimSpace(a.Query) == "" {
		return out, err
	}
	plain := withArgs(raw, map[string]json.RawMessage{"query": json.RawMessage(`"x"`)})
	if _, perr := inner(ctx, plain, c); perr != nil {
		if kindOf(perr) == toolerr.BadArgs {
			return out, err // another argument is wrong too
		}
		return "", perr
	}
	return "", toolerr.Failed(searchfiles.Name, "search failed: regex parse error in %q", a.Query)
}

// sandboxViolationAsFailed wraps the sandbox's refusal as ExecutionFailed
// (FR-SF-ERR-02).
func sandboxViolationAsFailed(inner execFunc, ctx context.Context, raw json.RawMessage, c *tool.Ctx) (string, error) {
	out, err := inner(ctx, raw, c)
	if kindOf(err) == toolerr.SandboxViolation {
		return "", toolerr.Failed(searchfiles.Name, "cannot search: %v", err)
	}
	return out, err
}

// missingDirEmptyResult treats a root that does not exist as a tree
// without files (FR-SF-VAL-07, FR-SF-ERR-03), as a walker that ignores
// the root's NotFound does.
func missingDirEmptyResult(inner execFunc, ctx context.Context, raw json.RawMessage, c *tool.Ctx) (string, error) {
	out, err := inner(ctx, raw, c)
	if kindOf(err) != toolerr.ExecutionFailed || c.Sandbox == nil {
		return out, err
	}
	s := sfSettingsOf(raw, c)
	root, verr := c.Sandbox.Validate(strings.TrimSpace(s.path))
	if verr != nil {
		return out, err
	}
	if _, serr := fsys.Stat(c.FS, root); !errors.Is(serr, fs.ErrNotExist) {
		return out, err
	}
	var q struct {
		Query string `json:"query"`
	}
	_ = json.Unmarshal(raw, &q)
	b := canonjson.AppendKey([]byte{'{'}, "path", true)
	b = canonjson.AppendString(b, listdir.Normalize(s.path))
	for _, kv := range [][2]string{{"query", q.Query}, {"mode", s.mode}, {"case", s.caseMode}} {
		b = canonjson.AppendKey(b, kv[0], false)
		b = canonjson.AppendString(b, kv[1])
	}
	b = append(b, `,"matches":[],"returned":0,"max_results":`...)
	b = canonjson.AppendInt(b, s.maxResults)
	b = append(b, `,"truncated":false,"truncated_reason":null,"stats":{"files_scanned":0,"files_matched":0,"matches_total":0,"elapsed_ms":0},"errors":[]}`...)
	if int64(len(b)) > c.EffectiveMax() {
		return out, err
	}
	c.AllowTruncation = false
	return string(b), nil
}

// nulOnlyBinary runs the tool on a filesystem that decodes every regular
// file without a NUL byte lossily, so the tool's check for invalid UTF-8
// (FR-SF-SRC-04) never sees any.
func nulOnlyBinary(inner execFunc, ctx context.Context, raw json.RawMessage, c *tool.Ctx) (string, error) {
	return onRewrittenFiles(inner, ctx, raw, c, func(_ string, data []byte) ([]byte, bool) {
		if bytes.IndexByte(data, 0) >= 0 || utf8.Valid(data) {
			return nil, false
		}
		return bytes.ToValidUTF8(data, []byte("\uFFFD")), true
	})
}

// onRewrittenFiles runs the tool on a filesystem whose regular files read
// as rewrite makes them (rewriteFS).
func onRewrittenFiles(inner execFunc, ctx context.Context, raw json.RawMessage, c *tool.Ctx, rewrite func(name string, data []byte) ([]byte, bool)) (string, error) {
	cc := *c
	cc.FS = rewriteFS{Fs: c.FS, rewrite: rewrite}
	out, err := inner(ctx, raw, &cc)
	c.AllowTruncation = cc.AllowTruncation
	return out, err
}

// rewriteFS is a filesystem whose regular files (up to 64 MiB) read as
// rewrite returns them when it reports a change. Everything else, and
// every file it cannot read whole, is the underlying filesystem's, so its
// faults and permissions still show.
type rewriteFS struct {
	afero.Fs
	rewrite func(name string, data []byte) ([]byte, bool)
}

func (f rewriteFS) LstatIfPossible(name string) (fs.FileInfo, bool, error) {
	fi, err := fsys.Lstat(f.Fs, name)
	return fi, true, err
}

func (f rewriteFS) ReadlinkIfPossible(name string) (string, error) {
	return fsys.Readlink(f.Fs, name)
}

func (f rewriteFS) Open(name string) (afero.File, error) {
	return f.OpenFile(name, os.O_RDONLY, 0)
}

func (f rewriteFS) OpenFile(name string, flag int, perm fs.FileMode) (afero.File, error) {
	file, err := f.Fs.OpenFile(name, flag, perm)
	if err != nil || flag&(os.O_WRONLY|os.O_RDWR) != 0 {
		return file, err
	}
	info, serr := file.Stat()
	if serr != nil || !info.Mode().IsRegular() || info.Size() > 64<<20 {
		return file, err
	}
	data, rerr := afero.ReadFile(f.Fs, name)
	if rerr != nil {
		return file, err
	}
	changed, ok := f.rewrite(name, data)
	if !ok {
		return file, err
	}
	file.Close()
	fd := mem.CreateFile(name)
	mem.SetMode(fd, info.Mode())
	mem.SetModTime(fd, info.ModTime())
	h := mem.NewFileHandle(fd)
	if _, err := h.Write(changed); err != nil {
		return nil, err
	}
	if _, err := h.Seek(0, 0); err != nil {
		return nil, err
	}
	return mem.NewReadOnlyFileHandle(fd), nil
}

// rawNameBytes writes each match's and error entry's path with the bytes
// of the names on disk instead of their lossy UTF-8 form
// (NFR-SF-REL-02). Files whose lossy paths tie are told apart by their
// order: the tool sorts ties by raw path, and a file's matches come in
// ascending line and column.
func rawNameBytes(inner execFunc, ctx context.Context, raw json.RawMessage, c *tool.Ctx) (string, error) {
	root := ""
	if c.Sandbox != nil {
		root, _ = c.Sandbox.Validate(strings.TrimSpace(sfSettingsOf(raw, c).path))
	}
	rewrite := rewriteSearch(func(r *sfResult) {
		if root == "" {
			return
		}
		var prev sfMatchKey
		nth := 0
		for i, m := range r.Matches {
			k := sfKey(m)
			switch {
			case k.Path != prev.Path:
				nth = 0
			case k.Line < prev.Line || (k.Line == prev.Line && k.Column <= prev.Column):
				nth++
			}
			prev = k
			r.Matches[i] = withRawPath(m, k.Path, rawPathOf(c.FS, root, k.Path, nth))
		}
		last, nth := "", 0
		for i, e := range r.Errors {
			p := sfKey(e).Path
			if p == last {
				nth++
			} else {
				nth = 0
			}
			last = p
			r.Errors[i] = withRawPath(e, p, rawPathOf(c.FS, root, p, nth))
		}
	})
	return rewriteWithinBudget(inner, ctx, raw, c, rewrite)
}

// withRawPath replaces the entry's leading "path" value with rawPath
// written byte for byte, JSON-escaped but not UTF-8-checked.
func withRawPath(entry json.RawMessage, lossyPath, rawPath string) json.RawMessage {
	if rawPath == lossyPath {
		return entry
	}
	old := canonjson.AppendString(nil, lossyPath)
	var esc []byte
	esc = append(esc, '"')
	for i := 0; i < len(rawPath); {
		r, n := utf8.DecodeRuneInString(rawPath[i:])
		if r == utf8.RuneError && n == 1 {
			esc = append(esc, rawPath[i])
		} else {
			q := canonjson.AppendString(nil, rawPath[i:i+n])
			esc = append(esc, q[1:len(q)-1]...)
		}
		i += n
	}
	esc = append(esc, '"')
	return bytes.Replace(entry, append([]byte(`{"path":`), old...), append([]byte(`{"path":`), esc...), 1)
}

// rawPathOf finds the path on disk under root whose lossy form is
// lossyPath: the nth of the names that tie in the last component (raw
// byte order), the first elsewhere. It returns lossyPath when the path
// holds no replacement character or is not found.
func rawPathOf(afs afero.Fs, root, lossyPath string, nth int) string {
	if !strings.ContainsRune(lossyPath, utf8.RuneError) {
		return lossyPath
	}
	parts := strings.Split(lossyPath, "/")
	dir := root
	var rawParts []string
	for i, p := range parts {
		if !strings.ContainsRune(p, utf8.RuneError) {
			rawParts = append(rawParts, p)
			dir = filepath.Join(dir, p)
			continue
		}
		names, err := fsys.ReadDirNames(afs, dir)
		if err != nil {
			return lossyPath
		}
		var ties []string
		for _, n := range names {
			if lossy.String(n) == p {
				ties = append(ties, n)
			}
		}
		if len(ties) == 0 {
			return lossyPath
		}
		slices.Sort(ties)
		pick := ties[0]
		if i == len(parts)-1 && nth < len(ties) {
			pick = ties[nth]
		}
		rawParts = append(rawParts, pick)
		dir = filepath.Join(dir, pick)
	}
	return strings.Join(rawParts, "/")
}

// gitignoreOffByDefault reads an omitted respect_gitignore as false, the
// zero value, instead of the schema's default true (or
// respect_gitignore_default).
func gitignoreOffByDefault(inner execFunc, ctx context.Context, raw json.RawMessage, c *tool.Ctx) (string, error) {
	var a map[string]json.RawMessage
	if json.Unmarshal(raw, &a) == nil && a != nil {
		if v, ok := a["respect_gitignore"]; !ok || string(v) == "null" {
			raw = withArgs(raw, map[string]json.RawMessage{"respect_gitignore": json.RawMessage("false")})
		}
	}
	return inner(ctx, raw, c)
}

// fuzzyAsExact runs a fuzzy query on an external backend, which has no
// fuzzy matching, as an exact one (FR-SF-VAL-05): the matches of the
// query as a literal, scores null, mode "exact". The search itself runs
// on the native backend, which finds what rg and ugrep find, so the
// defect shows whether or not the binaries are installed.
func fuzzyAsExact(inner execFunc, ctx context.Context, raw json.RawMessage, c *tool.Ctx) (string, error) {
	s := sfSettingsOf(raw, c)
	if s.mode != "fuzzy" || s.backend == "native" {
		return inner(ctx, raw, c)
	}
	cc := *c
	table := map[string]json.RawMessage{}
	_ = json.Unmarshal(c.Config.Tools[searchfiles.Name], &table)
	table["backend"] = json.RawMessage(`"native"`)
	tools := make(map[string]json.RawMessage, len(c.Config.Tools))
	for k, v := range c.Config.Tools {
		tools[k] = v
	}
	tools[searchfiles.Name], _ = json.Marshal(table)
	cc.Config.Tools = tools
	out, err := inner(ctx, withArgs(raw, map[string]json.RawMessage{"mode": json.RawMessage(`"exact"`)}), &cc)
	c.AllowTruncation = cc.AllowTruncation
	return out, err
}
