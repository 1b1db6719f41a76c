package writefile

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/sandbox"
	"github.com/forge-conform/forge-conform/impl/session"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// node is one item of a test tree; paths use "/".
type node struct {
	path string
	kind byte   // 'f' file, 'd' dir, 'l' symlink, 'p' fifo
	data string // file content or symlink target
}

func file(p, data string) node   { return node{path: p, kind: 'f', data: data} }
func dir(p string) node          { return node{path: p, kind: 'd'} }
func link(p, target string) node { return node{path: p, kind: 'l', data: target} }
func fifo(p string) node         { return node{path: p, kind: 'p'} }

// buildTree creates nodes under a fresh directory.
func buildTree(tb testing.TB, nodes []node) string {
	tb.Helper()
	root := tb.TempDir()
	for _, n := range nodes {
		p := filepath.Join(root, filepath.FromSlash(n.path))
		var err error
		switch n.kind {
		case 'f':
			err = os.WriteFile(p, []byte(n.data), 0o644)
		case 'd':
			err = os.Mkdir(p, 0o755)
		case 'l':
			err = os.Symlink(n.data, p)
		case 'p':
			err = syscall.Mkfifo(p, 0o644)
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
	return root
}

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

// call describes one tool invocation.
type call struct {
	args string
	fs   func(afero.Fs) afero.Fs // wraps the OS filesystem
	perm bool                    // wrap the filesystem in fsys.PermFs
	ctx  context.Context
}

// run executes c on the tree at root, the working directory and only
// allowed root.
func run(tb testing.TB, root string, c call) (string, *tool.Ctx, error) {
	tb.Helper()
	var afs afero.Fs = afero.NewOsFs()
	if c.perm {
		afs = fsys.NewPermFs(afs)
	}
	if c.fs != nil {
		afs = c.fs(afs)
	}
	sb, err := sandbox.New(afero.NewOsFs(), sandbox.DefaultConfig(), root)
	if err != nil {
		tb.Fatal(err)
	}
	cfg, err := config.Parse(json.RawMessage(`{"tools":{}}`))
	if err != nil {
		tb.Fatal(err)
	}
	ctx := &tool.Ctx{
		FS: afs, Sandbox: sb, WorkingDir: root,
		MaxOutputBytes: 1 << 20, AvailableCapacityBytes: 1 << 30,
		AllowTruncation: true, Config: cfg, Session: session.New(),
	}
	cctx := c.ctx
	if cctx == nil {
		cctx = context.Background()
	}
	out, err := Tool{}.Execute(cctx, json.RawMessage(c.args), ctx)
	return out, ctx, err
}

// wantKind checks that err is a *toolerr.Error of kind whose message
// contains every one of words (case-insensitive).
func wantKind(tb testing.TB, err error, kind toolerr.Kind, words ...string) {
	tb.Helper()
	var te *toolerr.Error
	if !errors.As(err, &te) {
		tb.Fatalf("error %v (%T) is not a *toolerr.Error", err, err)
	}
	if te.Kind != kind {
		tb.Fatalf("kind %s (%s), want %s", te.Kind, te.Message, kind)
	}
	if te.Message == "" {
		tb.Errorf("empty message")
	}
	for _, w := range words {
		if !strings.Contains(strings.ToLower(te.Message), strings.ToLower(w)) {
			tb.Errorf("message %q lacks %q", te.Message, w)
		}
	}
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
