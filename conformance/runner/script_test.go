package runner_test

import (
	"encoding/json"
	"testing"

	"github.com/forge-conform/forge-conform/conformance/cases"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/spec/fcp"
	"github.com/forge-conform/forge-conform/spec/fcp/fcpschema"
)

// Every request the runner builds for the corpus matches FCP/1's request
// schema (spec/fcp/schema/request.json), with placeholders and with real
// paths, and with a --config overlay.
func TestRequestsMatchTheSchema(t *testing.T) {
	c, err := corpus.Load(cases.FS)
	if err != nil {
		t.Fatal(err)
	}
	v, err := fcpschema.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	hello, _ := json.Marshal(fcp.Request{FCP: fcp.Version, Op: fcp.OpHello})
	if err := v.ValidateRequest(hello); err != nil {
		t.Errorf("hello: %v", err)
	}
	layouts := []fixture.Layout{{}, {Base: "/tmp/x", Root: "/tmp/x/root", Outside: "/tmp/x/outside"}}
	overlay := json.RawMessage(`{"tools":{"search_files":{"backend":"rg"}}}`)
	n := 0
	for _, k := range c.Cases {
		for _, l := range layouts {
			for i, line := range runner.Script(k, l, overlay) {
				if line.Request == nil {
					continue
				}
				req := *line.Request
				req.Seq = int64(i + 1)
				raw, err := json.Marshal(req)
				if err != nil {
					t.Fatal(err)
				}
				if err := v.ValidateRequest(raw); err != nil {
					t.Errorf("%s request %d: %v\n%s", k.FullName(), i, err, raw)
				}
				n++
			}
		}
	}
	if n < len(c.Cases) {
		t.Errorf("validated %d requests for %d cases", n, len(c.Cases))
	}
}
