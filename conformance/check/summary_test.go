package check

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// longPath is a path of 20 distinct 15-character components (300
// characters): a summary that shows it must be cut.
func longPath() string {
	var parts []string
	for i := range 20 {
		parts = append(parts, "segment-"+strings.Repeat(string(rune('a'+i)), 6))
	}
	return strings.Join(parts, "/")
}

func TestSummaryInvariants(t *testing.T) {
	long := longPath()
	readLong := mustJSON(map[string]any{"path": long})
	cut := func(n int, ellipsis string) string {
		s := []rune("Read " + long)
		return string(s[:n]) + ellipsis
	}
	tests := []struct {
		name    string
		args    string
		summary string
		want    []string
	}{
		{name: "short", args: `{"path":"a.txt"}`, summary: "Read a.txt"},
		{name: "cut with …", args: readLong, summary: cut(199, "…")},
		{name: "cut with ...", args: readLong, summary: cut(197, "...")},
		{name: "cut shorter, with an ellipsis", args: readLong, summary: cut(120, "…")},
		{name: "exactly 200 characters", args: `{"path":"` + strings.Repeat("x", 195) + `"}`, summary: "Read " + strings.Repeat("x", 195)},
		{name: "200 characters with combining marks count as 200", args: `{"path":"p"}`, summary: strings.Repeat("e\u0301", 200)},
		{name: "a tool's own abbreviation far from the limit", args: readLong, summary: cut(100, "")},
		{name: "a natural summary near the limit ends with its argument", args: `{"path":"` + long[:190] + `"}`, summary: "Read " + long[:190]},
		{name: "not cut", args: readLong, summary: "Read " + long, want: []string{"tool_executor:FR-APR-06"}},
		{name: "201 characters", args: `{"path":"p"}`, summary: strings.Repeat("y", 201), want: []string{"tool_executor:FR-APR-06"}},
		{name: "cut without an ellipsis", args: readLong, summary: cut(200, ""), want: []string{"tool_executor:FR-APR-06"}},
		{name: "cut inside a patch line without an ellipsis", args: mustJSON(map[string]any{"patch": "LP1\nF " + long + "\nT\nx\n.\nEND\n"}),
			summary: "Apply patch to 1 file(s): " + long[:174], want: []string{"tool_executor:FR-APR-06"}},

		{name: "API key redacted", args: `{"path":"keys/sk-live1234567890abcdef.txt"}`, summary: "Read keys/[REDACTED].txt"},
		{name: "API key masked", args: `{"path":"keys/sk-live1234567890abcdef.txt"}`, summary: "Read keys/sk-****.txt"},
		{name: "API key shown", args: `{"path":"keys/sk-live1234567890abcdef.txt"}`, summary: "Read keys/sk-live1234567890abcdef.txt", want: []string{"tool_executor:FR-APR-01"}},
		{name: "GitHub token shown", args: `{"path":"ghp_0123456789abcdefghijABCDEFGHIJ012345"}`, summary: "Read ghp_0123456789abcdefghijABCDEFGHIJ012345", want: []string{"tool_executor:FR-APR-01"}},
		{name: "AWS key in a nested argument shown", args: `{"x":{"y":["AKIAIOSFODNN7EXAMPLE"]}}`, summary: "Use AKIAIOSFODNN7EXAMPLE", want: []string{"tool_executor:FR-APR-01"}},
		{name: "password shown", args: `{"path":"db.conf?password=hunter22"}`, summary: "Read db.conf?password=hunter22", want: []string{"tool_executor:FR-APR-01"}},
		{name: "password redacted", args: `{"path":"db.conf?password=hunter22"}`, summary: "Read db.conf?password=***"},
		{name: "bearer token shown", args: `{"header":"Authorization: Bearer abcdef0123456789"}`, summary: "Send Bearer abcdef0123456789", want: []string{"tool_executor:FR-APR-01"}},
		{name: "no secret: ordinary words", args: `{"path":"tokens/sketch-notes.txt"}`, summary: "Read tokens/sketch-notes.txt"},
		{name: "empty", args: `{"path":"a.txt"}`, summary: "", want: []string{"tool_executor:FR-APR-01"}},
		{name: "white space only", args: `{"path":"a.txt"}`, summary: " \t", want: []string{"tool_executor:FR-APR-01"}},
		{name: "one word", args: `{"path":"a.txt"}`, summary: "read"},
		{name: "long and leaking", args: mustJSON(map[string]any{"path": "sk-live1234567890abcdef/" + long}), summary: "Read sk-live1234567890abcdef/" + long,
			want: []string{"tool_executor:FR-APR-01", "tool_executor:FR-APR-06"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := DecodeObject([]byte(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			s := tt.summary
			in := Input{Case: &corpus.Case{Op: fcp.OpSummary, Tool: "read_file"}, Resp: fcp.Response{OK: fcp.Bool(true), Summary: &s, RiskLevel: "Low"}, Args: a}
			fs := Invariants(in)
			got := failedIDs(t, fs)
			if len(tt.want) == 0 && len(got) == 0 {
				return
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("invariant IDs differ (-want +got):\n%s\nsummary: %q\nfailures:\n\t%s", d, tt.summary, messagesOf(fs))
			}
		})
	}
}

func TestSummaryInvariantsSkipErrors(t *testing.T) {
	in := Input{Case: &corpus.Case{Op: fcp.OpSummary, Tool: "read_file"}, Resp: errResp(fcp.Error{Kind: "BadArgs", Message: "x"}),
		Args: map[string]any{"path": "sk-live1234567890abcdef"}}
	if fs := Invariants(in); len(fs) != 0 {
		t.Errorf("an error response has no summary to check, got %s", messagesOf(fs))
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
