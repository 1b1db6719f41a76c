package check

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/spec"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

func readGolden(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "golden", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// unknownEntry is testdata/golden/unknown-entry.golden's content with the
// entry error message replaced by msg.
func unknownEntry(msg string) string {
	return `{"path":".","entries":[{"name":"a","path":"a","depth":1,"type":"dir","size_bytes":null,"modified_epoch_ms":0,"is_hidden":false,"error_code":null,"error":null},{"name":"b","path":"a/b","depth":2,"type":"unknown","size_bytes":null,"modified_epoch_ms":null,"is_hidden":false,"error_code":"permission_denied","error":` + msg + `}],"returned":2,"max_entries":200,"truncated":false,"truncated_reason":null}`
}

func TestGoldenRendering(t *testing.T) {
	tests := []struct {
		golden, tool string
		resp         fcp.Response
	}{
		{"ok.golden", "list_directory", okResp(ldGood)},
		{"unknown-entry.golden", "list_directory", okResp(unknownEntry(`"Permission denied (os error 13)"`))},
		{"codex.golden", "list_dir", okResp("Absolute path: $ROOT\na/\n  b")},
		// The header keeps kind and denial, drops the free-text message, and
		// does not HTML-escape.
		{"sandbox-error.golden", "list_directory", errResp(fcp.Error{Kind: "SandboxViolation", Message: "free text is not in the golden",
			Denial: &fcp.Denial{Reason: "DeniedPatternMatched", Attempted: "$ROOT/.env", Pattern: "**/<secret>&"}})},
		{"definitions.golden", "list_directory", fcp.Response{OK: fcp.Bool(true), Definitions: []fcp.Definition{{Name: "list_directory",
			Description: "List directory entries", Parameters: json.RawMessage(`{"type":"object"}`), RiskLevel: "Low"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			want := readGolden(t, tt.golden)
			got := Golden(tt.tool, tt.resp)
			if d := cmp.Diff(string(want), string(got)); d != "" {
				t.Errorf("Golden differs from testdata/golden/%s (-want +got):\n%s", tt.golden, d)
			}
			if fs := CompareGolden(tt.tool, want, tt.resp, caseIDs); len(fs) != 0 {
				t.Errorf("CompareGolden with its own golden: %s", messagesOf(fs))
			}
		})
	}
}

func TestCompareGolden(t *testing.T) {
	want := readGolden(t, "unknown-entry.golden")
	tests := []struct {
		name string
		tool string
		resp fcp.Response
		diff string // "" = matches; else a substring of the diff
	}{
		{"same bytes", "list_directory", okResp(unknownEntry(`"Permission denied (os error 13)"`)), ""},
		{"other entry error text", "list_directory", okResp(unknownEntry(`"EACCES: permission denied"`)), ""},
		{"entry error text with escapes", "list_directory", okResp(unknownEntry(`"can't \"stat\": \\ \u00e9"`)), ""},
		{"empty entry error text", "list_directory", okResp(unknownEntry(`""`)), ""},
		{"entry error null", "list_directory", okResp(unknownEntry(`null`)), `"error": null`},
		{"other name", "list_directory", okResp(strings.Replace(unknownEntry(`"Permission denied (os error 13)"`), `"name":"b"`, `"name":"c"`, 1)), `"name": "c"`},
		{"other error code", "list_directory", okResp(strings.Replace(unknownEntry(`"x"`), `"permission_denied"`, `"io_error"`, 1)), `"error_code": "io_error"`},
		{"allow_truncation differs", "list_directory", func() fcp.Response {
			r := okResp(unknownEntry(`"x"`))
			r.AllowTruncation = fcp.Bool(true)
			return r
		}(), "+{\"ok\":true,\"allow_truncation\":true}\n"},
		{"error instead of content", "list_directory", errResp(fcp.Error{Kind: "ExecutionFailed", Message: "m"}), `ExecutionFailed`},
		// Masking is for list_directory only.
		{"other tool keeps error text", "list_dir", okResp(unknownEntry(`"EACCES: permission denied"`)), `EACCES`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := CompareGolden(tt.tool, want, tt.resp, caseIDs)
			if tt.diff == "" {
				if len(fs) != 0 {
					t.Errorf("want a match, got %s\n%s", messagesOf(fs), fs[0].Diff)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("want one golden failure, got %d: %s", len(fs), messagesOf(fs))
			}
			f := fs[0]
			if f.Kind != KindGolden || !cmp.Equal(f.IDs, caseIDs) {
				t.Errorf("failure kind %q IDs %v, want %q %v", f.Kind, f.IDs, KindGolden, caseIDs)
			}
			if !strings.Contains(f.Message, "differs from the golden bytes") {
				t.Errorf("message %q does not say the golden bytes differ", f.Message)
			}
			if !diffMentions(f.Diff, tt.diff) {
				t.Errorf("diff does not mention %s:\n%s", tt.diff, f.Diff)
			}
		})
	}
}

func TestMask(t *testing.T) {
	tests := []struct{ tool, in, want string }{
		{"list_directory", `{"error":"a"}`, `{"error":"<free text>"}`},
		{"list_directory", `{"error":"a\"b"},{"error":"c"}`, `{"error":"<free text>"},{"error":"<free text>"}`},
		{"list_directory", `{"error":null,"error_code":"io_error"}`, `{"error":null,"error_code":"io_error"}`},
		// A name that spells an error field is escaped, so it is not masked.
		{"list_directory", `{"name":"x\",\"error\":\"y"}`, `{"name":"x\",\"error\":\"y"}`},
		{"list_dir", `{"error":"a"}`, `{"error":"a"}`},
	}
	for _, tt := range tests {
		if got := string(mask(tt.tool, []byte(tt.in))); got != tt.want {
			t.Errorf("mask(%s, %s) = %s, want %s", tt.tool, tt.in, got, tt.want)
		}
	}
}

func TestGoldenDiffOf(t *testing.T) {
	a := okResp(unknownEntry(`"one"`))
	if d := GoldenDiffOf("list_directory", a, okResp(unknownEntry(`"two"`))); d != "" {
		t.Errorf("GoldenDiffOf reports masked error text:\n%s", d)
	}
	d := GoldenDiffOf("list_directory", a, okResp(strings.Replace(unknownEntry(`"one"`), `"depth":2`, `"depth":3`, 1)))
	if !diffMentions(d, `"depth": 3`) {
		t.Errorf("GoldenDiffOf should show the indented line that differs, got:\n%s", d)
	}
}

// diffMentions reports whether a go-cmp diff shows s, which it quotes
// either in backquotes or as an escaped Go string.
func diffMentions(diff, s string) bool {
	return strings.Contains(diff, s) || strings.Contains(diff, strings.ReplaceAll(s, `"`, `\"`))
}

func TestGoldenNormative(t *testing.T) {
	classes := map[string]spec.Class{"I-F": spec.ClassForced, "I-A": spec.ClassAllowed, "I-C": spec.ClassConflict}
	ok, failed := okResp("{}"), errResp(fcp.Error{Kind: "BadArgs", Message: "x"})
	tests := []struct {
		name string
		c    corpus.Case
		r    fcp.Response
		want bool
	}{
		{"list_directory call", corpus.Case{Op: "call", Tool: "list_directory", Interpretations: []string{"I-F"}}, ok, true},
		{"codex call", corpus.Case{Op: "call", Tool: "list_dir"}, ok, true},
		{"an allowed reading", corpus.Case{Op: "call", Tool: "list_directory", Interpretations: []string{"I-F", "I-A"}}, ok, false},
		{"a conflict", corpus.Case{Op: "call", Tool: "list_directory", Interpretations: []string{"I-C"}}, ok, false},
		{"an error", corpus.Case{Op: "call", Tool: "list_directory"}, failed, false},
		{"a summary", corpus.Case{Op: "summary", Tool: "list_directory"}, ok, false},
		{"another tool", corpus.Case{Op: "call", Tool: "read_file"}, ok, false},
	}
	for _, tt := range tests {
		if got := GoldenNormative(&tt.c, tt.r, classes); got != tt.want {
			t.Errorf("%s: GoldenNormative = %v, want %v", tt.name, got, tt.want)
		}
	}
}
