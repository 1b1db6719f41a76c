package runner_test

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/conformance/fusefault"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/impl/inproc"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/spec"
)

// limited is the reference with fewer capabilities: the runner must decide
// from Caps alone what a target can run.
type limited struct {
	*inproc.Target
	caps runner.Caps
}

func (l limited) Caps() runner.Caps { return l.caps }

func TestRunnerFollowsCaps(t *testing.T) {
	c, err := corpus.Load(fstest.MapFS{"demo/cases.json": {Data: []byte(`{"spec":"demo","cases":[
	 {"name":"plain","ids":["T-DEMO-01"],"tool":"read_file","fixture":"tiny","args":{"path":"a.txt"},"expect":{"text":"one\n"}},
	 {"name":"faulty","ids":["T-DEMO-01"],"tool":"read_file","fixture":"faulty","args":{"path":"a.txt"},"expect":{"error":{"kind":"ExecutionFailed"}}},
	 {"name":"stateful","ids":["T-DEMO-01"],"tool":"read_file","fixture":"tiny","before":[{"call":{"tool":"read_file","args":{"path":"a.txt"}}}],
	  "args":{"path":"a.txt"},"expect":{"text":"one\n"}}]}`)}})
	if err != nil {
		t.Fatal(err)
	}
	specs, err := spec.LoadFS(fstest.MapFS{"catalog/demo.json": {Data: []byte(`{"spec":"demo","document":"DEMO.md","title":"demo",
		"tools":["read_file"],"requirements":[{"id":"T-DEMO-01","level":"MUST","section":"1","summary":"demo","testable":true,"origin":"derived"}]}`)}})
	if err != nil {
		t.Fatal(err)
	}
	tiny, err := fixture.Parse("tiny", []byte("file a.txt \"one\\n\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	faulty, err := fixture.Parse("faulty", []byte("file a.txt \"one\\n\"\nfault open a.txt EIO\n"))
	if err != nil {
		t.Fatal(err)
	}
	fx := map[string]*fixture.Fixture{"tiny": tiny, "faulty": faulty}

	if _, err := runner.New(context.Background(), runner.Options{Corpus: c, Specs: specs, Fixtures: fx}); err == nil ||
		!strings.Contains(err.Error(), "Options.Target") {
		t.Errorf("New without a target = %v, want an error naming Options.Target", err)
	}

	full, err := inproc.New(reference.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Without Caps.Faults, the runner injects the faults itself through
	// FUSE where it can (the case passes: the read fails as declared), and
	// skips the case otherwise.
	faultyWant := "passed"
	if err := fusefault.Probe(t.TempDir()); err != nil {
		faultyWant = "needs fault injection (fixture faulty): FUSE is not usable here"
	}
	tests := []struct {
		name string
		caps runner.Caps
		want map[string]string // case -> status, or the start of the skip reason
	}{
		{"every capability", full.Caps(), map[string]string{"plain": "passed", "faulty": "passed", "stateful": "passed"}},
		{"no faults, no state", runner.Caps{Unprivileged: true, Owner: full.Caps().Owner},
			map[string]string{"plain": "passed", "faulty": faultyWant, "stateful": "needs conversation state"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := runner.New(context.Background(), runner.Options{Target: limited{full, tt.caps}, Corpus: c, Specs: specs, Fixtures: fx})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			for _, res := range r.RunAll(context.Background()).Results {
				want := tt.want[res.Case.Name]
				got := string(res.Status)
				if res.Status == runner.Skipped {
					got = res.Message
				}
				if !strings.HasPrefix(got, want) {
					t.Errorf("%s: %s (%s), want %s", res.Case.Name, res.Status, res.Message, want)
				}
			}
		})
	}
}
