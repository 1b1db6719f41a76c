package check

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

func TestApplyPatchInvariants(t *testing.T) {
	read := func(p string) corpus.Step {
		return corpus.Step{Call: &corpus.StepCall{Tool: "read_file", Args: json.RawMessage(`{"path":"` + p + `"}`)}}
	}
	patch := func(p string) corpus.Step {
		return corpus.Step{Call: &corpus.StepCall{Tool: "apply_patch", Args: json.RawMessage(`{"patch":"LP1\nF ` + p + `\nT\nx\n.\nEND\n"}`)}}
	}
	notRead := &fcp.Error{Kind: "StaleFile", File: "a.txt", Message: "File was not read before patching"}
	tests := []struct {
		name   string
		before []corpus.Step
		err    *fcp.Error
		want   []string
	}{
		{"read, then not read", []corpus.Step{read("a.txt")}, notRead, []string{"tool_executor:FR-TOOL-PATCH-02c"}},
		{"read via ./ spelling", []corpus.Step{read("./a.txt")}, notRead, []string{"tool_executor:FR-TOOL-PATCH-02c"}},
		{"read, patched, then not read", []corpus.Step{read("a.txt"), patch("a.txt")}, notRead, []string{"tool_executor:FR-TOOL-PATCH-02c"}},
		{"never read", []corpus.Step{read("b.txt")}, notRead, nil},
		{"changed on disk after the read", []corpus.Step{read("a.txt"), {Write: &corpus.StepWrite{Path: "a.txt", Content: "y"}}}, notRead, []string{"tool_executor:FR-TOOL-PATCH-02c"}},
		{"a symlink swapped in after the read", []corpus.Step{read("a.txt"), {Symlink: &corpus.StepSymlink{Path: "a.txt", Target: "b.txt"}}}, notRead, nil},
		{"read, then a fresh conversation", []corpus.Step{read("a.txt"), {Reset: true}}, notRead, nil},
		{"a fresh conversation, then read", []corpus.Step{{Reset: true}, read("a.txt")}, notRead, []string{"tool_executor:FR-TOOL-PATCH-02c"}},
		{"a failed read", []corpus.Step{{Call: read("a.txt").Call, ExpectError: "ExecutionFailed"}}, notRead, nil},
		{"no file on the wire: the patch's paths", []corpus.Step{read("a.txt")},
			&fcp.Error{Kind: "StaleFile", Message: "File was not read before patching"}, []string{"tool_executor:FR-TOOL-PATCH-02c"}},
		{"content changed is another rule", []corpus.Step{read("a.txt")},
			&fcp.Error{Kind: "StaleFile", File: "a.txt", Message: "File content changed since last read"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{
				Case: &corpus.Case{Spec: "tool_executor", Name: "row", Op: "call", Tool: "apply_patch", IDs: []string{"FR-TOOL-PATCH-01"}, Before: tc.before},
				Resp: fcp.Response{OK: fcp.Bool(false), Error: tc.err},
				Args: map[string]any{"patch": "LP1\nF a.txt\nT\nx\n.\nEND\n"},
			}
			var got []string
			for _, f := range applyPatchInvariants(in) {
				if f.Kind != KindInvariant {
					t.Errorf("failure kind %q, want %q", f.Kind, KindInvariant)
				}
				got = append(got, f.IDs...)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("IDs %v, want %v", got, tc.want)
			}
		})
	}
}
