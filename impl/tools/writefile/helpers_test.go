package writefile

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/internal/tooltest"
	"github.com/forge-conform/forge-conform/impl/session"
	"github.com/forge-conform/forge-conform/impl/tool"
)

// snapshot describes every entry under root as "path" for files (with
// their content), "path/" for directories, "path@target" for symlinks and
// "path|" for anything else, sorted.
func snapshot(tb testing.TB, root string) []string {
	tb.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out = append(out, rel+"@"+target)
		case d.IsDir():
			out = append(out, rel+"/")
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out = append(out, rel+"="+string(data))
		default:
			out = append(out, rel+"|")
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// run executes c with Tool{} on the tree at root, the working directory
// and only allowed root, in a fresh conversation.
func run(tb testing.TB, root string, c tooltest.Call) (string, *tool.Ctx, error) {
	tb.Helper()
	c.Session = session.New()
	return tooltest.Run(tb, Tool{}, root, c)
}

// hookFs wraps a filesystem that can lstat and readlink, optionally
// implementing the linker interface and failing Sync on opened files.
type hookFs struct {
	afero.Fs
	link     func(oldname, newname string) error // nil: no LinkNoReplace
	syncErr  error
	openErr  error
	linkSeen []string
}

func (h *hookFs) LstatIfPossible(name string) (os.FileInfo, bool, error) {
	return h.Fs.(afero.Lstater).LstatIfPossible(name)
}

func (h *hookFs) ReadlinkIfPossible(name string) (string, error) {
	return fsys.Readlink(h.Fs, name)
}

func (h *hookFs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	if h.openErr != nil && flag&os.O_CREATE != 0 {
		return nil, &fs.PathError{Op: "open", Path: name, Err: h.openErr}
	}
	f, err := h.Fs.OpenFile(name, flag, perm)
	if err != nil || h.syncErr == nil {
		return f, err
	}
	return &syncFailFile{File: f, err: h.syncErr}, nil
}

// linkingFs is a hookFs that implements the linker interface.
type linkingFs struct{ *hookFs }

func (l linkingFs) LinkNoReplace(oldname, newname string) error {
	l.linkSeen = append(l.linkSeen, newname)
	return l.link(oldname, newname)
}

type syncFailFile struct {
	afero.File
	err error
}

func (f *syncFailFile) Sync() error { return &fs.PathError{Op: "sync", Path: f.Name(), Err: f.err} }

// umask returns the process umask.
func umask() fs.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return fs.FileMode(m)
}
