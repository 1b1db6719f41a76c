package runner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/conformance/suite"
	"github.com/forge-conform/forge-conform/impl/fcpserver"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/spec/fcp"
	"github.com/forge-conform/forge-conform/spec/fcp/fcpschema"
)

// recordArg, as the first argument of this test binary, makes it the
// recording implementation of TestWireRequestsMatchTheSchema instead of a
// test run: `runner.test -fcp-record DIR` serves the reference over FCP/1
// and appends every byte it reads from stdin to DIR/<pid>.jsonl.
const recordArg = "-fcp-record"

func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == recordArg {
		os.Exit(serveRecording(os.Args[2]))
	}
	os.Exit(m.Run())
}

// serveRecording is the reference as forge-ref serves it, with stdin
// copied to a file of its own as it is read. The copy is unbuffered, so a
// process the runner kills (durability cases) has recorded every request
// it read.
func serveRecording(dir string) int {
	f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("%d.jsonl", os.Getpid())), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintf(os.Stderr, "recording implementation: %v\n", err)
		return 2
	}
	defer f.Close()
	ref, err := reference.New(reference.Options{})
	if err != nil {
		fmt.Fprintf(os.Stderr, "recording implementation: %v\n", err)
		return 2
	}
	if err := fcpserver.Serve(context.Background(), io.TeeReader(os.Stdin, f), os.Stdout, ref); err != nil {
		fmt.Fprintf(os.Stderr, "recording implementation: %v\n", err)
		return 2
	}
	return 0
}

// TestWireRequestsMatchTheSchema runs the whole corpus through FCP/1
// against the reference, served by this test binary (TestMain), which
// records the bytes it reads; every request line must match FCP/1's
// request schemas (request.json, turn-request.json, screen-request.json),
// and every op the runner can send must have been sent. Unlike
// TestRequestsMatchTheSchema (the requests Script builds) this sees the
// wire: hello, reset, bye, the seq the client assigns, the requests a
// turn's user answers with, and recover.
func TestWireRequestsMatchTheSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the corpus through a process (about 10 s): not with -short")
	}
	d, err := suite.Load()
	if err != nil {
		t.Fatal(err)
	}
	c, specs, fx := d.Corpus, d.Specs, d.Fixtures
	// Run as root, the runner starts the implementation as nobody: this
	// binary and the record directory must be reachable by any user.
	dir, err := os.MkdirTemp("", "fc-wire-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	records := filepath.Join(dir, "records")
	if err := os.Mkdir(records, 0o777); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, records} {
		if err := os.Chmod(p, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "impl")
	if err := copyFile(self, bin); err != nil {
		t.Fatal(err)
	}

	r, err := runner.New(context.Background(), runner.Options{Binary: []string{bin, recordArg, records},
		Corpus: c, Specs: specs, Fixtures: fx, Jobs: 2, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	run := r.RunAll(context.Background())
	r.Close() // sends bye to every session
	for _, res := range run.Results {
		if res.Status == runner.Errored {
			t.Errorf("%s errored (its requests may be missing below): %s", res.Case.FullName(), res.Message)
		}
	}

	v, err := fcpschema.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(records, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded requests in %s (%v): did the implementation start?", records, err)
	}
	ops := map[string]int{}
	bad := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		// A process killed while reading may leave a fragment after the
		// last newline; only complete lines are requests.
		lines := bytes.Split(data, []byte("\n"))
		lines = lines[:len(lines)-1]
		current := "(no case yet: " + filepath.Base(file) + ")"
		for _, line := range lines {
			var head struct {
				Op   string `json:"op"`
				Case string `json:"case"`
			}
			_ = json.Unmarshal(line, &head)
			if head.Case != "" {
				current = head.Case
			}
			ops[head.Op]++
			if err := v.ValidateRequest(line); err != nil {
				bad++
				if bad <= 20 {
					t.Errorf("case %s, op %q: %v\n%s", current, head.Op, err, clip(line))
				}
			}
		}
	}
	if bad > 20 {
		t.Errorf("and %d more invalid requests", bad-20)
	}
	want := []string{fcp.OpHello, fcp.OpCall, fcp.OpDefinitions, fcp.OpSummary, fcp.OpReset, fcp.OpBye,
		fcp.OpTurn, fcp.OpDecide, fcp.OpCancel, fcp.OpToolResult, fcp.OpRecover, fcp.OpScreen}
	var missing []string
	for _, op := range want {
		if ops[op] == 0 {
			missing = append(missing, op)
		}
	}
	if len(missing) > 0 {
		t.Errorf("the run sent no request with op %s (sent: %v): a case or the recording is missing", strings.Join(missing, ", "), opCounts(ops))
	}
	t.Logf("validated %d request lines from %d processes: %v", sum(ops), len(files), opCounts(ops))
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o755)
}

func clip(line []byte) string {
	if len(line) > 400 {
		return string(line[:400]) + "..."
	}
	return string(line)
}

func opCounts(ops map[string]int) string {
	keys := make([]string, 0, len(ops))
	for k := range ops {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s:%d", k, ops[k]))
	}
	return strings.Join(parts, " ")
}

func sum(ops map[string]int) int {
	n := 0
	for _, c := range ops {
		n += c
	}
	return n
}
