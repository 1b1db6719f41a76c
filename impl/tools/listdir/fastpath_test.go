package listdir

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/internal/tooltest"
	"github.com/forge-conform/forge-conform/impl/sandbox"
	"github.com/forge-conform/forge-conform/impl/tool"
)

// plainFs is the operating system's filesystem behind a type that is not
// *afero.OsFs, so the walk takes the general path: names through
// afero, each lstat'ed when visited.
type plainFs struct{ afero.Fs }

func (p plainFs) LstatIfPossible(name string) (os.FileInfo, bool, error) {
	return p.Fs.(afero.Lstater).LstatIfPossible(name)
}

// TestFastPathMatchesAfero lists one tree full of edge cases through the
// operating system fast path (readDirOS, read-ahead) and through afero,
// with many argument combinations and budgets: the outputs must be
// byte-identical, errors included.
func TestFastPathMatchesAfero(t *testing.T) {
	outside := t.TempDir()
	nodes := []tooltest.Node{
		tooltest.Dir("a"), tooltest.File("a/x", "1"), tooltest.Dir("a/x2"), tooltest.File("a/x2/deep", "22"),
		tooltest.File("a-b", "333"), tooltest.File("a.go", ""), tooltest.Dir("a b"), tooltest.File("a b/c", ""),
		tooltest.Dir(".hid"), tooltest.File(".hid/in", ""), tooltest.File(".dot", ""),
		tooltest.Dir("d\xff"), tooltest.File("d\xff/x", ""), tooltest.Dir("d\xfe"), tooltest.File("d\xfe/y", ""),
		tooltest.File("a\xfe", "1"), tooltest.File("\xf0\x9f\x98z", ""), tooltest.File("\xc0\xafq", ""),
		tooltest.File("n\nl", ""), tooltest.File("c\x01<&>", ""), tooltest.File(`q"\`, ""),
		tooltest.Link("in-link", "a"), tooltest.Link("out-link", outside), tooltest.Link("dangling", "nowhere"),
		tooltest.Link("loop", "loop"), tooltest.Fifo("fifo"),
		tooltest.Dir("e"), // empty
	}
	for i := range 6 { // a chain deeper than the default max_depth
		p := "z"
		for range i {
			p += "/z"
		}
		nodes = append(nodes, tooltest.Dir(p), tooltest.File(p+"/f", "x"))
	}
	nodes = append(nodes, tooltest.Dir("w"))
	for i := range 30 { // a wide directory
		nodes = append(nodes, tooltest.File(fmt.Sprintf("w/%02d", i), ""))
	}
	root := fixedMtime.Build(t, nodes...)
	if err := os.WriteFile(filepath.Join(outside, "secret"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sb := tooltest.Sandbox(t, root)
	cfg := tooltest.Config(t, `{"list_directory":{"max_entries":100000,"max_depth":100}}`)

	var argSets []string
	for _, rec := range []string{`"recursive":false`, `"recursive":true`, `"recursive":true,"max_depth":1`, `"recursive":true,"max_depth":3`, `"recursive":true,"max_depth":100`} {
		for _, inc := range []string{``, `,"include_hidden":true`, `,"include_hidden":true,"include_other":true`,
			`,"include_files":false`, `,"include_dirs":false,"include_hidden":true`, `,"include_symlinks":false`} {
			for _, max := range []int{1, 2, 3, 5, 8, 13, 21, 40, 100000} {
				argSets = append(argSets, fmt.Sprintf(`{"path":"."%s,%s,"max_entries":%d}`, inc, rec, max))
			}
		}
	}
	argSets = append(argSets, `{"path":"a"}`, `{"path":"a","recursive":true}`, `{"path":"d\ufffd"}`, `{"path":"e","recursive":true}`)
	for _, args := range argSets {
		for _, budget := range []int64{1 << 20, 3000, 1000, 400, 150} {
			fast, fastErr := execute(t, afero.NewOsFs(), sb, cfg, root, args, budget)
			slow, slowErr := execute(t, plainFs{afero.NewOsFs()}, sb, cfg, root, args, budget)
			if fast != slow || fmt.Sprint(fastErr) != fmt.Sprint(slowErr) {
				t.Fatalf("%s, budget %d:\nfast %s (%v)\nafero %s (%v)", args, budget, fast, fastErr, slow, slowErr)
			}
			if fastErr == nil {
				checkInvariants(t, fast, budget)
			}
		}
	}
}

func execute(tb testing.TB, afs afero.Fs, sb *sandbox.Sandbox, cfg config.Config, root, args string, budget int64) (string, error) {
	tb.Helper()
	c := &tool.Ctx{FS: afs, Sandbox: sb, WorkingDir: root, MaxOutputBytes: budget, AvailableCapacityBytes: budget, Config: cfg}
	return Tool{}.Execute(context.Background(), json.RawMessage(args), c)
}
