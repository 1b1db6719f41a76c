package runner_test

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/impl/inproc"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/spec"
)

// stepsRun runs a one-file corpus against the in-process reference.
func stepsRun(t *testing.T, cases string) map[string]*runner.Result {
	t.Helper()
	c, err := corpus.Load(fstest.MapFS{"demo/cases.json": {Data: []byte(cases)}})
	if err != nil {
		t.Fatal(err)
	}
	specs, err := spec.LoadFS(fstest.MapFS{"catalog/demo.json": {Data: []byte(`{"spec":"demo","document":"DEMO.md","title":"demo",
		"tools":["read_file","write_file","apply_patch"],"mutating_tools":["write_file","apply_patch"],
		"requirements":[{"id":"T-DEMO-01","level":"MUST","section":"1","summary":"demo","testable":true,"origin":"derived"}]}`)}})
	if err != nil {
		t.Fatal(err)
	}
	fx, err := fixture.Parse("tiny", []byte("file a.txt \"one\\n\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	ref, err := inproc.New(reference.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := runner.New(context.Background(), runner.Options{Target: ref, Corpus: c, Specs: specs, Fixtures: map[string]*fixture.Fixture{"tiny": fx}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out := map[string]*runner.Result{}
	for _, res := range r.RunAll(context.Background()).Results {
		out[res.Case.Name] = res
	}
	return out
}

func TestBeforeStepsAndTrees(t *testing.T) {
	got := stepsRun(t, `{"spec":"demo","defaults":{"fixture":"tiny"},"cases":[
	 {"name":"disk-write-then-read","ids":["T-DEMO-01"],"tool":"read_file","before":[{"write":{"path":"a.txt","content":"changed\n"}}],
	  "args":{"path":"a.txt"},"expect":{"text":"changed\n"}},
	 {"name":"read-sees-pristine-fixture","ids":["T-DEMO-01"],"tool":"read_file","args":{"path":"a.txt"},"expect":{"text":"one\n"}},
	 {"name":"failing-setup","ids":["T-DEMO-01"],"tool":"read_file","before":[{"call":{"tool":"read_file","args":{"path":"nope"}}}],
	  "args":{"path":"a.txt"},"expect":{"text":"one\n"}},
	 {"name":"expected-setup-error","ids":["T-DEMO-01"],"tool":"read_file","before":[{"call":{"tool":"read_file","args":{"path":"nope"}},"expect_error":"ExecutionFailed"}],
	  "args":{"path":"a.txt"},"expect":{"text":"one\n"}},
	 {"name":"unexpected-tree-change","ids":["T-DEMO-01"],"tool":"write_file","args":{"path":"b.txt","content":"x"},
	  "expect":{"text":"{\"status\":\"created\",\"path\":\"b.txt\",\"bytes_written\":1}","tree":{}}},
	 {"name":"expected-tree-change","ids":["T-DEMO-01"],"tool":"write_file","args":{"path":"b.txt","content":"x"},
	  "expect":{"text":"{\"status\":\"created\",\"path\":\"b.txt\",\"bytes_written\":1}","tree":{"b.txt":{"content":"x"}}}},
	 {"name":"read-then-patch","ids":["T-DEMO-01"],"tool":"apply_patch","before":[{"call":{"tool":"read_file","args":{"path":"a.txt"}}}],
	  "args":{"patch":"LP1\nF a.txt\nT\ntwo\n.\nEND\n"},"expect":{"text":"modified: a.txt","tree":{"a.txt":{"content":"one\ntwo\n"}}}},
	 {"name":"patch-without-read","ids":["T-DEMO-01"],"tool":"apply_patch",
	  "args":{"patch":"LP1\nF a.txt\nT\ntwo\n.\nEND\n"},"expect":{"error":{"kind":"StaleFile"},"tree":{}}}
	]}`)
	want := map[string]struct {
		status runner.Status
		msg    string
	}{
		"disk-write-then-read":       {runner.Passed, ""},
		"read-sees-pristine-fixture": {runner.Passed, ""},
		"failing-setup":              {runner.Errored, "before[0] read_file failed"},
		"expected-setup-error":       {runner.Passed, ""},
		"unexpected-tree-change":     {runner.Failed, "tree"},
		"expected-tree-change":       {runner.Passed, ""},
		"read-then-patch":            {runner.Passed, ""},
		"patch-without-read":         {runner.Passed, ""},
	}
	for name, w := range want {
		res := got[name]
		if res == nil {
			t.Errorf("%s: no result", name)
			continue
		}
		if res.Status != w.status || !strings.Contains(res.Message, w.msg) {
			t.Errorf("%s: %s %q, want %s containing %q", name, res.Status, res.Message, w.status, w.msg)
		}
	}
}
