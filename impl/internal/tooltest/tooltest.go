// Package tooltest is shared support for the tests of the reference tools
// (impl/tools/...) only: building file trees, running a tool with a
// tool.Ctx set up the way those tests expect, and checking *toolerr.Error
// results. It is not for production code or for tests of other packages.
package tooltest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/sandbox"
	"github.com/forge-conform/forge-conform/impl/session"
	"github.com/forge-conform/forge-conform/impl/tool"
)

// Call describes one tool invocation. The zero value of every field but
// Args means the usual default.
type Call struct {
	Args     string // the JSON arguments
	Config   string // the "tools" object, e.g. {"read_file":{...}}; "" is {}
	Budget   int64  // max_output_bytes; 0 means 1 MiB
	Capacity int64  // available_capacity_bytes; 0 means 1 GiB
	// Perm wraps the OS filesystem in fsys.PermFs, Faults (if any) then
	// wrap it in an fsys.FaultFs, and FS (if set) wraps the result.
	Perm    bool
	Faults  []fsys.Fault
	FS      func(afero.Fs) afero.Fs
	Session *session.State  // the conversation; nil runs without one
	Context context.Context // nil is context.Background()
}

// Run executes c with tl on the tree at root, which is the working
// directory and the only allowed root (sandbox.DefaultConfig). It returns
// the output, the tool.Ctx the call ran with and the call's error.
func Run(tb testing.TB, tl tool.Tool, root string, c Call) (string, *tool.Ctx, error) {
	tb.Helper()
	var afs afero.Fs = afero.NewOsFs()
	if c.Perm {
		afs = fsys.NewPermFs(afs)
	}
	if len(c.Faults) > 0 {
		afs = fsys.NewFaultFs(afs, c.Faults)
	}
	if c.FS != nil {
		afs = c.FS(afs)
	}
	ctx := &tool.Ctx{
		FS: afs, Sandbox: Sandbox(tb, root), WorkingDir: root,
		MaxOutputBytes: orDefault(c.Budget, 1<<20), AvailableCapacityBytes: orDefault(c.Capacity, 1<<30),
		AllowTruncation: true, Config: Config(tb, c.Config), Session: c.Session,
	}
	cctx := c.Context
	if cctx == nil {
		cctx = context.Background()
	}
	out, err := tl.Execute(cctx, json.RawMessage(c.Args), ctx)
	return out, ctx, err
}

// Sandbox returns a sandbox with the default configuration whose working
// directory (and so only allowed root) is root.
func Sandbox(tb testing.TB, root string) *sandbox.Sandbox {
	tb.Helper()
	sb, err := sandbox.New(afero.NewOsFs(), sandbox.DefaultConfig(), root)
	if err != nil {
		tb.Fatal(err)
	}
	return sb
}

// Config parses a configuration whose "tools" object is tools ("" is {}).
func Config(tb testing.TB, tools string) config.Config {
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
