package listdir

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/fsys"
)

// Entry types (FR-LD-OUT entry object, field "type").
const (
	typeFile    = "file"
	typeDir     = "dir"
	typeSymlink = "symlink"
	typeOther   = "other"
	typeUnknown = "unknown"
)

// Per-entry error codes (I-LD-08, I-LD-09).
const (
	codeMetadataUnavailable = "metadata_unavailable"
	codePermissionDenied    = "permission_denied"
	codeReadDirFailed       = "read_dir_failed"
	codeIOError             = "io_error"
)

// meta is what an entry reports from its no-follow metadata: type, size
// (regular files only) and modification time.
type meta struct {
	typ      string
	size     int64
	hasSize  bool
	mtime    int64
	hasMtime bool
}

// metaOf is the meta of an lstat result.
func metaOf(info fs.FileInfo) meta {
	var m meta
	mode := info.Mode()
	switch {
	case mode&fs.ModeSymlink != 0:
		m.typ = typeSymlink
	case mode.IsDir():
		m.typ = typeDir
	case mode.IsRegular():
		m.typ = typeFile
		m.size, m.hasSize = info.Size(), true
	default:
		m.typ = typeOther
	}
	m.mtime, m.hasMtime = epochMillis(info.ModTime())
	return m
}

// entry is one listed item. Empty errCode/errMsg and the has* flags false
// serialize as null.
type entry struct {
	name    string // lossy name
	path    string // lossy relative path, "/"-joined
	rawPath string // relative path from the raw name bytes; path's string when equal
	depth   int64
	meta
	hidden  bool
	errCode string
	errMsg  string
}

// dirNode is a directory whose names have been read and await a visit.
type dirNode struct {
	abs     string // absolute filesystem path
	rawPath string // relative path of the directory, "" for the root
	path    string // lossy form of rawPath
	depth   int64  // depth of the directory's children
	names   []name // sorted (sortedNames)
}

// name is a directory entry name with its lossy form, ordered by the lossy
// string and then by the raw bytes (FR-LD-LST-05, I-LD-02).
type name struct {
	raw, lossy string
	meta       meta  // lstat's, when statted
	err        error // lstat's, when statted
	statted    bool
	ahead      *ahead // a directory read ahead of the walk
}

func compareNames(a, b name) int {
	if c := strings.Compare(a.lossy, b.lossy); c != 0 {
		return c
	}
	return strings.Compare(a.raw, b.raw)
}

func compareEntries(a, b *entry) int {
	if c := strings.Compare(a.path, b.path); c != 0 {
		return c
	}
	return strings.Compare(a.rawPath, b.rawPath)
}

// entryChunk is how many entries a walker allocates at a time.
const entryChunk = 512

// walker collects the entries of one listing. It stops reading the tree as
// soon as it finds the first qualifying entry beyond maxEntries (I-LD-04,
// NFR-LD-PERF-01).
type walker struct {
	ctx       context.Context
	fs        afero.Fs
	os        bool // fs is the operating system's: names come statted (readDirOS)
	req       request
	kept      []*entry
	chunk     []entry // storage of the next kept entries
	reader    *reader // reads directories ahead; nil: each when visited
	buf       dirBuf  // readDirOS's
	truncated bool    // a qualifying entry beyond maxEntries exists
	err       error
}

func newWalker(ctx context.Context, afs afero.Fs, req request) *walker {
	_, plain := afs.(*afero.OsFs)
	return &walker{ctx: ctx, fs: afs, os: plain && osFastPath, req: req}
}

// readDir reads the names of the directory abs, sorted (sortedNames):
// statted on the operating system's filesystem, else to be lstat'ed when
// visited.
func (w *walker) readDir(abs string) ([]name, error) {
	if w.os {
		return readDirOS(abs, w.req.includeHidden, w.req.lossy, &w.buf)
	}
	raws, err := fsys.ReadDirNames(w.fs, abs)
	if err != nil {
		return nil, err
	}
	raws = slices.DeleteFunc(raws, func(r string) bool { return r == "." || r == ".." })
	return sortedNames(raws, w.req.lossy), nil
}

// sortedNames returns the names raws in the order of compareNames. When
// every name is valid UTF-8, its own lossy form, that is the order of the
// raw strings, sorted without converting them first.
func sortedNames(raws []string, conv func(string) string) []name {
	valid := true
	for _, r := range raws {
		if !utf8.ValidString(r) {
			valid = false
			break
		}
	}
	if valid {
		slices.Sort(raws)
	}
	names := make([]name, len(raws))
	for i, r := range raws {
		names[i] = name{raw: r, lossy: conv(r)}
	}
	if !valid {
		slices.SortFunc(names, compareNames)
	}
	return names
}

// walk lists root, whose names are already read, and returns the kept
// entries in traversal order.
func (w *walker) walk(root *dirNode) ([]*entry, error) {
	w.dfs(root)
	return w.kept, w.err
}

