package reference_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/spec/fcp"
	"github.com/forge-conform/forge-conform/spec/fcp/fcpschema"
)

// root makes a small tree and returns its canonical absolute path.
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"sub", ".hidden"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// allTools are the reference's tools, sorted by name.
func allTools() []string {
	return []string{"apply_patch", "list_dir", "list_directory", "read_file", "run_command", "search_files", "write_file"}
}

func newRef(t *testing.T) *reference.Reference {
	t.Helper()
	r, err := reference.New(reference.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func callReq(seq int64, name, args, wd, config string) fcp.Request {
	req := fcp.Request{FCP: 1, Seq: seq, Op: fcp.OpCall,
		Call: &fcp.Call{ID: "call_1", Name: name, Args: json.RawMessage(args)},
		Ctx:  &fcp.Ctx{WorkingDir: wd}}
	if config != "" {
		req.Config = json.RawMessage(config)
	}
	return req
}

// check validates resp against the schema of op and returns it as JSON.
func check(t *testing.T, v *fcpschema.Validator, op string, resp fcp.Response) string {
	t.Helper()
	raw, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.ValidateResponse(op, raw); err != nil {
		t.Errorf("response is not schema-valid: %v\n%s", err, raw)
	}
	return string(raw)
}

func TestHelloAndDefinitions(t *testing.T) {
	v, err := fcpschema.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	r := newRef(t)
	h := r.Hello()
	check(t, v, fcp.OpHello, h)
	if h.Implementation.Name != reference.Name || h.FCP != 1 ||
		!slices.Equal(h.Tools, allTools()) || !slices.Contains(h.Ops, fcp.OpDefinitions) {
		t.Errorf("hello = %+v", h)
	}
	resp := r.Handle(context.Background(), fcp.Request{FCP: 1, Seq: 4, Op: fcp.OpHello})
	if resp.Seq != 4 || resp.FCP != 1 {
		t.Errorf("hello via Handle = %+v", resp)
	}

	resp = r.Handle(context.Background(), fcp.Request{FCP: 1, Seq: 5, Op: fcp.OpDefinitions})
	check(t, v, fcp.OpDefinitions, resp)
	var names []string
	risk := map[string]string{}
	for _, d := range resp.Definitions {
		names = append(names, d.Name)
		risk[d.Name] = d.RiskLevel
	}
	if resp.Seq != 5 || !slices.Equal(names, allTools()) {
		t.Errorf("definitions name %q, want %q sorted", names, allTools())
	}
	want := map[string]string{"apply_patch": "Medium", "list_dir": "Low", "list_directory": "Low", "read_file": "Low", "run_command": "High", "search_files": "Low", "write_file": "Medium"}
	for name, level := range want {
		if risk[name] != level {
			t.Errorf("%s risk level = %q, want %q", name, risk[name], level)
		}
	}
}

func TestHandle(t *testing.T) {
	v, err := fcpschema.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	dir := root(t)
	r := newRef(t)
	tests := []struct {
		name string
		req  fcp.Request
		want []string // substrings of the response JSON
	}{
		{"reset", fcp.Request{FCP: 1, Seq: 1, Op: fcp.OpReset}, []string{`{"seq":1,"ok":true}`}},
		{"bye", fcp.Request{FCP: 1, Seq: 2, Op: fcp.OpBye}, []string{`{"seq":2,"ok":true}`}},
		{"unknown op", fcp.Request{FCP: 1, Seq: 3, Op: "batch"},
			[]string{`"seq":3,"ok":false`, `"kind":"BadArgs"`, `unknown op \"batch\"`}},
		{"list_directory", callReq(4, "list_directory", `{"path":"."}`, dir, ""),
			[]string{`"seq":4,"ok":true`, `"allow_truncation":false`, `a.txt`, `sub`}},
		{"hidden shown when asked", callReq(5, "list_directory", `{"path":".","include_hidden":true}`, dir, ""),
			[]string{`"ok":true`, `.hidden`}},
		{"list_dir", callReq(6, "list_dir", `{"dir_path":"`+dir+`"}`, dir, ""),
			[]string{`"ok":true`, `"content":"Absolute path: ` + dir, `"allow_truncation":true`}},
		{"unknown tool", callReq(7, "frobnicate", `{}`, dir, ""),
			[]string{`"kind":"UnknownTool"`, `"tool":"frobnicate"`}},
		{"schema-invalid args", callReq(8, "list_directory", `{"path":1}`, dir, ""),
			[]string{`"kind":"BadArgs"`, `at /path`}},
		{"args not an object", callReq(9, "list_directory", `[]`, dir, ""),
			[]string{`"kind":"BadArgs"`, `must be a JSON object`}},
		{"no call object", fcp.Request{FCP: 1, Seq: 10, Op: fcp.OpCall, Ctx: &fcp.Ctx{WorkingDir: dir}},
			[]string{`"kind":"BadArgs"`, `no \"call\" object`}},
		{"relative working_dir", callReq(11, "list_directory", `{"path":"."}`, "rel/dir", ""),
			[]string{`"kind":"BadArgs"`, `ctx.working_dir must be an absolute path, got \"rel/dir\"`}},
		{"no ctx", fcp.Request{FCP: 1, Seq: 12, Op: fcp.OpCall, Call: &fcp.Call{Name: "list_directory", Args: json.RawMessage(`{"path":"."}`)}},
			[]string{`"kind":"BadArgs"`, `ctx.working_dir`}},
		{"outside the sandbox", callReq(13, "list_directory", `{"path":"../x"}`, dir, ""),
			[]string{`"kind":"SandboxViolation"`, `"denial":{"reason":"PathOutsideSandbox"`}},
		{"config not an object", callReq(14, "list_directory", `{"path":"."}`, dir, `[1]`),
			[]string{`"kind":"ExecutionFailed"`, `invalid config`}},
		{"sandbox table of the wrong type", callReq(15, "list_directory", `{"path":"."}`, dir, `{"tools":{"sandbox":{"allowed_roots":"."}}}`),
			[]string{`"kind":"ExecutionFailed"`, `invalid config`, `tools.sandbox`}},
		{"allowed root missing", callReq(16, "list_directory", `{"path":"."}`, dir, `{"tools":{"sandbox":{"allowed_roots":["nope"]}}}`),
			[]string{`"kind":"ExecutionFailed"`, `invalid [tools.sandbox] config`, `nope`}},
		{"sandbox config applies", callReq(17, "list_directory", `{"path":"sub"}`, dir, `{"tools":{"sandbox":{"denied_patterns":["**/sub"]}}}`),
			[]string{`"kind":"SandboxViolation"`, `"reason":"DeniedPatternMatched"`, `"pattern":"**/sub"`}},
		{"budget from ctx", func() fcp.Request {
			req := callReq(18, "list_directory", `{"path":"."}`, dir, "")
			one := int64(1)
			req.Ctx.MaxOutputBytes = &one
			return req
		}(), []string{`"kind":"ExecutionFailed"`, `output budget too small`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := r.Handle(context.Background(), tt.req)
			got := check(t, v, tt.req.Op, resp)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("response lacks %s:\n%s", w, got)
				}
			}
		})
	}
}

