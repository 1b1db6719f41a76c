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

	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/internal/tooltest"
	"github.com/forge-conform/forge-conform/impl/session"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// workspace builds test trees in "ws" below a fresh canonical directory;
// a node path starting "../" lands beside the workspace.
var workspace = tooltest.Options{Workspace: true}

// fixture is the default tree of most tests.
func fixture() []tooltest.Node {
	return []tooltest.Node{
		tooltest.File("a.txt", "one\ntwo\nthree\n"),
		tooltest.File("b.txt", "alpha\nbeta\ngamma\n"),
		tooltest.File("c.txt", "x\ny\nz\n"),
		tooltest.File("crlf.txt", "one\r\ntwo\r\n"),
		tooltest.File("nonl.txt", "first\nlast"),
		tooltest.File("mixed.txt", "a\nb\r\nc\n"),
		tooltest.FileWithMode("script.sh", "#!/bin/sh\necho hi\n", 0o755),
		tooltest.Dir("sub"),
		tooltest.File("sub/deep.txt", "deep\n"),
		tooltest.Link("link-a", "a.txt"),
		tooltest.Link("dangling", "nowhere.txt"),
		tooltest.File("secret.pem", "pem\n"),
		tooltest.Dir("../outside"),
		tooltest.File("../outside/o.txt", "outside\n"),
		tooltest.Link("link-outside", "../outside/o.txt"),
	}
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
	var faults []fsys.Fault
	for _, f := range c.faults {
		faults = append(faults, fsys.Fault{Op: f.op, Path: filepath.Join(root, f.path), Err: f.err})
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
	out, _, err := tooltest.Run(tb, Tool{}, root, tooltest.Call{Args: string(args), Config: c.config,
		Capacity: 1 << 20, Faults: faults, FS: c.fs, Session: st, Context: c.ctx})
	if err == nil {
		return out, nil, st
	}
	return out, tooltest.AsError(tb, err), st
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
