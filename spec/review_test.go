package spec_test

import (
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/spec"
)

func TestReviewMarks(t *testing.T) {
	r, err := spec.ParseReview([]byte(`{"case":"s/b","srd_version":"1.1","document":"S.md","ids":["X-2"]}

{"case":"s/a","srd_version":"1.0","document":"S.md","ids":["X-1"]}
`))
	if err != nil {
		t.Fatal(err)
	}
	// A second revision marking a marked case keeps one mark: both IDs,
	// the later version.
	r.Mark(spec.ReviewMark{Case: "s/a", Version: "1.2", Document: "S.md", IDs: []string{"X-3", "X-1"}})
	r.Mark(spec.ReviewMark{Case: "t/c", Version: "", Document: "T.md", IDs: nil})
	want := `{"case":"s/a","srd_version":"1.2","document":"S.md","ids":["X-1","X-3"]}
{"case":"s/b","srd_version":"1.1","document":"S.md","ids":["X-2"]}
{"case":"t/c","srd_version":"","document":"T.md","ids":[]}
`
	if got := string(r.Format()); got != want {
		t.Fatalf("Format:\n%s\nwant:\n%s", got, want)
	}
	if got := r.Lookup("s/a").Label(); got != "unreviewed since SRD v1.2 (X-1, X-3 changed)" {
		t.Errorf("Label = %q", got)
	}
	if got := r.Lookup("t/c").Label(); !strings.HasPrefix(got, "unreviewed since an SRD revision") {
		t.Errorf("Label of an unversioned mark = %q", got)
	}
	if un := r.Clear("s/b", "s/zz"); len(un) != 1 || un[0] != "s/zz" {
		t.Errorf("Clear returned %v, want [s/zz]", un)
	}
	if r.Lookup("s/b") != nil || len(r.Marks) != 2 {
		t.Errorf("after Clear: %+v", r.Marks)
	}
	var none *spec.Review
	if none.Lookup("s/a") != nil {
		t.Error("a nil Review has a mark")
	}
}

func TestParseReviewErrors(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"not json", "case s/a\n", "review.jsonl:1:"},
		{"unknown field", `{"case":"s/a","note":"x"}`, "unknown field"},
		{"bare name", `{"case":"a","srd_version":"1","document":"S.md","ids":[]}`, "want the case's full name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := spec.ParseReview([]byte(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to say %q", err, tt.want)
			}
		})
	}
}

// The embedded marks parse.
func TestEmbeddedReview(t *testing.T) {
	if _, err := spec.EmbeddedReview(); err != nil {
		t.Fatal(err)
	}
}
