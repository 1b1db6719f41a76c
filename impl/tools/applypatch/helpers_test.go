package applypatch

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/sandbox"
	"github.com/forge-conform/forge-conform/impl/session"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// node is one item of a test tree, relative to the workspace; a path
// starting with "../" lands beside it. kind: 'f' file (default), 'd' dir,
// 'l' symlink (data is the target).
type node struct {
	path string
	kind byte
	data string
	mode fs.FileMode // files: 0 means 0644
}

func regular(p, data string) node { return node{path: p, kind: 'f', data: data} }
func fileMode(p, data string, mode fs.FileMode) node {
	return node{path: p, kind: 'f', data: data, mode: mode}
}
func dir(p string) node          { return node{path: p, kind: 'd'} }
func link(p, target string) node { return node{path: p, kind: 'l', data: target} }

// fixture is the default tree of most tests.
func fixture() []node {
	return []node{
		regular("a.txt", "one\ntwo\nthree\n"),
		regular("b.txt", "alpha\nbeta\ngamma\n"),
		regular("c.txt", "x\ny\nz\n"),
		regular("crlf.txt", "one\r\ntwo\r\n"),
		regular("nonl.txt", "first\nlast"),
		regular("mixed.txt", "a\nb\r\nc\n"),
		fileMode("script.sh", "#!/bin/sh\necho hi\n", 0o755),
		dir("sub"),
		regular("sub/deep.txt", "deep\n"),
		link("link-a", "a.txt"),
		link("dangling", "nowhere.txt"),
		regular("secret.pem", "pem\n"),
		dir("../outside"),
		regular("../outside/o.txt", "outside\n"),
		link("link-outside", "../outside/o.txt"),
	}
}

// buildTree creates nodes and returns the canonical workspace directory.
func buildTree(tb testing.TB, nodes []node) string {
	tb.Helper()
	base, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	root := filepath.Join(base, "ws")
	if err := os.Mkdir(root, 0o755); err != nil {
		tb.Fatal(err)
	}
	for _, n := range nodes {
		p := filepath.Join(root, filepath.FromSlash(n.path))
		switch n.kind {
		case 'd':
			err = os.Mkdir(p, 0o755)
		case 'l':
			err = os.Symlink(n.data, p)
		default:
			mode := n.mode
			if mode == 0 {
				mode = 0o644
			}
			if err = os.WriteFile(p, []byte(n.data), mode); err == nil {
				err = os.Chmod(p, mode)
			}
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
	return root
}

// entry is what snapshot records of one path.
type entry struct {
	mode fs.FileMode
	data string // file content or symlink target
}

// snapshot records every entry below the parent of root (workspace and
// its siblings): type, permission bits and content.
func snapshot(tb testing.TB, root string) map[string]entry {
	tb.Helper()
	base := filepath.Dir(root)
	m := map[string]entry{}
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		e := entry{mode: fi.Mode()}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			e.data, err = os.Readlink(p)
		case fi.Mode().IsRegular():
			var b []byte
			b, err = os.ReadFile(p)
			e.data = string(b)
		}
		rel, _ := filepath.Rel(base, p)
		m[rel] = e
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// sameTree fails unless two snapshots are identical, naming every difference.
func sameTree(tb testing.TB, before, after map[string]entry) {
	tb.Helper()
	for p, b := range before {
		a, ok := after[p]
		switch {
		case !ok:
			tb.Errorf("%s disappeared", p)
		case a != b:
			tb.Errorf("%s changed: %v %q -> %v %q", p, b.mode, b.data, a.mode, a.data)
		}
	}
	for p, a := range after {
		if _, ok := before[p]; !ok {
			tb.Errorf("%s appeared (%v %q)", p, a.mode, a.data)
		}
	}
}

// noTemps fails if any temp file is left below the parent of root.
func noTemps(tb testing.TB, root string) {
	tb.Helper()
	for p := range snapshot(tb, root) {
		if strings.Contains(filepath.Base(p), ".apply_patch.") {
			tb.Errorf("temp file left behind: %s", p)
		}
	}
}

// markRead records rel's current content in st, as read_file does.
func markRead(tb testing.TB, st *session.State, root string, rels ...string) {
	tb.Helper()
	for _, rel := range rels {
		p := filepath.Join(root, rel)
		canon, err := filepath.EvalSymlinks(p)
		if err != nil {
			tb.Fatal(err)
		}
		b, err := os.ReadFile(canon)
		if err != nil {
			tb.Fatal(err)
		}
		st.RecordRead(session.Read{Path: canon, SHA256: sha256.Sum256(b), At: time.Now()})
	}
}

// call describes one invocation.
type call struct {
	patch  string
	read   []string // files to mark as read first (relative to the workspace)
	config string   // the "tools" object
	faults []fault
	fs     func(afero.Fs) afero.Fs // wraps the filesystem, after faults
	noSess bool                    // run without a session
	// afterRead runs after the reads are recorded, before the call.
	afterRead func()
	ctx       context.Context
}

// fault is an fsys.Fault whose path is relative to the workspace.
type fault struct {
	op, path string
	err      error
}

// run executes c against root and returns the output, the error as a
// *toolerr.Error (nil on success) and the session used.
func run(tb testing.TB, root string, c call) (string, *toolerr.Error, *session.State) {
	tb.Helper()
	var afs afero.Fs = afero.NewOsFs()
	if len(c.faults) > 0 {
		var fl []fsys.Fault
		for _, f := range c.faults {
			fl = append(fl, fsys.Fault{Op: f.op, Path: filepath.Join(root, f.path), Err: f.err})
		}
		afs = fsys.NewFaultFs(afs, fl)
	}
	if c.fs != nil {
		afs = c.fs(afs)
	}
	sb, err := sandbox.New(afero.NewOsFs(), sandbox.DefaultConfig(), root)
	if err != nil {
		tb.Fatal(err)
	}
	tools := c.config
	if tools == "" {
		tools = "{}"
	}
	cfg, err := config.Parse(json.RawMessage(`{"tools":` + tools + `}`))
	if err != nil {
		tb.Fatal(err)
	}
	var st *session.State
	if !c.noSess {
		st = session.New()
		markRead(tb, st, root, c.read...)
	}
	if c.afterRead != nil {
		c.afterRead()
	}
	args, err := json.Marshal(map[string]string{"patch": c.patch})
	if err != nil {
		tb.Fatal(err)
	}
	ctx := c.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	tc := &tool.Ctx{FS: afs, Sandbox: sb, WorkingDir: root, MaxOutputBytes: 1 << 20,
		AvailableCapacityBytes: 1 << 20, AllowTruncation: true, Config: cfg, Session: st}
	out, err := Tool{}.Execute(ctx, args, tc)
	if err == nil {
		return out, nil, st
	}
	var te *toolerr.Error
	if !errors.As(err, &te) {
		tb.Fatalf("error %v (%T) is not a *toolerr.Error", err, err)
	}
	return out, te, st
}

// patch builds an LP1 patch from its body lines.
func patch(lines ...string) string {
	return "LP1\n" + strings.Join(lines, "\n") + "\nEND\n"
}

// readFile returns rel's content, or "<missing>".
func readFile(tb testing.TB, root, rel string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if errors.Is(err, fs.ErrNotExist) {
		return "<missing>"
	}
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func mustSandbox(tb testing.TB, root string) *sandbox.Sandbox {
	tb.Helper()
	sb, err := sandbox.New(afero.NewOsFs(), sandbox.DefaultConfig(), root)
	if err != nil {
		tb.Fatal(err)
	}
	return sb
}
