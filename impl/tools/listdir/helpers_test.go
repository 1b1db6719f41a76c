package listdir

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/sandbox"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// fixedTime is the mtime buildTree gives every non-symlink node.
func fixedTime() time.Time { return time.Date(2024, 1, 2, 3, 4, 5, 678_901_234, time.UTC) }

const fixedMillis = 1704164645678

// node is one item of a test tree; paths use "/" and may hold any bytes.
type node struct {
	path string
	kind byte   // 'f' file, 'd' dir, 'l' symlink, 'p' fifo
	data string // file content or symlink target
}

func file(p, data string) node   { return node{path: p, kind: 'f', data: data} }
func dir(p string) node          { return node{path: p, kind: 'd'} }
func link(p, target string) node { return node{path: p, kind: 'l', data: target} }
func fifo(p string) node         { return node{path: p, kind: 'p'} }

// buildTree creates nodes under a fresh directory and sets every
// non-symlink mtime to fixedTime.
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
	for _, n := range nodes {
		if n.kind != 'l' {
			if err := os.Chtimes(filepath.Join(root, n.path), fixedTime(), fixedTime()); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return root
}

// call describes one tool invocation.
type call struct {
	args    string
	config  string // the "tools" object, e.g. {"list_directory":{...}}
	budget  int64  // effective_max; 0 means 1 MiB
	faults  []fsys.Fault
	perm    bool // wrap the filesystem in fsys.PermFs
	defects Defects
}

// run executes c on the tree at root, the working directory and only
// allowed root.
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
	cfg, err := config.Parse(json.RawMessage(`{"tools":` + cmpOr(c.config, "{}") + `}`))
	if err != nil {
		tb.Fatal(err)
	}
	budget := c.budget
	if budget == 0 {
		budget = 1 << 20
	}
	ctx := &tool.Ctx{
		FS: afs, Sandbox: sb, WorkingDir: root,
		MaxOutputBytes: budget, AvailableCapacityBytes: 1 << 30,
		AllowTruncation: true, Config: cfg,
	}
	out, err := Tool{Defects: c.defects}.Execute(context.Background(), json.RawMessage(c.args), ctx)
	if err == nil {
		checkInvariants(tb, out, budget+map[bool]int64{true: 1}[c.defects.BudgetOffByOne])
	}
	return out, ctx, err
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// outEntry is one decoded entry.
type outEntry struct {
	Name      string  `json:"name"`
	Path      string  `json:"path"`
	Depth     int     `json:"depth"`
	Type      string  `json:"type"`
	Size      *int64  `json:"size_bytes"`
	Mtime     *int64  `json:"modified_epoch_ms"`
	IsHidden  bool    `json:"is_hidden"`
	ErrorCode *string `json:"error_code"`
	Error     *string `json:"error"`
}

// output is the decoded result.
type output struct {
	Path            string     `json:"path"`
	Entries         []outEntry `json:"entries"`
	Returned        int        `json:"returned"`
	MaxEntries      int64      `json:"max_entries"`
	Truncated       bool       `json:"truncated"`
	TruncatedReason *string    `json:"truncated_reason"`
}

func decode(tb testing.TB, s string) output {
	tb.Helper()
	var o output
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		tb.Fatalf("output is not the expected JSON object: %v\n%s", err, s)
	}
	return o
}

// checkInvariants checks the rules every successful output obeys.
func checkInvariants(tb testing.TB, s string, budget int64) {
	tb.Helper()
	if int64(len(s)) > budget {
		tb.Errorf("output is %d bytes, budget %d", len(s), budget)
	}
	if !json.Valid([]byte(s)) {
		tb.Fatalf("output is not valid JSON: %s", s)
	}
	o := decode(tb, s)
	if o.Returned != len(o.Entries) {
		tb.Errorf("returned %d, entries %d", o.Returned, len(o.Entries))
	}
	if o.Truncated != (o.TruncatedReason != nil) {
		tb.Errorf("truncated %v with reason %v", o.Truncated, o.TruncatedReason)
	}
	if !slices.IsSortedFunc(o.Entries, func(a, b outEntry) int {
		return strings.Compare(a.Path, b.Path)
	}) {
		tb.Errorf("entries are not sorted by path: %s", s)
	}
	for _, e := range o.Entries {
		if (e.Size != nil) != (e.Type == typeFile) {
			tb.Errorf("%s: size_bytes %v for type %s", e.Path, e.Size, e.Type)
		}
		if (e.ErrorCode != nil) != (e.Type == typeUnknown) || (e.Error != nil) != (e.Type == typeUnknown) {
			tb.Errorf("%s: error fields %v/%v for type %s", e.Path, e.ErrorCode, e.Error, e.Type)
		}
		if e.Depth != strings.Count(e.Path, "/")+1 || !strings.HasSuffix(e.Path, e.Name) {
			tb.Errorf("%s: depth %d / name %q inconsistent", e.Path, e.Depth, e.Name)
		}
		if e.IsHidden != strings.HasPrefix(e.Name, ".") {
			tb.Errorf("%s: is_hidden %v", e.Path, e.IsHidden)
		}
	}
}

// listing summarizes entries as "path" for files, "path/" for dirs,
// "path@" for symlinks, "path|" for other and "path!code" for unknown.
func listing(tb testing.TB, s string) []string {
	tb.Helper()
	var out []string
	for _, e := range decode(tb, s).Entries {
		switch e.Type {
		case typeFile:
			out = append(out, e.Path)
		case typeDir:
			out = append(out, e.Path+"/")
		case typeSymlink:
			out = append(out, e.Path+"@")
		case typeOther:
			out = append(out, e.Path+"|")
		default:
			out = append(out, e.Path+"!"+*e.ErrorCode)
		}
	}
	return out
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

// countingFs records every path the tool lstats or opens.
type countingFs struct {
	afero.Fs
	mu      sync.Mutex
	touched []string
}

func (c *countingFs) note(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.touched = append(c.touched, name)
}

func (c *countingFs) LstatIfPossible(name string) (os.FileInfo, bool, error) {
	c.note(name)
	return c.Fs.(afero.Lstater).LstatIfPossible(name)
}

func (c *countingFs) Open(name string) (afero.File, error) {
	c.note(name)
	return c.Fs.Open(name)
}