// dfs visits d's entries depth-first pre-order; it reports whether the
// traversal must stop.
func (w *walker) dfs(d *dirNode) bool {
	names := d.names
	d.names = nil // visited once; let the garbage collector have them
	if w.reader != nil && w.req.recursive && d.depth < w.req.maxDepth {
		// The first subdirectory is the walk's next read: it reads it
		// itself rather than wait for a goroutine to start on it.
		first := true
		for i := range names {
			n := &names[i]
			if n.statted && n.err == nil && n.meta.typ == typeDir && (w.req.includeHidden || !strings.HasPrefix(n.lossy, ".")) {
				if !first {
					n.ahead = w.reader.ahead(joinAbs(d.abs, n.raw))
				}
				first = false
			}
		}
	}
	for i := range names {
		if w.cancelled() {
			return true
		}
		child, stop := w.visit(d, &names[i])
		if stop {
			return true
		}
		if child != nil && w.dfs(child) {
			return true
		}
	}
	return false
}

func (w *walker) cancelled() bool {
	if err := w.ctx.Err(); err != nil {
		w.err = err
		return true
	}
	return false
}

// visit examines one name of d. It keeps the entry if it qualifies and
// returns the directory to descend into, if any; stop reports that the
// listing is full and a further qualifying entry was found.
func (w *walker) visit(d *dirNode, n *name) (child *dirNode, stop bool) {
	hidden := strings.HasPrefix(n.lossy, ".")
	if hidden && !w.req.includeHidden {
		return nil, false // FR-LD-LST-06: neither listed nor traversed
	}
	e := entry{name: n.lossy, depth: d.depth, hidden: hidden}
	e.path = fsys.JoinRel(d.path, n.lossy)
	if n.raw == n.lossy && d.rawPath == d.path {
		e.rawPath = e.path
	} else {
		e.rawPath = fsys.JoinRel(d.rawPath, n.raw)
	}
	abs := ""
	err := n.err
	if n.statted {
		e.meta = n.meta
	} else {
		abs = joinAbs(d.abs, n.raw)
		var info fs.FileInfo
		if info, err = fsys.Lstat(w.fs, abs); err == nil {
			e.meta = metaOf(info)
		}
	}
	if err != nil {
		e.typ, e.errCode, e.errMsg = typeUnknown, metadataCode(err, w.req.vanishedCode), fsys.ErrText(err)
	}
	descend := e.typ == typeDir && w.req.recursive && d.depth < w.req.maxDepth
	qualifies := e.typ == typeUnknown || w.includes(e.typ)
	if qualifies && w.full() {
		w.truncated = true
		return nil, true
	}
	if descend {
		var names []name
		switch {
		case n.ahead != nil:
			abs = n.ahead.abs
			names, err = w.reader.get(n.ahead, &w.buf)
		case abs == "":
			abs = joinAbs(d.abs, n.raw)
			fallthrough
		default:
			names, err = w.readDir(abs)
		}
		if err != nil { // I-LD-08: the directory's own entry reports the failure
			if w.req.keepDirEntry && qualifies {
				// Options.KeepDirEntry: the directory stays listed, and the
				// error entry is one more entry of the same path.
				w.keep(e)
				if w.full() {
					w.truncated = true
					return nil, true
				}
			}
			e.typ, e.errCode, e.errMsg = typeUnknown, codeReadDirFailed, fsys.ErrText(err)
			if !qualifies {
				qualifies = true
				if w.full() {
					w.truncated = true
					return nil, true
				}
			}
		} else {
			child = &dirNode{abs: abs, rawPath: e.rawPath, path: e.path, depth: e.depth + 1, names: names}
		}
	}
	if qualifies {
		w.keep(e)
	}
	return child, false
}

// keep appends e to the kept entries.
func (w *walker) keep(e entry) {
	if len(w.chunk) == cap(w.chunk) {
		w.chunk = make([]entry, 0, entryChunk)
	}
	w.chunk = append(w.chunk, e)
	w.kept = append(w.kept, &w.chunk[len(w.chunk)-1])
}

func (w *walker) full() bool { return int64(len(w.kept)) >= w.req.maxEntries }

// includes applies the include_* filters (I-LD-06); unknown entries are
// never filtered (I-LD-07).
func (w *walker) includes(typ string) bool {
	switch typ {
	case typeFile:
		return w.req.includeFiles
	case typeDir:
		return w.req.includeDirs
	case typeSymlink:
		return w.req.includeSymlinks
	case typeOther:
		return w.req.includeOther
	}
	return true
}

// epochMillis is I-LD-10: milliseconds since the epoch truncated toward
// zero; a time before the epoch has none.
func epochMillis(t time.Time) (int64, bool) {
	if t.Before(time.Unix(0, 0)) {
		return 0, false
	}
	return t.UnixMilli(), true
}

// metadataCode maps an lstat failure to an error_code (I-LD-09); vanished
// is the code of an entry gone before its lstat ("" for
// metadata_unavailable, Options.VanishedCode).
func metadataCode(err error, vanished string) string {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return codePermissionDenied
	case errors.Is(err, fs.ErrNotExist) && vanished != "":
		return vanished
	case errors.Is(err, fs.ErrNotExist):
		return codeMetadataUnavailable
	}
	return codeIOError
}

// joinAbs joins a clean absolute path (the sandbox's canonical root or a
// path joinAbs built) and a raw entry name (never "." or "..", never
// containing a separator): the result is as clean, as filepath.Join's.
func joinAbs(dir, name string) string {
	if strings.HasSuffix(dir, "/") {
		return dir + name
	}
	return dir + "/" + name
}
