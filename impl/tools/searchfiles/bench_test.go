package searchfiles

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/internal/tooltest"
	"github.com/forge-conform/forge-conform/impl/tool"
)

// benchQuery is one search the benchmarks run, with the tool's arguments
// and the raw binaries' flags that search the same way (rg and ugrep skip
// hidden and binary files by default, as the tool does; no ignore files,
// as respect_gitignore=false).
type benchQuery struct {
	name, args string
	rg, ugrep  []string
}

var benchQueries = []benchQuery{
	{"exact", `"query":"func main","mode":"exact","case":"sensitive"`,
		[]string{"-F", "func main"}, []string{"-F", "func main"}},
	{"regex", `"query":"func\\s+main\\(","mode":"regex","case":"sensitive"`,
		[]string{`func\s+main\(`}, []string{"-P", `func\s+main\(`}},
	{"smart", `"query":"func main","mode":"exact","case":"smart"`,
		[]string{"-S", "-F", "func main"}, []string{"-j", "-F", "func main"}},
}

// BenchmarkGoSrc is the side-by-side run the speed targets are measured
// with (issue 10): per query, raw rg, the native backend, the rg backend,
// raw ugrep and the ugrep backend, one after the other, on the whole Go
// source tree with every cap raised so that nothing stops early:
//
//	go test -run '^$' -bench 'BenchmarkGoSrc$' -benchtime 10x ./impl/tools/searchfiles/
//
// The tool runs report the files scanned and matches found, the raw runs
// the matching lines; every run reports its CPU time (cpu-ns/op: this
// process's and its children's, user and system), the figure to compare
// when other work shares the machine.
func BenchmarkGoSrc(b *testing.B) {
	root := tooltest.GoSrc(b)
	for _, q := range benchQueries {
		b.Run(q.name, func(b *testing.B) {
			b.Run("raw-rg", func(b *testing.B) { benchRaw(b, root, "rg", append([]string{"--no-ignore", "-c"}, q.rg...)) })
			b.Run("native", func(b *testing.B) { benchTool(b, root, backendNative, q) })
			b.Run("rg", func(b *testing.B) { benchTool(b, root, backendRg, q) })
			b.Run("raw-ugrep", func(b *testing.B) {
				benchRaw(b, root, "ugrep", append([]string{"-r", "-c", "-I", "--no-messages"}, q.ugrep...))
			})
			b.Run("ugrep", func(b *testing.B) { benchTool(b, root, backendUgrep, q) })
		})
	}
}

// benchTool runs the query with the backend.
func benchTool(b *testing.B, root, backend string, q benchQuery) {
	if backend != backendNative {
		if _, err := exec.LookPath(binaries[backend].name); err != nil {
			b.Skip(binaries[backend].name + " not installed")
		}
	}
	sb := tooltest.Sandbox(b, root)
	cfg := tooltest.Config(b, `{"search_files":{"backend":"`+backend+`","max_results":10000000,"max_matches_per_file":10000000,
		"max_file_size_bytes":1073741824,"max_files":10000000,"max_depth":1000}}`)
	args := json.RawMessage(`{"path":".","respect_gitignore":false,` + q.args + `}`)
	var o struct {
		Returned int `json:"returned"`
		Stats    struct {
			FilesScanned int `json:"files_scanned"`
		} `json:"stats"`
		Truncated bool `json:"truncated"`
	}
	tl := New()
	b.ReportAllocs()
	cpu := tooltest.CPUTime()
	for b.Loop() {
		c := &tool.Ctx{FS: afero.NewOsFs(), Sandbox: sb, WorkingDir: root,
			MaxOutputBytes: 1 << 30, AvailableCapacityBytes: 1 << 30, Config: cfg}
		out, err := tl.Execute(context.Background(), args, c)
		if err != nil {
			b.Fatal(err)
		}
		if err := json.Unmarshal([]byte(out), &o); err != nil || o.Truncated {
			b.Fatalf("unexpected output (%v): %.300s", err, out)
		}
	}
	tooltest.ReportCPU(b, cpu)
	b.ReportMetric(float64(o.Stats.FilesScanned), "files")
	b.ReportMetric(float64(o.Returned), "matches")
}

// benchRaw runs a binary in root, its output (path:count lines) read
// through a pipe as the tool reads its backends' (ugrep, like grep, stops
// at the first match when its output is /dev/null).
func benchRaw(b *testing.B, root, name string, args []string) {
	bin, err := exec.LookPath(name)
	if err != nil {
		b.Skip(name + " not installed")
	}
	var lines int
	cpu := tooltest.CPUTime()
	for b.Loop() {
		cmd := exec.Command(bin, args...)
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
	tooltest.ReportCPU(b, cpu)
	b.ReportMetric(float64(lines), "lines")
}

// BenchmarkSortScaling searches the trees of the sort-scaling case
// (fixtures/scaling-sf-*.fixture: files of 16 matching lines in d/ and
// beside it as d-NNNN, whose walk order is far from the order by path) for
// n and 16n matches, to show how the reference's call grows
// (NFR-SF-PERF-02, I-SF-30): its cpu-ns/match should grow by about
// log(16n)/log(n), 1.4, not 16-fold:
//
//	go test -run '^$' -bench 'BenchmarkSortScaling' -benchtime 20x ./impl/tools/searchfiles/
func BenchmarkSortScaling(b *testing.B) {
	for _, n := range []int{2048, 32768} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			text := strings.Repeat("abcdefghijklmnopqrstuvwxyz\n", 16)
			nodes := []tooltest.Node{tooltest.Dir("d")}
			for i := range n / 32 {
				nodes = append(nodes, tooltest.File(fmt.Sprintf("d/f%04d", i), text), tooltest.File(fmt.Sprintf("d-%04d", i), text))
			}
			root := tooltest.Build(b, nodes...)
			sb := tooltest.Sandbox(b, root)
			cfg := tooltest.Config(b, `{"search_files":{"max_results":32768,"max_files":2048}}`)
			args := json.RawMessage(`{"path":".","query":"abc","mode":"exact","case":"sensitive","max_results":32768,"max_files":2048}`)
			want := `"returned":` + strconv.Itoa(n) + `,`
			tl := New()
			cpu := tooltest.CPUTime()
			for b.Loop() {
				c := &tool.Ctx{FS: afero.NewOsFs(), Sandbox: sb, WorkingDir: root,
					MaxOutputBytes: 16 << 20, AvailableCapacityBytes: 16 << 20, Config: cfg}
				out, err := tl.Execute(context.Background(), args, c)
				if err != nil {
					b.Fatal(err)
				}
				if !strings.Contains(out, want) {
					b.Fatalf("unexpected output: %.300s", out)
				}
			}
			tooltest.ReportCPU(b, cpu)
			b.ReportMetric(float64(tooltest.CPUTime()-cpu)/float64(b.N)/float64(n), "cpu-ns/match")
		})
	}
}
