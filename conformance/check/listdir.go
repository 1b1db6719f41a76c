package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The list_directory output, as the SRD's §3.5 tables define it.
type ldOutput struct {
	Path            string    `json:"path"`
	Entries         []ldEntry `json:"entries"`
	Returned        int64     `json:"returned"`
	MaxEntries      int64     `json:"max_entries"`
	Truncated       bool      `json:"truncated"`
	TruncatedReason *string   `json:"truncated_reason"`
}

type ldEntry struct {
	Name            string  `json:"name"`
	Path            string  `json:"path"`
	Depth           int64   `json:"depth"`
	Type            string  `json:"type"`
	SizeBytes       *int64  `json:"size_bytes"`
	ModifiedEpochMs *int64  `json:"modified_epoch_ms"`
	IsHidden        bool    `json:"is_hidden"`
	ErrorCode       *string `json:"error_code"`
	Error           *string `json:"error"`
}

var (
	ldTopKeys   = []string{"path", "entries", "returned", "max_entries", "truncated", "truncated_reason"}
	ldEntryKeys = []string{"name", "path", "depth", "type", "size_bytes", "modified_epoch_ms", "is_hidden", "error_code", "error"}
	ldTypes     = map[string]bool{"file": true, "dir": true, "symlink": true, "other": true, "unknown": true}
	ldCodes     = map[string]bool{"metadata_unavailable": true, "permission_denied": true, "read_dir_failed": true, "io_error": true, "unknown": true}
)

// ldParams are the effective parameters of a call, read from the SRD's
// precedence rule (FR-LD-VAL-06a): explicit args > [tools.list_directory] >
// built-in defaults (CFG-LD-05).
type ldParams struct {
	path                                 string
	recursive                            bool
	maxEntries, maxDepth                 int64
	hidden, files, dirs, symlinks, other bool
}

func ldParamsOf(in Input) ldParams {
	a, t := in.Args, table(in.Config, "list_directory")
	p := ldParams{}
	p.path, _ = a["path"].(string)
	p.recursive = boolOf(false, a["recursive"])
	p.maxEntries = intOf(intOf(200, t["max_entries"]), a["max_entries"])
	p.maxDepth = 1
	if p.recursive {
		p.maxDepth = intOf(intOf(4, t["max_depth"]), a["max_depth"])
	}
	p.hidden = boolOf(false, a["include_hidden"], t["include_hidden_default"])
	p.files = boolOf(true, a["include_files"], t["include_files_default"])
	p.dirs = boolOf(true, a["include_dirs"], t["include_dirs_default"])
	p.symlinks = boolOf(true, a["include_symlinks"], t["include_symlinks_default"])
	p.other = boolOf(false, a["include_other"], t["include_other_default"])
	return p
}

// listDirChecks registers list_directory's checks: its invariants, and a
// repeated call must give the same bytes (FR-LD-OUT-02 stable output, C-03
// deterministic order).
func listDirChecks() (string, ToolChecks) {
	return "list_directory", ToolChecks{Invariants: listDirInvariants, Deterministic: []string{"FR-LD-OUT-02", "C-03"}}
}

