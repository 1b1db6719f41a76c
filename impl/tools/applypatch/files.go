package applypatch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/lp1"
	"github.com/forge-conform/forge-conform/impl/session"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// newFileMode is the mode of a file the patch creates (I-AP-01).
const newFileMode fs.FileMode = 0o644

// file is one target of the patch: every section whose path resolves to
// the same canonical path, in patch order.
type file struct {
	path     string // as written in the first F line naming it
	canon    string // canonical absolute path from the sandbox
	sections []lp1.Section

	// Filled by check.
	exists bool
	mode   fs.FileMode // permission bits to write; newFileMode for a new file
	uid    int         // owner of the existing file; -1 when unknown or new
	gid    int
	orig   []byte // content before the patch (nil for a new file)

	// Filled by stage.
	next []byte // content after the patch
}

// changed reports whether the patch changes f: it creates it, or its
// content differs.
func (f *file) changed() bool { return !f.exists || !bytes.Equal(f.orig, f.next) }

// firstLine is the patch line of the first F line naming the file.
func (f *file) firstLine() int { return f.sections[0].Line }

// firstOp returns the file's first operation across its sections.
func (f *file) firstOp() (lp1.Op, bool) {
	for _, s := range f.sections {
		if len(s.Ops) > 0 {
			return s.Ops[0], true
		}
	}
	return lp1.Op{}, false
}

// failed is PatchFailed for f with a message naming patch line line.
func (f *file) failed(line int, format string, args ...any) *toolerr.Error {
	return &toolerr.Error{Kind: toolerr.PatchFailed, File: f.path,
		Message: fmt.Sprintf("line %d: ", line) + fmt.Sprintf(format, args...)}
}

// cacheEntry is the read-cache entry of the patched content (I-AP-05).
func (f *file) cacheEntry(at time.Time) session.Read {
	return session.Read{Path: f.canon, SHA256: sha256.Sum256(f.next), At: at}
}

// resolveFiles validates every distinct path with the sandbox, in order of
// first appearance, before anything else touches the filesystem
// (FR-TOOL-PATCH-01, FR-VAL-04), and groups sections by canonical path:
// two spellings of one file are one file (I-AP-03).
func resolveFiles(p *lp1.Patch, c *tool.Ctx) ([]*file, error) {
	canon := map[string]string{}
	for _, path := range distinctPaths(p) {
		cp, err := c.Sandbox.Validate(path)
		if err != nil {
			return nil, err
		}
		canon[path] = cp
	}
	var files []*file
	byCanon := map[string]*file{}
	for _, s := range p.Sections {
		cp := canon[s.Path]
		f, ok := byCanon[cp]
		if !ok {
			f = &file{path: s.Path, canon: cp, uid: -1, gid: -1}
			byCanon[cp] = f
			files = append(files, f)
		}
		f.sections = append(f.sections, s)
	}
	return files, nil
}

// check decides whether f may be patched, before any file is written:
// what exists at its canonical path (never following a final symlink),
// then the stale-file rules for an existing file (FR-TOOL-PATCH-02a/b/d)
// or the creation policy for a missing one (I-AP-01). For an existing
// file it also reads the content the stale check hashes, which is the
// content the patch is then applied to. refuseMissing is the
// lp1_missing_file policy "refuse": a missing file that this conversation
// has not read is StaleFile, like any file not read.
func check(f *file, c *tool.Ctx, refuseMissing bool) error {
	fi, err := fsys.Lstat(c.FS, f.canon)
	switch {
	case errors.Is(err, fs.ErrNotExist) && refuseMissing:
		if c.Session != nil {
			if _, read := c.Session.LastRead(f.canon); read {
				return checkNew(f, c)
			}
		}
		return &toolerr.Error{Kind: toolerr.StaleFile, File: f.path, Message: "File was not read before patching"}
	case errors.Is(err, fs.ErrNotExist):
		return checkNew(f, c)
	case err != nil:
		return f.failed(f.firstLine(), "cannot access %s: %v; check the path and its permissions", f.path, fsys.ErrText(err))
	case !fi.Mode().IsRegular():
		return f.failed(f.firstLine(), "%s is %s, not a regular file; apply_patch edits regular files only", f.path, kindOf(fi))
	}
	f.exists = true
	f.mode = fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		f.uid, f.gid = int(st.Uid), int(st.Gid)
	}
	var last session.Read
	var read bool
	if c.Session != nil {
		last, read = c.Session.LastRead(f.canon)
	}
	if !read {
		return &toolerr.Error{Kind: toolerr.StaleFile, File: f.path, Message: "File was not read before patching"}
	}
	if err := f.load(c); err != nil {
		return err
	}
	if sha256.Sum256(f.orig) != last.SHA256 {
		return &toolerr.Error{Kind: toolerr.StaleFile, File: f.path, Message: "File content changed since last read"}
	}
	return nil
}

