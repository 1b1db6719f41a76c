package fcp_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/impl/toolerr"
	"github.com/forge-conform/forge-conform/spec/fcp"
	"github.com/forge-conform/forge-conform/spec/fcp/fcpschema"
)

func newValidator(t testing.TB) *fcpschema.Validator {
	t.Helper()
	v, err := fcpschema.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// readLines returns the non-comment, non-empty lines of a testdata file.
func readLines(t *testing.T, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		out = append(out, line)
	}
	return out
}

func (name testFile) validate(v *fcpschema.Validator, raw []byte) error {
	if strings.HasPrefix(string(name), "request") {
		return v.ValidateRequest(raw)
	}
	return v.ValidateResponse(string(name), raw)
}

type testFile string

func TestValidMessages(t *testing.T) {
	v := newValidator(t)
	files, _ := filepath.Glob("testdata/valid/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no testdata/valid/*.jsonl")
	}
	for _, f := range files {
		op := testFile(strings.TrimSuffix(filepath.Base(f), ".jsonl"))
		for i, line := range readLines(t, f) {
			if err := op.validate(v, line); err != nil {
				t.Errorf("%s line %d: want valid, got %v\n%s", f, i+1, err, line)
			}
		}
	}
}

func TestInvalidMessages(t *testing.T) {
	v := newValidator(t)
	files, _ := filepath.Glob("testdata/invalid/*.txt")
	if len(files) == 0 {
		t.Fatal("no testdata/invalid/*.txt")
	}
	for _, f := range files {
		op := testFile(strings.TrimSuffix(filepath.Base(f), ".txt"))
		for i, line := range readLines(t, f) {
			want, raw, ok := bytes.Cut(line, []byte("\t"))
			if !ok {
				t.Fatalf("%s line %d: want WANT<TAB>MESSAGE", f, i+1)
			}
			err := op.validate(v, raw)
			switch {
			case err == nil:
				t.Errorf("%s line %d: want an error containing %q, got none\n%s", f, i+1, want, raw)
			case !strings.Contains(err.Error(), string(want)):
				t.Errorf("%s line %d: want an error containing %q, got\n%v", f, i+1, want, err)
			case len(err.Error()) > 400:
				t.Errorf("%s line %d: error is not concise (%d bytes): %v", f, i+1, len(err.Error()), err)
			}
		}
	}
}

// TestEnumsMatchToolerr keeps the schemas' kind and reason enums equal to
// the ToolError and DenialReason variants.
func TestEnumsMatchToolerr(t *testing.T) {
	data, err := os.ReadFile("schema/common.json")
	if err != nil {
		t.Fatal(err)
	}
	var common struct {
		Defs map[string]struct {
			Enum []string `json:"enum"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(data, &common); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, k := range toolerr.Kinds() {
		kinds = append(kinds, string(k))
	}
	if got := common.Defs["kind"].Enum; !slices.Equal(got, kinds) {
		t.Errorf("common.json kind enum = %q, want toolerr.Kinds() = %q", got, kinds)
	}
	reasons := []string{string(toolerr.Denylisted), string(toolerr.Disabled), string(toolerr.PathOutsideSandbox),
		string(toolerr.DeniedPatternMatched), string(toolerr.LimitsExceeded)}
	if got := common.Defs["reason"].Enum; !slices.Equal(got, reasons) {
		t.Errorf("common.json reason enum = %q, want %q", got, reasons)
	}
}

// TestMarshalledTypesValidate checks that the Go types of this package
// produce schema-valid messages.
func TestMarshalledTypesValidate(t *testing.T) {
	v := newValidator(t)
	content := "<a & b>\n"
	mo := int64(10)
	tests := []struct {
		op  string // "" = request
		msg any
	}{
		{"", fcp.Request{FCP: 1, Op: fcp.OpHello}},
		{"", fcp.Request{FCP: 1, Seq: 3, Op: fcp.OpCall, Case: "c",
			Call:   &fcp.Call{ID: "1", Name: "list_directory", Args: json.RawMessage(`{"path":"."}`)},
			Ctx:    &fcp.Ctx{WorkingDir: "/r", MaxOutputBytes: &mo},
			Config: json.RawMessage(`{"tools":{}}`)}},
		{fcp.OpHello, fcp.Response{FCP: 1, Implementation: &fcp.Implementation{Name: "n", Version: "1", Language: "go"},
			Tools: []string{"list_directory"}, Ops: []string{"hello", "call"}}},
		{fcp.OpCall, fcp.Response{Seq: 1, OK: fcp.Bool(true), Content: &content, AllowTruncation: fcp.Bool(true)}},
		{fcp.OpCall, fcp.Response{Seq: 1, OK: fcp.Bool(false), Error: &fcp.Error{Kind: "ExecutionFailed", Message: "m", Tool: "t"}}},
		{fcp.OpCall, fcp.Response{Seq: 1, OK: fcp.Bool(false), Error: &fcp.Error{Kind: "SandboxViolation", Message: "m",
			Denial: &fcp.Denial{Reason: "PathOutsideSandbox", Attempted: "/x", Resolved: "/x"}}}},
		{fcp.OpDefinitions, fcp.Response{Seq: 1, OK: fcp.Bool(true), Definitions: []fcp.Definition{{
			Name: "t", Parameters: json.RawMessage(`{"type":"object"}`), RiskLevel: "Low"}}}},
		{fcp.OpReset, fcp.Response{Seq: 1, OK: fcp.Bool(true)}},
	}
	for i, tt := range tests {
		raw, err := json.Marshal(tt.msg)
		if err != nil {
			t.Fatal(err)
		}
		if tt.op == "" {
			err = v.ValidateRequest(raw)
		} else {
			err = v.ValidateResponse(tt.op, raw)
		}
		if err != nil {
			t.Errorf("#%d %s: %v\n%s", i, tt.op, err, raw)
		}
	}
}

func TestSchemaFS(t *testing.T) {
	for _, name := range []string{fcp.SchemaRequest, fcp.SchemaHelloResponse, fcp.SchemaCallResponse,
		fcp.SchemaDefinitionsResponse, fcp.SchemaOKResponse, fcp.SchemaErrorResponse} {
		data, err := os.ReadFile(filepath.Join("schema", name))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			ID string `json:"$id"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if doc.ID != fcp.SchemaBase+name {
			t.Errorf("%s: $id = %q, want %q", name, doc.ID, fcp.SchemaBase+name)
		}
		if f, err := fcp.SchemaFS().Open(name); err != nil {
			t.Errorf("SchemaFS: %v", err)
		} else {
			f.Close()
		}
	}
}

func BenchmarkValidateCallResponse(b *testing.B) {
	v := newValidator(b)
	raw := []byte(`{"seq":7,"ok":true,"content":"{\"path\":\".\",\"entries\":[{\"name\":\"a\"}]}","allow_truncation":false}`)
	for b.Loop() {
		if err := v.ValidateResponse(fcp.OpCall, raw); err != nil {
			b.Fatal(err)
		}
	}
}