func listDirInvariants(in Input) []Failure {
	r := in.Resp
	if r.OK == nil || !*r.OK {
		return ldErrorInvariants(in)
	}
	var out []Failure
	inv := func(msg string, ids ...string) { out = append(out, fail(KindInvariant, msg, ids...)) }
	if r.AllowTruncation == nil || *r.AllowTruncation {
		inv("allow_truncation must be false for list_directory results", "FR-LD-OUT-04")
	}
	content := []byte(contentOf(r))
	if in.ContentBytes > in.Ctx.EffectiveMax() {
		inv(fmt.Sprintf("output is %d bytes, over effective_max %d", in.ContentBytes, in.Ctx.EffectiveMax()), "FR-LD-OUT-03", "FR-LD-OUT-06")
	}
	if !json.Valid(content) {
		inv("content is not valid JSON: "+clip(string(content), 200), "NFR-LD-REL-01")
		return out
	}
	for _, m := range canonicalProblems(content) {
		inv(m, "FR-LD-OUT-02a")
	}
	var rawTop map[string]json.RawMessage
	if err := json.Unmarshal(content, &rawTop); err != nil {
		inv("content is not a JSON object", "NFR-LD-REL-01")
		return out
	}
	if m := keyProblems(content, ldTopKeys); m != "" {
		inv("top-level object: "+m, "LD-ENT-06", "FR-LD-OUT-02a")
	}
	for _, k := range nullProblems(rawTop, "path", "entries", "returned", "max_entries", "truncated") {
		inv("top-level "+k, "LD-ENT-06")
	}
	var rawEntries []json.RawMessage
	_ = json.Unmarshal(rawTop["entries"], &rawEntries)
	for i, e := range rawEntries {
		if m := keyProblems(e, ldEntryKeys); m != "" {
			inv(fmt.Sprintf("entries[%d]: %s", i, m), "LD-ENT-06", "FR-LD-OUT-02a")
		}
		var fields map[string]json.RawMessage
		if json.Unmarshal(e, &fields) != nil {
			inv(fmt.Sprintf("entries[%d] is not an object", i), "LD-ENT-06")
			continue
		}
		for _, k := range nullProblems(fields, "name", "path", "depth", "type", "is_hidden") {
			inv(fmt.Sprintf("entries[%d]: %s", i, k), "LD-ENT-06")
		}
	}
	var o ldOutput
	if err := json.Unmarshal(content, &o); err != nil {
		inv("a field has the wrong type: "+err.Error(), "LD-ENT-06")
		return out
	}
	p := ldParamsOf(in)

	// FR-LD-OUT-02b and FR-LD-LST-07.
	if o.Returned != int64(len(o.Entries)) {
		inv(fmt.Sprintf("returned is %d but entries has %d elements", o.Returned, len(o.Entries)), "FR-LD-OUT-02b")
	}
	switch {
	case !o.Truncated && o.TruncatedReason != nil:
		inv(fmt.Sprintf("truncated=false but truncated_reason=%q (must be null)", *o.TruncatedReason), "FR-LD-OUT-02b")
	case o.Truncated && o.TruncatedReason == nil:
		inv("truncated=true but truncated_reason is null", "FR-LD-OUT-02b")
	case o.Truncated && *o.TruncatedReason != "max_entries" && *o.TruncatedReason != "max_output_bytes":
		inv(fmt.Sprintf("truncated_reason %q is neither max_entries nor max_output_bytes", *o.TruncatedReason), "FR-LD-OUT-02b")
	case o.Truncated && *o.TruncatedReason == "max_entries" && o.Returned != p.maxEntries:
		inv(fmt.Sprintf("truncated for max_entries but returned %d entries, not max_entries=%d", o.Returned, p.maxEntries), "FR-LD-OUT-07")
	}
	if o.MaxEntries != p.maxEntries {
		inv(fmt.Sprintf("max_entries is %d, want the effective value %d", o.MaxEntries, p.maxEntries), "LD-ENT-06", "FR-LD-VAL-06a")
	}
	if int64(len(o.Entries)) > p.maxEntries {
		inv(fmt.Sprintf("%d entries returned, more than max_entries=%d", len(o.Entries), p.maxEntries), "FR-LD-LST-07", "NFR-LD-PERF-01")
	}
	if want := normalizePath(p.path); o.Path != want {
		inv(fmt.Sprintf("path is %q, want the normalized request path %q", o.Path, want), "FR-LD-VAL-10")
	}

	symlinks := map[string]bool{}
	disk := ldDisk{base: ldBase(in.Root, p.path)}
	for i, e := range o.Entries {
		where := fmt.Sprintf("entries[%d] %q", i, e.Path)
		if i > 0 && o.Entries[i-1].Path > e.Path {
			inv(fmt.Sprintf("%s sorts before the previous entry %q: entries must be in ascending path order", where, o.Entries[i-1].Path), "FR-LD-OUT-01")
		}
		comps := strings.Split(e.Path, "/")
		switch {
		case e.Depth < 1 || e.Depth > p.maxDepth:
			id := "FR-LD-LST-02"
			if !p.recursive {
				id = "FR-LD-LST-01"
			}
			inv(fmt.Sprintf("%s has depth %d outside 1..%d", where, e.Depth, p.maxDepth), id, "NFR-LD-PERF-01")
		case e.Depth != int64(len(comps)):
			inv(fmt.Sprintf("%s has depth %d but %d path components", where, e.Depth, len(comps)), "LD-ENT-05")
		}
		if comps[len(comps)-1] != e.Name {
			inv(fmt.Sprintf("%s has name %q, not its last path component", where, e.Name), "LD-ENT-05")
		}
		if e.IsHidden != strings.HasPrefix(e.Name, ".") {
			inv(fmt.Sprintf("%s has is_hidden=%v", where, e.IsHidden), "LD-ENT-05", "FR-LD-LST-06a")
		}
		for _, c := range comps {
			if c == "." || c == ".." || c == "" {
				inv(fmt.Sprintf("%s has a %q component", where, c), "FR-LD-LST-03")
			}
		}
		if !ldTypes[e.Type] {
			inv(fmt.Sprintf("%s has type %q (want file, dir, symlink, other or unknown)", where, e.Type), "LD-ENT-01")
		} else if want := disk.typeOf(e.Path); want != "" && e.Type != "unknown" && e.Type != want {
			inv(fmt.Sprintf("%s has type %s, but lstat (which does not follow symlinks) says %s", where, e.Type, want), "LD-ENT-01")
		}
		if (e.Type == "file") != (e.SizeBytes != nil) {
			inv(fmt.Sprintf("%s of type %s has size_bytes %s", where, e.Type, ptrString(e.SizeBytes)), "LD-ENT-02")
		}
		if e.SizeBytes != nil && *e.SizeBytes < 0 {
			inv(fmt.Sprintf("%s has negative size_bytes", where), "LD-ENT-02")
		}
		unknown := e.Type == "unknown"
		if unknown != (e.ErrorCode != nil) || unknown != (e.Error != nil) {
			inv(fmt.Sprintf("%s of type %s has error_code %s and error %s: both are set exactly for type unknown", where, e.Type, strPtr(e.ErrorCode), strPtr(e.Error)), "LD-ENT-04", "FR-LD-LST-04")
		}
		if e.ErrorCode != nil && !ldCodes[*e.ErrorCode] {
			inv(fmt.Sprintf("%s has error_code %q, not one of the five codes", where, *e.ErrorCode), "LD-ENT-04")
		}
		if !p.hidden {
			for _, c := range comps {
				if strings.HasPrefix(c, ".") {
					inv(fmt.Sprintf("%s is or lies under a hidden entry with include_hidden=false", where), "FR-LD-LST-06")
					break
				}
			}
		}
		if !unknown {
			excluded := map[string]bool{"file": !p.files, "dir": !p.dirs, "symlink": !p.symlinks, "other": !p.other}
			if excluded[e.Type] {
				inv(fmt.Sprintf("%s of type %s is listed although include_%s is false", where, e.Type, pluralOf(e.Type)), "FR-LD-VAL-06", "FR-LD-VAL-06a")
			}
		}
		for k := 1; k < len(comps); k++ {
			if parent := strings.Join(comps[:k], "/"); symlinks[parent] || disk.typeOf(parent) == "symlink" {
				inv(fmt.Sprintf("%s lies under the symlink %q: symlinks must not be traversed", where, parent), "FR-LD-VAL-09", "NFR-LD-SEC-03")
				break
			}
		}
		if e.Type == "symlink" {
			symlinks[e.Path] = true
		}
		if unknown && e.ErrorCode != nil && *e.ErrorCode == "metadata_unavailable" && disk.danglingLink(e.Path) {
			inv(fmt.Sprintf("%s is typed unknown, but it is a symlink whose target is gone: lstat (which does not follow it) succeeds", where), "LD-ENT-01")
		}
	}
	for _, m := range disk.missingSymlinks(o, p) {
		inv(fmt.Sprintf("the symlink %q is missing: lstat types it symlink and include_symlinks is true (typed by its target, it would be filtered as the target)", m), "LD-ENT-01")
	}
	return out
}

