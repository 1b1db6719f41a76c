package runner_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/conformance/suite"
	"github.com/forge-conform/forge-conform/impl/inproc"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/spec"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// declaring is the reference whose hello declares only some tools, as an
// implementation that has written one tool so far does.
type declaring struct {
	*inproc.Target
	tools []string
}

func (d declaring) Hello(ctx context.Context) (fcp.Response, error) {
	resp, err := d.Target.Hello(ctx)
	resp.Tools = d.tools
	return resp, err
}

// TestUndeclaredToolsSkip runs the whole corpus against an implementation
// that declares read_file alone (a Node.js implementation at that stage
// failed 22 definitions and summary cases about other tools): every case
// about, or needing, another tool is skipped with a reason naming it, and
// nothing fails.
func TestUndeclaredToolsSkip(t *testing.T) {
	d, err := suite.Load()
	if err != nil {
		t.Fatal(err)
	}
	c, specs, fx := d.Corpus, d.Specs, d.Fixtures
	ref, err := inproc.New(reference.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := runner.New(context.Background(), runner.Options{Target: declaring{ref, []string{"read_file"}},
		Corpus: c, Specs: specs, Fixtures: fx, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	run := r.RunAll(context.Background())
	skippedByOp := map[string]int{}
	for _, res := range run.Results {
		k := res.Case
		if res.Status == runner.Failed || res.Status == runner.Errored {
			t.Errorf("%s (op %s, tool %s): %s: %s", k.FullName(), k.Op, k.Tool, res.Status, res.Message)
			continue
		}
		var need string // the tool the case is about or first calls, when not read_file
		switch {
		case k.Op != corpus.OpTurn && k.Tool != "read_file":
			need = k.Tool
		default:
			for _, st := range k.Before {
				if st.Call != nil && st.Call.Tool != "read_file" {
					need = st.Call.Tool
					break
				}
			}
		}
		if need == "" {
			continue
		}
		want := fmt.Sprintf("unsupported: the implementation does not declare tool %q", need)
		if res.Status != runner.Skipped || !strings.HasPrefix(res.Message, want) {
			t.Errorf("%s (op %s): %s %q, want skipped %q", k.FullName(), k.Op, res.Status, res.Message, want)
			continue
		}
		skippedByOp[k.Op]++
	}
	// The corpus has definitions and summary cases about list_directory,
	// list_dir, search_files, write_file and apply_patch.
	if skippedByOp[fcp.OpDefinitions] < 4 || skippedByOp[fcp.OpSummary] < 15 {
		t.Errorf("skipped definitions and summary cases %v: the corpus has more about other tools than read_file", skippedByOp)
	}
}

// TestUndeclaredToolReasons: a before step or a turn's scripted model that
// calls an undeclared tool skips its case and says which tool and where;
// a name no catalog knows is what a turn tests (UnknownTool), not a need.
func TestUndeclaredToolReasons(t *testing.T) {
	c, err := corpus.Load(fstest.MapFS{"demo/cases.json": {Data: []byte(`{"spec":"demo","cases":[
	 {"name":"before-write","ids":["T-DEMO-01"],"tool":"read_file","fixture":"tiny",
	  "before":[{"call":{"tool":"read_file","args":{"path":"a.txt"}}},{"call":{"tool":"write_file","args":{"path":"b.txt","content":"x"}}}],
	  "args":{"path":"a.txt"},"expect":{"text":"one\n"}},
	 {"name":"definitions-write","ids":["T-DEMO-01"],"op":"definitions","tool":"write_file","expect":{"success":true}},
	 {"name":"summary-write","ids":["T-DEMO-01"],"op":"summary","tool":"write_file","args":{"path":"b.txt","content":"x"},"expect":{"success":true}},
	 {"name":"turn-write","ids":["T-DEMO-01"],"op":"turn","fixture":"tiny","turn":{"user":"go","model":[
	   {"tool_calls":[{"id":"c1","name":"read_file","args":{"path":"a.txt"}}]},
	   {"tool_calls":[{"id":"c2","name":"write_file","args":{"path":"b.txt","content":"x"}}]},{"text":"done"}]},
	  "expect":{"turn":{}}},
	 {"name":"turn-unknown","ids":["T-DEMO-01"],"op":"turn","fixture":"tiny","turn":{"user":"go","model":[
	   {"tool_calls":[{"id":"c1","name":"no_such_tool","args":{}}]},{"text":"done"}]},
	  "expect":{"turn":{}}}]}`)}})
	if err != nil {
		t.Fatal(err)
	}
	specs, err := spec.LoadFS(fstest.MapFS{"catalog/demo.json": {Data: []byte(`{"spec":"demo","document":"DEMO.md","title":"demo",
		"tools":["read_file","write_file"],"requirements":[{"id":"T-DEMO-01","level":"MUST","section":"1","summary":"demo","testable":true,"origin":"derived"}]}`)}})
	if err != nil {
		t.Fatal(err)
	}
	tiny, err := fixture.Parse("tiny", []byte("file a.txt \"one\\n\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	ref, err := inproc.New(reference.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := runner.New(context.Background(), runner.Options{Target: declaring{ref, []string{"read_file"}},
		Corpus: c, Specs: specs, Fixtures: map[string]*fixture.Fixture{"tiny": tiny}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	const undeclared = `unsupported: the implementation does not declare tool "write_file"`
	want := map[string]string{
		"before-write":      undeclared + " (the case's before[1] calls it)",
		"definitions-write": undeclared,
		"summary-write":     undeclared,
		"turn-write":        undeclared + " (the case's scripted model calls it)",
	}
	for _, res := range r.RunAll(context.Background()).Results {
		name := res.Case.Name
		if w, ok := want[name]; ok {
			if res.Status != runner.Skipped || res.Message != w {
				t.Errorf("%s: %s %q, want skipped %q", name, res.Status, res.Message, w)
			}
		} else if res.Status == runner.Skipped {
			t.Errorf("%s: skipped (%s), want it run", name, res.Message)
		}
	}
}
