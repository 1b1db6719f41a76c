package searchfiles

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/internal/tooltest"
	"github.com/forge-conform/forge-conform/impl/sandbox"
	"github.com/forge-conform/forge-conform/impl/tool"
)

// goSrc returns $(go env GOROOT)/src, the benchmarks' tree.
func goSrc(b *testing.B) string {
	b.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}

// benchQueries are the searches both benchmarks run, with the ripgrep
// flags that search like the tool's arguments (rg skips hidden files by
// default, as include_hidden=false does; --no-ignore matches
// respect_gitignore=false; -S is smart case).
var benchQueries = []struct {
	name, args string
	rg         []string
}{
	{"exact", `"query":"func main","mode":"exact","case":"sensitive"`, []string{"-F", "func main"}},
	{"regex", `"query":"func\\s+main\\(","mode":"regex","case":"sensitive"`, []string{`func\s+main\(`}},
	{"smart", `"query":"func main","mode":"exact","case":"smart"`, []string{"-S", "-F", "func main"}},
}

// BenchmarkSearchGoSrc searches the whole Go source tree with every cap
// raised so that nothing stops the traversal early, with each backend
// (rg and ugrep when installed). It reports the files scanned and the
// matches found per run.
func BenchmarkSearchGoSrc(b *testing.B) {
	root := goSrc(b)
	sb := tooltest.Sandbox(b, root)
	for _, backend := range []string{backendNative, backendRg, backendUgrep} {
		if backend != backendNative {
			if _, err := exec.LookPath(binaries[backend].name); err != nil {
				continue
			}
		}
		cfg := tooltest.Config(b, `{"search_files":{"backend":"`+backend+`","max_results":10000000,"max_matches_per_file":10000000,
		"max_file_size_bytes":1073741824,"max_files":10000000,"max_depth":1000}}`)
		benchBackend(b, backend, root, sb, cfg)
	}
}

func benchBackend(b *testing.B, backend, root string, sb *sandbox.Sandbox, cfg config.Config) {
	for _, q := range benchQueries {
		b.Run(backend+"/"+q.name, func(b *testing.B) {
			args := json.RawMessage(`{"path":".","respect_gitignore":false,` + q.args + `}`)
			var o struct {
				Returned int `json:"returned"`
				Stats    struct {
					FilesScanned int `json:"files_scanned"`
				} `json:"stats"`
				Truncated bool `json:"truncated"`
			}
			b.ReportAllocs()
			for b.Loop() {
				c := &tool.Ctx{FS: afero.NewOsFs(), Sandbox: sb, WorkingDir: root,
					MaxOutputBytes: 1 << 30, AvailableCapacityBytes: 1 << 30, Config: cfg}
				out, err := New().Execute(context.Background(), args, c)
				if err != nil {
					b.Fatal(err)
				}
				if err := json.Unmarshal([]byte(out), &o); err != nil || o.Truncated {
					b.Fatalf("unexpected output (%v): %.300s", err, out)
				}
			}
			b.ReportMetric(float64(o.Stats.FilesScanned), "files")
			b.ReportMetric(float64(o.Returned), "matches")
		})
	}
}

// BenchmarkRipgrepGoSrc runs ripgrep over the same tree with the same
// queries, counting matching lines per file, for a side-by-side figure.
func BenchmarkRipgrepGoSrc(b *testing.B) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Skip("rg not installed")
	}
	root := goSrc(b)
	for _, q := range benchQueries {
		b.Run(q.name, func(b *testing.B) {
			var lines int
			for b.Loop() {
				cmd := exec.Command(rg, append([]string{"--no-ignore", "-c"}, q.rg...)...)
				cmd.Dir = root
				out, err := cmd.Output()
				if err != nil {
					b.Fatal(err)
				}
				lines = 0
				for _, l := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
					if i := bytes.LastIndexByte(l, ':'); i >= 0 {
						n, _ := strconv.Atoi(string(l[i+1:]))
						lines += n
					}
				}
			}
			b.ReportMetric(float64(lines), "lines")
		})
	}
}
