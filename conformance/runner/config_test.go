package runner

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOverlay(t *testing.T) {
	tests := []struct{ name, base, over, want string }{
		{"empty base", ``, `{"tools":{"search_files":{"backend":"rg"}}}`, `{"tools":{"search_files":{"backend":"rg"}}}`},
		{"merge tables", `{"tools":{"search_files":{"max_results":5},"sandbox":{"allow_absolute":true}}}`, `{"tools":{"search_files":{"backend":"rg"}}}`,
			`{"tools":{"sandbox":{"allow_absolute":true},"search_files":{"backend":"rg","max_results":5}}}`},
		{"overlay wins", `{"tools":{"search_files":{"backend":"native"}}}`, `{"tools":{"search_files":{"backend":"ugrep"}}}`, `{"tools":{"search_files":{"backend":"ugrep"}}}`},
		{"non-object replaces", `{"tools":{"sandbox":{"denied_patterns":["a"]}}}`, `{"tools":{"sandbox":{"denied_patterns":["b"]}}}`, `{"tools":{"sandbox":{"denied_patterns":["b"]}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got, want any
			if err := json.Unmarshal(merge(json.RawMessage(tt.base), json.RawMessage(tt.over)), &got); err != nil {
				t.Fatal(err)
			}
			_ = json.Unmarshal([]byte(tt.want), &want)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("overlay (-want +got):\n%s", d)
			}
		})
	}
	for _, bad := range []string{`[1]`, `{"mode":"enabled"}`, `{"tools":3}`, `not json`} {
		if err := checkConfig(json.RawMessage(bad)); err == nil {
			t.Errorf("checkConfig(%s) accepted it", bad)
		}
	}
}