func ldErrorInvariants(in Input) []Failure {
	e := in.Resp.Error
	if e == nil {
		return nil
	}
	var out []Failure
	if strings.TrimSpace(e.Message) == "" {
		out = append(out, fail(KindInvariant, e.Kind+" has an empty message: errors need a clear message", "FR-LD-ERR-01"))
	}
	if e.Kind == "SandboxViolation" && e.Denial == nil {
		out = append(out, fail(KindInvariant, "SandboxViolation without a denial reason", "FR-LD-ERR-02"))
	}
	return out
}

// normalizePath is FR-LD-VAL-10 read with I-LD-11: trim, drop empty and "."
// segments, keep a leading "/"; "." when nothing is left.
func normalizePath(p string) string {
	p = strings.TrimFunc(p, unicode.IsSpace)
	abs := strings.HasPrefix(p, "/")
	var segs []string
	for _, s := range strings.Split(p, "/") {
		if s != "" && s != "." {
			segs = append(segs, s)
		}
	}
	out := strings.Join(segs, "/")
	switch {
	case abs:
		return "/" + out
	case out == "":
		return "."
	}
	return out
}

// canonicalProblems scans JSON text for what canonical serialization
// (FR-LD-OUT-02a, I-LD-03) forbids: whitespace between tokens and escapes
// other than \" \\ \b \f \n \r \t and lower-case \u00XX for other control
// characters.
func canonicalProblems(b []byte) []string {
	var out []string
	add := func(m string) {
		if len(out) < 5 {
			out = append(out, m)
		}
	}
	in := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !in {
			switch c {
			case '"':
				in = true
			case ' ', '\t', '\n', '\r':
				add(fmt.Sprintf("insignificant whitespace at byte %d", i))
			}
			continue
		}
		switch c {
		case '"':
			in = false
		case '\\':
			if i+1 >= len(b) {
				return out
			}
			i++
			switch b[i] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
			case '/':
				add(fmt.Sprintf("escaped / as \\/ at byte %d: standard escaping leaves it literal", i-1))
			case 'u':
				if i+4 >= len(b) {
					return out
				}
				hex := string(b[i+1 : i+5])
				var v int
				fmt.Sscanf(hex, "%04x", &v)
				switch {
				case hex != strings.ToLower(hex):
					add(fmt.Sprintf("escape \\u%s at byte %d uses upper-case hex", hex, i-1))
				case v >= 0x20:
					add(fmt.Sprintf("escaped %q as \\u%s at byte %d: only control characters are escaped (no HTML escaping, I-LD-03)", rune(v), hex, i-1))
				case v == '\b' || v == '\f' || v == '\n' || v == '\r' || v == '\t':
					add(fmt.Sprintf("escaped U+%04X as \\u%s at byte %d: it has a short escape", v, hex, i-1))
				}
				i += 4
			}
		}
	}
	return out
}

