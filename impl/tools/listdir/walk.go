package listdir

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/lossy"
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

// entry is one listed item. Empty errCode/errMsg and the has* flags false
// serialize as null.
type entry struct {
	name     string // lossy name
	rawPath  string // relative path from the raw name bytes, "/"-joined
	path     string // lossy relative path, "/"-joined
	depth    int64
	typ      string
	size     int64
	hasSize  bool
	mtime    int64
	hasMtime bool
	hidden   bool
	errCode  string
	errMsg   string
}

// dirNode is a directory whose names have been read and await a visit.
type dirNode struct {
	abs     string // absolute filesystem path
	rawPath string // relative path of the directory, "" for the root
	path    string // lossy form of rawPath
	depth   int64  // depth of the directory's children
	names   []string
	read    []name // instead of names: read ahead, lstat'ed (ahead.go)
}

// name is a directory entry name with its lossy form, ordered by the lossy
// string and then by the raw bytes (FR-LD-LST-05, I-LD-02).
type name struct {
	raw, lossy string
	info       fs.FileInfo // lstat, when statted (statNames)
	err        error
	statted    bool
	ahead      *ahead // a directory read ahead of the walk
}

func compareNames(a, b name) int {
	if c := strings.Compare(a.lossy, b.lossy); c != 0 {
		return c
	}
	return strings.Compare(a.raw, b.raw)
}

func compareEntries(a, b entry) int {
	if c := strings.Compare(a.path, b.path); c != 0 {
		return c
	}
	return strings.Compare(a.rawPath, b.rawPath)
}

// walker collects the entries of one listing. It stops reading the tree as
// soon as it finds the first qualifying entry beyond maxEntries (I-LD-04,
// NFR-LD-PERF-01).
type walker struct {
	ctx       context.Context
	fs        afero.Fs
	req       request
	kept      []entry
	reader    *reader // reads directories ahead; nil: each when visited
	truncated bool    // a qualifying entry beyond maxEntries exists
	err       error
}

// walk lists root, whose names are already read, and returns the kept
// entries in traversal order.
func (w *walker) walk(root *dirNode) ([]entry, error) {
	w.dfs(root)
	return w.kept, w.err
}

// dfs visits d's entries depth-first pre-order; it reports whether the
// traversal must stop.
func (w *walker) dfs(d *dirNode) bool {
	names := w.sorted(d)
	if w.reader != nil && w.req.recursive && d.depth < w.req.maxDepth {
		for i := range names {
			n := &names[i]
			if n.statted && n.err == nil && n.info.IsDir() && (w.req.includeHidden || !strings.HasPrefix(n.lossy, ".")) {
				n.ahead = w.reader.ahead(joinAbs(d.abs, n.raw))
			}
		}
	}
	for _, n := range names {
		if w.cancelled() {
			return true
		}
		child, stop := w.visit(d, n)
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

// sorted returns d's names without "." and "..", in enumeration order.
func (w *walker) sorted(d *dirNode) []name {
	if d.read != nil {
		return sortedAhead(d.read)
	}
	out := make([]name, 0, len(d.names))
	for _, raw := range d.names {
		if raw == "." || raw == ".." {
			continue
		}
		out = append(out, name{raw: raw, lossy: lossy.String(raw)})
	}
	slices.SortFunc(out, compareNames)
	d.names = nil // read once; let the garbage collector have them
	if _, plain := w.fs.(*afero.OsFs); plain {
		statNames(d.abs, out)
	}
	return out
}

// visit examines one name of d. It keeps the entry if it qualifies and
// returns the directory to descend into, if any; stop reports that the
// listing is full and a further qualifying entry was found.
func (w *walker) visit(d *dirNode, n name) (child *dirNode, stop bool) {
	hidden := strings.HasPrefix(n.lossy, ".")
	if hidden && !w.req.includeHidden {
		return nil, false // FR-LD-LST-06: neither listed nor traversed
	}
	abs := joinAbs(d.abs, n.raw)
	e := entry{
		name:    n.lossy,
		rawPath: fsys.JoinRel(d.rawPath, n.raw),
		path:    fsys.JoinRel(d.path, n.lossy),
		depth:   d.depth,
		hidden:  hidden,
	}
	var info fs.FileInfo
	var err error
	if n.statted {
		info, err = n.info, n.err
	} else {
		info, err = fsys.Lstat(w.fs, abs)
	}
	if err != nil {
		e.typ, e.errCode, e.errMsg = typeUnknown, metadataCode(err), fsys.ErrText(err)
	} else {
		setMetadata(&e, info)
	}
	descend := e.typ == typeDir && w.req.recursive && d.depth < w.req.maxDepth
	qualifies := e.typ == typeUnknown || w.includes(e.typ)
	if qualifies && w.full() {
		w.truncated = true
		return nil, true
	}
	if descend {
		var names []string
		var read []name
		if n.ahead != nil {
			read, err = w.reader.get(n.ahead)
		} else {
			names, err = fsys.ReadDirNames(w.fs, abs)
		}
		if err != nil { // I-LD-08: the directory's own entry reports the failure
			e.typ, e.errCode, e.errMsg = typeUnknown, codeReadDirFailed, fsys.ErrText(err)
			if !qualifies {
				qualifies = true
				if w.full() {
					w.truncated = true
					return nil, true
				}
			}
		} else {
			child = w.childOf(abs, e, names)
			child.read = read
		}
	}
	if qualifies {
		w.kept = append(w.kept, e)
	}
	return child, false
}

func (w *walker) childOf(abs string, e entry, names []string) *dirNode {
	return &dirNode{abs: abs, rawPath: e.rawPath, path: e.path, depth: e.depth + 1, names: names}
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

// setMetadata fills type, size and mtime from no-follow metadata.
func setMetadata(e *entry, info fs.FileInfo) {
	mode := info.Mode()
	switch {
	case mode&fs.ModeSymlink != 0:
		e.typ = typeSymlink
	case mode.IsDir():
		e.typ = typeDir
	case mode.IsRegular():
		e.typ = typeFile
		e.size, e.hasSize = info.Size(), true
	default:
		e.typ = typeOther
	}
	e.mtime, e.hasMtime = epochMillis(info.ModTime())
}

// epochMillis is I-LD-10: milliseconds since the epoch truncated toward
// zero; a time before the epoch has none.
func epochMillis(t time.Time) (int64, bool) {
	if t.Before(time.Unix(0, 0)) {
		return 0, false
	}
	return t.UnixMilli(), true
}

// metadataCode maps an lstat failure to an error_code (I-LD-09).
func metadataCode(err error) string {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return codePermissionDenied
	case errors.Is(err, fs.ErrNotExist):
		return codeMetadataUnavailable
	}
	return codeIOError
}

// joinAbs joins a filesystem path and a raw entry name (never "." or "..",
// never containing a separator), so filepath.Join's cleaning is harmless.
func joinAbs(dir, name string) string { return filepath.Join(dir, name) }
