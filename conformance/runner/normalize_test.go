package runner

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/forge-conform/forge-conform/conformance/check"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

var testLayout = fixture.Layout{Base: "/tmp/fc-1", Root: "/tmp/fc-1/root", Outside: "/tmp/fc-1/outside"}

func TestExpand(t *testing.T) {
	tests := []struct{ in, want string }{
		{``, ``},
		{`{"path":"."}`, `{"path":"."}`},
		{`{"path":"$ROOT"}`, `{"path":"/tmp/fc-1/root"}`},
		{`{"path":"$ROOT/a/b","x":"$OUTSIDE/o","y":["$ROOT","$OUTSIDE"]}`, `{"path":"/tmp/fc-1/root/a/b","x":"/tmp/fc-1/outside/o","y":["/tmp/fc-1/root","/tmp/fc-1/outside"]}`},
		{`{"tools":{"x":{"roots":["$ROOT/../outside"]}}}`, `{"tools":{"x":{"roots":["/tmp/fc-1/root/../outside"]}}}`},
	}
	for _, tt := range tests {
		got := expand(json.RawMessage(tt.in), testLayout)
		if string(got) != tt.want {
			t.Errorf("expand(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestNormalize(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		name     string
		resp     fcp.Response
		want     fcp.Response
		noLayout bool
	}{
		{"content",
			fcp.Response{OK: fcp.Bool(true), Content: str("Absolute path: /tmp/fc-1/root/sub\nlink -> /tmp/fc-1/outside/x"), AllowTruncation: fcp.Bool(false)},
			fcp.Response{OK: fcp.Bool(true), Content: str("Absolute path: $ROOT/sub\nlink -> $OUTSIDE/x"), AllowTruncation: fcp.Bool(false)}, false},
		{"every occurrence",
			fcp.Response{OK: fcp.Bool(true), Content: str(`["/tmp/fc-1/root","/tmp/fc-1/root/a","/tmp/fc-1/outside"]`)},
			fcp.Response{OK: fcp.Bool(true), Content: str(`["$ROOT","$ROOT/a","$OUTSIDE"]`)}, false},
		{"base alone is left as is",
			fcp.Response{OK: fcp.Bool(true), Content: str(`/tmp/fc-1/other`)},
			fcp.Response{OK: fcp.Bool(true), Content: str(`/tmp/fc-1/other`)}, false},
		{"error and denial",
			fcp.Response{OK: fcp.Bool(false), Error: &fcp.Error{Kind: "SandboxViolation", Message: "/tmp/fc-1/outside/x is outside /tmp/fc-1/root",
				Denial: &fcp.Denial{Reason: "PathOutsideSandbox", Attempted: "/tmp/fc-1/root/../outside/x", Resolved: "/tmp/fc-1/outside/x", Message: "not under /tmp/fc-1/root", Pattern: "/tmp/fc-1/root/**"}}},
			fcp.Response{OK: fcp.Bool(false), Error: &fcp.Error{Kind: "SandboxViolation", Message: "$OUTSIDE/x is outside $ROOT",
				// The pattern is the configured glob: left alone.
				Denial: &fcp.Denial{Reason: "PathOutsideSandbox", Attempted: "$ROOT/../outside/x", Resolved: "$OUTSIDE/x", Message: "not under $ROOT", Pattern: "/tmp/fc-1/root/**"}}}, false},
		{"error without denial",
			fcp.Response{OK: fcp.Bool(false), Error: &fcp.Error{Kind: "ExecutionFailed", Message: "/tmp/fc-1/root/f: path is not a directory"}},
			fcp.Response{OK: fcp.Bool(false), Error: &fcp.Error{Kind: "ExecutionFailed", Message: "$ROOT/f: path is not a directory"}}, false},
		{"no layout (definitions)",
			fcp.Response{OK: fcp.Bool(true), Content: str("/tmp/fc-1/root")},
			fcp.Response{OK: fcp.Bool(true), Content: str("/tmp/fc-1/root")}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := json.Marshal(tt.resp)
			l := testLayout
			if tt.noLayout {
				l = fixture.Layout{}
			}
			got := normalize(tt.resp, l)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("normalize differs (-want +got):\n%s", d)
			}
			if after, _ := json.Marshal(tt.resp); string(after) != string(before) {
				t.Errorf("normalize modified its argument:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

func TestRequestExpandsRootAndOutside(t *testing.T) {
	r := &Runner{}
	c := &corpus.Case{Spec: "list_directory", Name: "sandbox", Op: fcp.OpCall, Tool: "list_directory",
		Args:   json.RawMessage(`{"path":"$OUTSIDE/x"}`),
		Config: json.RawMessage(`{"tools":{"list_directory":{"denied":["$ROOT/secret"]}}}`),
		Ctx:    &corpus.CtxOverride{MaxOutputBytes: func() *int64 { n := int64(512); return &n }()}}
	req, err := r.request(c, testLayout)
	if err != nil {
		t.Fatal(err)
	}
	if req.FCP != fcp.Version || req.Op != fcp.OpCall || req.Case != "list_directory/sandbox" {
		t.Errorf("request header = fcp %d op %q case %q", req.FCP, req.Op, req.Case)
	}
	if req.Call == nil || req.Call.Name != "list_directory" || string(req.Call.Args) != `{"path":"/tmp/fc-1/outside/x"}` || !strings.HasPrefix(req.Call.ID, "call_") {
		t.Errorf("call = %+v, want list_directory with $OUTSIDE expanded", req.Call)
	}
	if string(req.Config) != `{"tools":{"list_directory":{"denied":["/tmp/fc-1/root/secret"]}}}` {
		t.Errorf("config = %s, want $ROOT expanded", req.Config)
	}
	if req.Ctx == nil || req.Ctx.WorkingDir != testLayout.Root || req.Ctx.MaxOutputBytes == nil || *req.Ctx.MaxOutputBytes != 512 || req.Ctx.AvailableCapacityBytes != nil {
		t.Errorf("ctx = %+v, want working_dir = root and only max_output_bytes set", req.Ctx)
	}
	again, _ := r.request(c, testLayout)
	if again.Call.ID == req.Call.ID {
		t.Errorf("two requests share the call id %q", req.Call.ID)
	}

	defs, _ := r.request(&corpus.Case{Spec: "list_directory", Name: "d", Op: fcp.OpDefinitions}, fixture.Layout{})
	if defs.Call != nil || defs.Ctx != nil || defs.Config != nil || defs.Op != fcp.OpDefinitions {
		t.Errorf("a definitions request carries no call, ctx or config: %+v", defs)
	}
}

// Normalizing what expanding produced gives back the case's own text, so
// checks see the same $ROOT the case author wrote.
func TestExpandNormalizeRoundTrip(t *testing.T) {
	for _, s := range []string{`$ROOT`, `$ROOT/a and $OUTSIDE/b`, `no paths`} {
		sent := string(expand(json.RawMessage(s), testLayout))
		got := normalize(fcp.Response{Content: &sent}, testLayout)
		if *got.Content != s {
			t.Errorf("normalize(expand(%q)) = %q", s, *got.Content)
		}
	}
}

func TestSummarizeAndSameResponse(t *testing.T) {
	fs := []check.Failure{
		{IDs: []string{"T-LD-05", "FR-LD-LST-07"}, Kind: check.KindExpect, Message: "result differs"},
		{IDs: []string{"C-03"}, Kind: check.KindInvariant, Message: "x"},
		{IDs: []string{"C-03"}, Kind: check.KindGolden, Message: "y"},
	}
	if got, want := summarize(fs), "expect [T-LD-05, FR-LD-LST-07]: result differs (and 2 more)"; got != want {
		t.Errorf("summarize = %q, want %q", got, want)
	}
	if got, want := summarize(fs[:1]), "expect [T-LD-05, FR-LD-LST-07]: result differs"; got != want {
		t.Errorf("summarize one = %q, want %q", got, want)
	}
	c1, c2 := "a", "b"
	if !sameResponse(fcp.Response{Seq: 1, Content: &c1}, fcp.Response{Seq: 2, Content: &c1}) {
		t.Error("sameResponse must ignore seq")
	}
	if sameResponse(fcp.Response{Content: &c1}, fcp.Response{Content: &c2}) {
		t.Error("sameResponse must compare content")
	}
}