// nullProblems names the fields among keys that are present but null,
// which §3.5 types as never-null (string, array, integer, boolean).
func nullProblems(obj map[string]json.RawMessage, keys ...string) []string {
	var out []string
	for _, k := range keys {
		if v, ok := obj[k]; ok && string(bytes.TrimSpace(v)) == "null" {
			out = append(out, fmt.Sprintf("field %q is null; the SRD gives it a non-null type", k))
		}
	}
	return out
}

// keyProblems reports when the object's keys are not exactly want, in order.
func keyProblems(obj []byte, want []string) string {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "is not an object"
	}
	var got []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err.Error()
		}
		got = append(got, t.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err.Error()
		}
	}
	if strings.Join(got, ",") == strings.Join(want, ",") {
		return ""
	}
	return fmt.Sprintf("keys are [%s], want exactly [%s] in that order", strings.Join(got, " "), strings.Join(want, " "))
}

func pluralOf(t string) string {
	switch t {
	case "dir":
		return "dirs"
	case "other":
		return "other"
	}
	return t + "s"
}

func ptrString(p *int64) string {
	if p == nil {
		return "null"
	}
	return itoa(*p)
}

func strPtr(p *string) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprintf("%q", *p)
}

// ldDisk is the fixture as it lies on disk: the oracle for what an entry's
// no-follow type is (LD-ENT-01) and which directories are symlinks
// (FR-LD-VAL-09). base is the listed directory; empty means no oracle.
type ldDisk struct{ base string }

