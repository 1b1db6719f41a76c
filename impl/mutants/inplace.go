package mutants

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"

	"github.com/spf13/afero"
	"github.com/spf13/afero/mem"

	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/tool"
)

// tempName matches the names of the reference's temp files: write_file's
// .write_file-<hex>.tmp and apply_patch's .<name>.apply_patch[.N].tmp.
var tempName = regexp.MustCompile(`^\.write_file-[0-9a-f]+\.tmp$|\.apply_patch(\.[0-9]+)?\.tmp$`)

// inPlaceFS turns the reference's temp-file technique into writing in
// place: a temp file lives in memory only, and the rename (or no-replace
// link) that would publish it opens the target itself (truncating it, or
// creating it exclusively), writes the bytes into it and fsyncs it. A
// write that fails leaves the target as far as it got: truncated, or a new
// file with less than its content.
type inPlaceFS struct {
	afero.Fs
	mu     sync.Mutex
	staged map[string]*mem.FileData
}

func newInPlaceFS(base afero.Fs) *inPlaceFS {
	return &inPlaceFS{Fs: base, staged: map[string]*mem.FileData{}}
}

var _ fsys.NoReplaceLinker = (*inPlaceFS)(nil)

func (f *inPlaceFS) LstatIfPossible(name string) (fs.FileInfo, bool, error) {
	fi, err := fsys.Lstat(f.Fs, name)
	return fi, true, err
}

func (f *inPlaceFS) ReadlinkIfPossible(name string) (string, error) {
	return fsys.Readlink(f.Fs, name)
}

func (f *inPlaceFS) Open(name string) (afero.File, error) { return f.OpenFile(name, os.O_RDONLY, 0) }

func (f *inPlaceFS) OpenFile(name string, flag int, perm fs.FileMode) (afero.File, error) {
	if flag&os.O_CREATE == 0 || !tempName.MatchString(filepath.Base(name)) {
		return f.Fs.OpenFile(name, flag, perm)
	}
	fd := mem.CreateFile(name)
	mem.SetMode(fd, perm)
	f.mu.Lock()
	f.staged[filepath.Clean(name)] = fd
	f.mu.Unlock()
	return mem.NewFileHandle(fd), nil
}

// take removes and returns the staged temp file name, or nil.
func (f *inPlaceFS) take(name string) *mem.FileData {
	f.mu.Lock()
	defer f.mu.Unlock()
	fd := f.staged[filepath.Clean(name)]
	delete(f.staged, filepath.Clean(name))
	return fd
}

// publish writes the staged bytes into target, opened with flag.
func (f *inPlaceFS) publish(fd *mem.FileData, target string, flag int) error {
	data, err := io.ReadAll(mem.NewReadOnlyFileHandle(fd))
	if err != nil {
		return err
	}
	info, _ := mem.NewFileHandle(fd).Stat()
	mode := fs.FileMode(0o644)
	if info != nil {
		mode = info.Mode().Perm()
	}
	h, err := f.Fs.OpenFile(target, flag, mode)
	if err != nil {
		return err
	}
	_, err = h.Write(data)
	if err == nil {
		err = h.Sync()
	}
	if cerr := h.Close(); err == nil {
		err = cerr
	}
	return err
}

func (f *inPlaceFS) Rename(oldname, newname string) error {
	if fd := f.take(oldname); fd != nil {
		return f.publish(fd, newname, os.O_WRONLY|os.O_TRUNC)
	}
	return f.Fs.Rename(oldname, newname)
}

func (f *inPlaceFS) LinkNoReplace(oldname, newname string) error {
	if fd := f.take(oldname); fd != nil {
		return f.publish(fd, newname, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW)
	}
	return fsys.LinkNoReplace(f.Fs, oldname, newname)
}

func (f *inPlaceFS) Remove(name string) error {
	if f.take(name) != nil {
		return nil
	}
	return f.Fs.Remove(name)
}

func (f *inPlaceFS) Chmod(name string, mode fs.FileMode) error {
	f.mu.Lock()
	fd := f.staged[filepath.Clean(name)]
	f.mu.Unlock()
	if fd != nil {
		mem.SetMode(fd, mode)
		return nil
	}
	return f.Fs.Chmod(name, mode)
}

func (f *inPlaceFS) Chown(name string, uid, gid int) error {
	f.mu.Lock()
	fd := f.staged[filepath.Clean(name)]
	f.mu.Unlock()
	if fd != nil {
		return nil
	}
	return f.Fs.Chown(name, uid, gid)
}

// writeInPlace runs a tool on inPlaceFS: write_file opens the path itself
// and writes into it, and leaves what it wrote when the write fails.
func writeInPlace(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	cc := *c
	cc.FS = newInPlaceFS(c.FS)
	out, err := inner(ctx, args, &cc)
	c.AllowTruncation = cc.AllowTruncation
	return out, err
}

// patchInPlace applies a patch one file at a time (nonAtomic), each
// written in place (inPlaceFS): the first write that fails leaves the
// files before it patched and itself truncated.
func patchInPlace(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	return writeInPlace(func(ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
		return nonAtomic(inner, ctx, args, c)
	}, ctx, args, c)
}