func TestHandleFSInjectsFaults(t *testing.T) {
	dir := root(t)
	r := newRef(t)
	faulty := fsys.NewFaultFs(fsys.OS(), []fsys.Fault{{Op: fsys.OpReaddir, Path: dir, Err: syscall.EIO}})
	req := callReq(1, "list_directory", `{"path":"."}`, dir, "")

	resp := r.HandleFS(context.Background(), req, faulty)
	if resp.OK == nil || *resp.OK || resp.Error.Kind != "ExecutionFailed" {
		t.Errorf("with a readdir fault: %+v %+v", resp, resp.Error)
	}
	// The reference's own filesystem is unaffected, and nil means it.
	for _, fs := range []afero.Fs{nil, fsys.OS()} {
		resp = r.HandleFS(context.Background(), req, fs)
		if resp.OK == nil || !*resp.OK {
			t.Errorf("without the fault: %+v %+v", resp, resp.Error)
		}
	}
	// Options.FS is the default filesystem.
	r2, err := reference.New(reference.Options{FS: faulty})
	if err != nil {
		t.Fatal(err)
	}
	if resp := r2.Handle(context.Background(), req); resp.OK == nil || *resp.OK {
		t.Errorf("Options.FS not used: %+v", resp)
	}
}

func TestWireError(t *testing.T) {
	w := reference.WireError(os.ErrNotExist)
	if w.Kind != "ExecutionFailed" || w.Message != "file does not exist" {
		t.Errorf("plain error: %+v", w)
	}
}
