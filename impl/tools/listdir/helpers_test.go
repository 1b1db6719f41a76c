package listdir

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/internal/tooltest"
	"github.com/forge-conform/forge-conform/impl/tool"
)

// fixedMtime builds test trees in which every node but symlinks has the
// modification time fixedMillis.
var fixedMtime = tooltest.Options{Mtime: time.Date(2024, 1, 2, 3, 4, 5, 678_901_234, time.UTC)}

const fixedMillis = 1704164645678

// run executes c with Tool{} on the tree at root; see runTool.
func run(tb testing.TB, root string, c tooltest.Call) (string, *tool.Ctx, error) {
	tb.Helper()
	return runTool(tb, Tool{}, root, c)
}

// runTool executes c with tl on the tree at root, the working directory
// and only allowed root, and checks every successful output against
// checkInvariants.
func runTool(tb testing.TB, tl Tool, root string, c tooltest.Call) (string, *tool.Ctx, error) {
	tb.Helper()
	out, ctx, err := tooltest.Run(tb, tl, root, c)
	if err == nil {
		checkInvariants(tb, out, ctx.MaxOutputBytes)
	}
	return out, ctx, err
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
