package mutants

import (
	"encoding/json"
	"testing"

	"github.com/spf13/afero"
)

// A rewrite that changes nothing gives back the tool's bytes.
func TestRewriteSearchRoundTrip(t *testing.T) {
	for _, out := range []string{
		`{"path":".","query":"needle","mode":"exact","case":"smart","matches":[{"path":"a.txt","line":1,"column":7,"match_text":"needle","line_text":"alpha needle <&> \u0001","before":[],"after":[],"score":null}],"returned":1,"max_results":200,"truncated":false,"truncated_reason":null,"stats":{"files_scanned":3,"files_matched":1,"matches_total":1,"elapsed_ms":0},"errors":[{"path":"x","error":"permission denied"}]}`,
		`{"path":"s","query":"q","mode":"fuzzy","case":"sensitive","matches":[],"returned":0,"max_results":1,"truncated":true,"truncated_reason":"max_output_bytes","stats":{"files_scanned":0,"files_matched":0,"matches_total":1,"elapsed_ms":12},"errors":[]}`,
		`not json`,
	} {
		if got := rewriteSearch(func(*sfResult) {})(out); got != out {
			t.Errorf("round trip changed the result:\n got %s\nwant %s", got, out)
		}
	}
}

// Names that tie after lossy conversion are told apart by raw byte order.
func TestRawPathOf(t *testing.T) {
	afs := afero.NewMemMapFs()
	for _, p := range []string{"/r/n-\xff.txt", "/r/n-\xfe.txt", "/r/d-\xe9/in.txt", "/r/ok.txt"} {
		if err := afero.WriteFile(afs, p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		lossy string
		nth   int
		want  string
	}{
		{"ok.txt", 0, "ok.txt"},
		{"n-\uFFFD.txt", 0, "n-\xfe.txt"},
		{"n-\uFFFD.txt", 1, "n-\xff.txt"},
		{"n-\uFFFD.txt", 2, "n-\xfe.txt"},
		{"d-\uFFFD/in.txt", 0, "d-\xe9/in.txt"},
		{"gone-\uFFFD", 0, "gone-\uFFFD"},
	} {
		if got := rawPathOf(afs, "/r", tc.lossy, tc.nth); got != tc.want {
			t.Errorf("rawPathOf(%q, %d) = %q, want %q", tc.lossy, tc.nth, got, tc.want)
		}
	}
}

func TestWithRawPath(t *testing.T) {
	entry := json.RawMessage([]byte(`{"path":"d-` + "\uFFFD" + `/\"q\".txt","line":1}`))
	got := string(withRawPath(entry, "d-\uFFFD/\"q\".txt", "d-\xe9/\"q\".txt"))
	if want := `{"path":"d-` + "\xe9" + `/\"q\".txt","line":1}`; got != want {
		t.Errorf("withRawPath = %q, want %q", got, want)
	}
}
