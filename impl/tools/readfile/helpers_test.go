package readfile

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
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

// call describes one tool invocation.
type call struct {
	args     string
	config   string // the "tools" object, e.g. {"read_file":{...}}
	budget   int64  // max_output_bytes; 0 means 1 MiB
	capacity int64  // available_capacity_bytes; 0 means 1 GiB
	faults   []fsys.Fault
	perm     bool // wrap the filesystem in fsys.PermFs
	session  *session.State
	ctx      context.Context
}

// run executes c on the tree at root, the working directory and only
// allowed root. It returns the output and the call's context.
func run(tb testing.TB, root string, c call) (string, *tool.Ctx, error) {
	tb.Helper()
	var afs afero.Fs = afero.NewOsFs()
	if c.perm {
		afs = fsys.NewPermFs(afs)
	}
	if c.faults != nil {
		afs = fsys.NewFaultFs(afs, c.faults)
	}
	sb, err := sandbox.New(afero.NewOsFs(), sandbox.DefaultConfig(), root)
	if err != nil {
		tb.Fatal(err)
	}
	ctx := &tool.Ctx{
		FS: afs, Sandbox: sb, WorkingDir: root,
		MaxOutputBytes: orDefault(c.budget, 1<<20), AvailableCapacityBytes: orDefault(c.capacity, 1<<30),
		AllowTruncation: true, Config: parseConfig(tb, c.config), Session: c.session,
	}
	cctx := c.ctx
	if cctx == nil {
		cctx = context.Background()
	}
	out, err := Tool{}.Execute(cctx, json.RawMessage(c.args), ctx)
	return out, ctx, err
}

// parseConfig builds a config from the "tools" object tools ("" is {}).
func parseConfig(tb testing.TB, tools string) config.Config {
	tb.Helper()
	if tools == "" {
		tools = "{}"
	}
	cfg, err := config.Parse(json.RawMessage(`{"tools":` + tools + `}`))
	if err != nil {
		tb.Fatal(err)
	}
	return cfg
}

func orDefault(v, def int64) int64 {
	if v == 0 {
		return def
	}
	return v
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
