package tooltest

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Node is one item of a test tree. Its path uses "/", is relative to the
// tree's root and may hold any bytes; with Options.Workspace a path
// starting "../" lands beside the workspace.
type Node struct {
	path string
	kind byte        // 'f' file, 'd' dir, 'l' symlink, 'p' fifo
	data string      // file content or symlink target
	mode fs.FileMode // files: 0 means 0644
}

// File is a regular file holding data, mode 0644.
func File(p, data string) Node { return Node{path: p, kind: 'f', data: data} }

// FileWithMode is a regular file holding data with permission bits mode.
func FileWithMode(p, data string, mode fs.FileMode) Node {
	return Node{path: p, kind: 'f', data: data, mode: mode}
}

// Dir is a directory, mode 0755 less the umask.
func Dir(p string) Node { return Node{path: p, kind: 'd'} }

// Link is a symbolic link to target.
func Link(p, target string) Node { return Node{path: p, kind: 'l', data: target} }

// Fifo is a named pipe.
func Fifo(p string) Node { return Node{path: p, kind: 'p'} }

// Options changes how a tree is built; the zero value is what Build uses.
type Options struct {
	// Mtime, unless zero, is set as the access and modification time of
	// every node but symlinks once all nodes exist.
	Mtime time.Time
	// Workspace builds the tree in "ws" below a fresh directory whose path
	// has its symlinks resolved, and returns that workspace.
	Workspace bool
}

// Build creates nodes, in order, under a fresh temporary directory and
// returns that directory.
func Build(tb testing.TB, nodes ...Node) string {
	tb.Helper()
	return Options{}.Build(tb, nodes...)
}

// Build creates nodes, in order, as o says and returns the tree's root.
func (o Options) Build(tb testing.TB, nodes ...Node) string {
	tb.Helper()
	root := tb.TempDir()
	if o.Workspace {
		base, err := filepath.EvalSymlinks(root)
		if err != nil {
			tb.Fatal(err)
		}
		root = filepath.Join(base, "ws")
		if err := os.Mkdir(root, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	for _, n := range nodes {
		p := filepath.Join(root, filepath.FromSlash(n.path))
		var err error
		switch n.kind {
		case 'f':
			mode := n.mode
			if mode == 0 {
				mode = 0o644
			}
			if err = os.WriteFile(p, []byte(n.data), mode); err == nil {
				err = os.Chmod(p, mode)
			}
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
	if !o.Mtime.IsZero() {
		for _, n := range nodes {
			if n.kind == 'l' {
				continue
			}
			if err := os.Chtimes(filepath.Join(root, filepath.FromSlash(n.path)), o.Mtime, o.Mtime); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return root
}

// OpenToOthers prepares the tree at root for a call through fsys.PermFs,
// which emulates another user: it gives root and its parent the mode mode,
// then skips the test unless every directory above them grants search
// permission to others.
func OpenToOthers(tb testing.TB, root string, mode fs.FileMode) {
	tb.Helper()
	for _, d := range []string{filepath.Dir(root), root} {
		if err := os.Chmod(d, mode); err != nil {
			tb.Fatal(err)
		}
	}
	for d := filepath.Dir(filepath.Dir(root)); ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm()&0o001 == 0 {
			tb.Skipf("%s does not grant search to others", d)
		}
		if d == "/" {
			break
		}
	}
}
