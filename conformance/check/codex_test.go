package check

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

func TestCodexInvariants(t *testing.T) {
	tests := []struct {
		name    string
		args    string // default {"dir_path":"$ROOT"}
		content string
		want    []string
	}{
		{name: "good", content: "Absolute path: $ROOT\na.txt\nsub/\n  b.txt\nlink@"},
		{name: "good empty dir", content: "Absolute path: $ROOT"},
		{name: "good More-than line counts the entries shown", args: `{"dir_path":"$ROOT","limit":2}`, content: "Absolute path: $ROOT\na\nb\nMore than 2 entries found"},
		{name: "good deeper indentation with depth 3", args: `{"dir_path":"$ROOT","depth":3}`, content: "Absolute path: $ROOT\na/\n  b/\n    c"},
		{name: "good 25 entries by default", content: "Absolute path: $ROOT" + repeatLine("x", 25)},

		{name: "wrong header", content: "Path: $ROOT\na", want: []string{"CX-LD-FMT-01"}},
		{name: "header names another dir", args: `{"dir_path":"$ROOT/sub"}`, content: "Absolute path: $ROOT\na", want: []string{"CX-LD-FMT-01"}},
		{name: "trailing newline", content: "Absolute path: $ROOT\na\n", want: []string{"CX-LD-FMT-03", "CX-LD-FMT-05"}},
		{name: "empty line", content: "Absolute path: $ROOT\na\n\nb", want: []string{"CX-LD-FMT-03"}},
		{name: "More-than count differs", args: `{"dir_path":"$ROOT","limit":2}`, content: "Absolute path: $ROOT\na\nb\nMore than 3 entries found", want: []string{"CX-LD-PAG-03"}},
		{name: "More-than line not last", args: `{"dir_path":"$ROOT","limit":5}`, content: "Absolute path: $ROOT\na\nMore than 1 entries found\nb", want: []string{"CX-LD-PAG-03"}},
		{name: "over the limit", args: `{"dir_path":"$ROOT","limit":1}`, content: "Absolute path: $ROOT\na\nb", want: []string{"CX-LD-PAG-01"}},
		{name: "over the default limit 25", content: "Absolute path: $ROOT" + repeatLine("x", 26), want: []string{"CX-LD-PAG-01"}},
		{name: "indented past the default depth 2", content: "Absolute path: $ROOT\na/\n  b/\n    c", want: []string{"CX-LD-FMT-02"}},
		{name: "indented with depth 1", args: `{"dir_path":"$ROOT","depth":1}`, content: "Absolute path: $ROOT\na/\n  b", want: []string{"CX-LD-FMT-02"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if args == "" {
				args = `{"dir_path":"$ROOT"}`
			}
			a, err := DecodeObject([]byte(args))
			if err != nil {
				t.Fatal(err)
			}
			in := Input{Case: &corpus.Case{Op: "call", Tool: "list_dir"}, Resp: okResp(tt.content), Args: a}
			fs := Invariants(in)
			got := failedIDs(t, fs)
			if len(tt.want) == 0 && len(got) == 0 {
				return
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("invariant IDs differ (-want +got):\n%s\ncontent: %q\nfailures:\n\t%s", d, tt.content, messagesOf(fs))
			}
		})
	}
}

func TestCodexErrorInvariants(t *testing.T) {
	tests := []struct {
		name string
		resp fcp.Response
		want []string
	}{
		{"message", errResp(fcp.Error{Kind: "BadArgs", Message: "limit must be greater than zero"}), nil},
		{"empty message", errResp(fcp.Error{Kind: "BadArgs", Message: "  "}), []string{"CX-LD-ARG-06"}},
		{"no error at all", fcp.Response{OK: fcp.Bool(false)}, nil},
	}
	for _, tt := range tests {
		fs := Invariants(Input{Case: &corpus.Case{Op: "call", Tool: "list_dir"}, Resp: tt.resp})
		got := failedIDs(t, fs)
		if len(tt.want)+len(got) > 0 && !cmp.Equal(tt.want, got) {
			t.Errorf("%s: invariant IDs %v, want %v", tt.name, got, tt.want)
		}
	}
}

func repeatLine(s string, n int) string {
	out := ""
	for i := 0; i < n; i++ {
		out += "\n" + s
	}
	return out
}