// load reads the existing file's content into f.orig.
func (f *file) load(c *tool.Ctx) error {
	data, err := readNoFollow(c, f.canon)
	if err != nil {
		return f.failed(f.firstLine(), "cannot read %s: %v; check its permissions", f.path, fsys.ErrText(err))
	}
	f.orig = data
	return nil
}

// checkNew applies the creation policy to a file that does not exist.
func checkNew(f *file, c *tool.Ctx) error {
	op, ok := f.firstOp()
	if !ok {
		return f.failed(f.firstLine(), "file not found: %s; its sections have no operations (only T or B can create a file)", f.path)
	}
	if op.Kind != lp1.Append && op.Kind != lp1.Prepend {
		return f.failed(op.Line, "file not found: %s; check the path, or create the file with T or B as its first operation", f.path)
	}
	dir := filepath.Dir(f.canon)
	di, err := fsys.Stat(c.FS, dir)
	switch {
	case err == nil && di.IsDir():
	case err == nil, errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return f.failed(op.Line, "cannot create %s: its directory does not exist; apply_patch does not create directories, create it first", f.path)
	default:
		return f.failed(op.Line, "cannot create %s: %v", f.path, fsys.ErrText(err))
	}
	f.mode = newFileMode
	return nil
}

// stage applies f's sections to its content in memory, with d when it is
// not nil, else with LP1 read as o.LP1: in order to the evolving content
// (I-AP-03), or, with o.SectionsFromDisk, each to the original content,
// keeping the last section's result.
func stage(f *file, d Dialect, o Options) error {
	if d != nil {
		return stageDialect(f, d, o.SectionsFromDisk)
	}
	orig, err := lp1.Decode(f.orig)
	if err != nil {
		return f.failed(f.firstLine(), "%s cannot be patched: %v; LP1 edits files with consistent LF or CRLF line endings only", f.path, err)
	}
	cur := orig
	for _, s := range f.sections {
		if o.SectionsFromDisk {
			cur = orig
		}
		cur, err = o.LP1.Apply(cur, s.Ops)
		if err != nil {
			return &toolerr.Error{Kind: toolerr.PatchFailed, File: f.path, Message: err.Error()}
		}
	}
	f.next = cur.Encode()
	return nil
}

// stageDialect is stage with a Dialect: its errors are the whole message.
func stageDialect(f *file, d Dialect, fromDisk bool) error {
	orig, err := d.Decode(f.orig)
	cur := orig
	for i := 0; err == nil && i < len(f.sections); i++ {
		if fromDisk {
			cur = orig
		}
		cur, err = d.Apply(cur, f.sections[i].Ops)
	}
	if err != nil {
		return &toolerr.Error{Kind: toolerr.PatchFailed, File: f.path, Message: err.Error()}
	}
	f.next = cur.Encode()
	return nil
}

// readNoFollow reads a regular file without following a final symlink
// (FR-VAL-06) and without blocking should it have become a FIFO.
func readNoFollow(c *tool.Ctx, name string) (data []byte, err error) {
	h, err := c.FS.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := h.Close(); cerr != nil && err == nil {
			data, err = nil, cerr
		}
	}()
	fi, err := h.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("it changed into %s while being read", kindOf(fi))
	}
	return io.ReadAll(h)
}

// kindOf names what a non-regular entry is.
func kindOf(fi fs.FileInfo) string {
	m := fi.Mode()
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

// ctxError turns the end of the call's ctx into Timeout or Cancelled (the
// registry reports the tool's limit in its own Timeout message).
func ctxError(err error) *toolerr.Error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &toolerr.Error{Kind: toolerr.Timeout, Tool: Name, Message: Name + " ran out of time before writing; nothing was changed"}
	}
	return &toolerr.Error{Kind: toolerr.Cancelled, Message: "Cancelled by user"}
}