// ldBase is the directory a call lists: the request path with $ROOT
// expanded, relative to the fixture root. "" when the root is unknown.
func ldBase(root, reqPath string) string {
	if root == "" {
		return ""
	}
	p := strings.ReplaceAll(reqPath, "$ROOT", root)
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	return p
}

// typeOf is the SRD type of the entry at rel (a listing path) from lstat,
// or "" when it cannot be told (no oracle, a lossy name, an unreadable
// parent).
func (d ldDisk) typeOf(rel string) string {
	if d.base == "" {
		return ""
	}
	fi, err := os.Lstat(filepath.Join(d.base, filepath.FromSlash(rel)))
	if err != nil {
		return ""
	}
	switch m := fi.Mode(); {
	case m.IsRegular():
		return "file"
	case m.IsDir():
		return "dir"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	default:
		return "other"
	}
}

// danglingLink reports whether rel is a symlink whose target does not
// exist.
func (d ldDisk) danglingLink(rel string) bool {
	if d.typeOf(rel) != "symlink" {
		return false
	}
	_, err := os.Stat(filepath.Join(d.base, filepath.FromSlash(rel)))
	return errors.Is(err, fs.ErrNotExist)
}

// missingSymlinks returns the symlinks on disk that the listing o must
// hold but lacks: not hidden-filtered, within the depth, inside the listed
// directory or a directory the listing shows and descends into, and, when
// max_entries cut the listing, before its last entry in depth-first order.
// Only symlinks are checked: their type is the one a listing that follows
// links gets wrong, and so filters wrongly (LD-ENT-01). Listings cut by
// the output budget are not checked.
func (d ldDisk) missingSymlinks(o ldOutput, p ldParams) []string {
	if d.base == "" || !p.symlinks || (o.Truncated && (o.TruncatedReason == nil || *o.TruncatedReason != "max_entries")) {
		return nil
	}
	listed := map[string]bool{}
	var last []string
	for _, e := range o.Entries {
		listed[e.Path] = true
		if comps := strings.Split(e.Path, "/"); slices.Compare(comps, last) > 0 {
			last = comps
		}
	}
	dirs := map[string]int64{"": 0}
	for _, e := range o.Entries {
		if e.Type == "dir" && p.recursive && e.Depth < p.maxDepth {
			dirs[e.Path] = e.Depth
		}
	}
	var out []string
	for dir, depth := range dirs {
		ents, err := os.ReadDir(filepath.Join(d.base, filepath.FromSlash(dir)))
		if err != nil {
			continue
		}
		for _, de := range ents {
			name := de.Name()
			if de.Type()&fs.ModeSymlink == 0 || !utf8.ValidString(name) || (!p.hidden && strings.HasPrefix(name, ".")) {
				continue
			}
			rel := name
			if dir != "" {
				rel = dir + "/" + name
			}
			if depth+1 > p.maxDepth || listed[rel] {
				continue
			}
			if o.Truncated && slices.Compare(strings.Split(rel, "/"), last) > 0 {
				continue
			}
			out = append(out, rel)
		}
	}
	slices.Sort(out)
	return out
}
