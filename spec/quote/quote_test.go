package quote_test

import (
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/forge-conform/forge-conform/spec"
	"github.com/forge-conform/forge-conform/spec/anchor"
	"github.com/forge-conform/forge-conform/spec/quote"
)

// doc is an SRD of our own wording.
const doc = `# Widget

## 1. Rules

* **FR-W-01:** The widget MUST spin.
* **FR-W-02:** The widget MUST stop.

Widgets are blue. They stay blue.
`

func set(t *testing.T) *spec.Set {
	t.Helper()
	d := anchor.Parse(doc)
	p := d.Propose("W.md", []string{"FR-W-01", "FR-W-02"})
	stale := p["FR-W-02"]
	stale.Fingerprint = "sha256:0000000000000000"
	blue, err := d.At("W.md", "1", 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	gone := anchor.Anchor{Document: "W.md", Section: "7", By: anchor.BySentence, Sentence: 1}
	other := anchor.Anchor{Document: "OTHER.md", Section: "1", By: anchor.ByID}
	r := func(id string, as ...anchor.Anchor) spec.Requirement {
		return spec.Requirement{ID: id, Summary: "summary of " + id, Anchors: as}
	}
	return &spec.Set{Catalogs: map[string]*spec.Catalog{"w": {Spec: "w", Document: "W.md", Requirements: []spec.Requirement{
		r("FR-W-01", p["FR-W-01"]), r("FR-W-02", stale), r("W-BLUE-01", blue, gone), r("W-OTHER-01", other)}}}}
}

func TestQuote(t *testing.T) {
	b, err := quote.New(set(t), fstest.MapFS{"W.md": {Data: []byte(doc)}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id   string
		want []quote.Sentence
	}{
		{"FR-W-01", []quote.Sentence{{Where: "W.md §1", Document: "W.md", Section: "1", Text: "**FR-W-01:** The widget MUST spin."}}},
		{"FR-W-02", []quote.Sentence{{Where: "W.md §1", Document: "W.md", Section: "1", Text: "**FR-W-02:** The widget MUST stop.", Stale: true}}},
		{"W-BLUE-01", []quote.Sentence{
			{Where: "W.md §1 sentences 3-4", Document: "W.md", Section: "1", Text: "Widgets are blue. They stay blue."},
			{Where: "W.md §7 sentence 1", Document: "W.md", Section: "7", Missing: "no section §7 (the catalog is out of date)"}}},
		{"W-OTHER-01", []quote.Sentence{{Where: "OTHER.md §1", Document: "OTHER.md", Section: "1", Missing: "OTHER.md not among the SRDs given"}}},
	}
	for _, tt := range tests {
		q, ok := b.Quote(tt.id)
		if !ok || q.Summary != "summary of "+tt.id {
			t.Errorf("Quote(%s) = %+v, %v", tt.id, q, ok)
		}
		if d := cmp.Diff(tt.want, q.Sentences); d != "" {
			t.Errorf("Quote(%s) sentences differ (-want +got):\n%s", tt.id, d)
		}
	}
	if _, ok := b.Quote("FR-NONE-01"); ok {
		t.Error("Quote finds an ID no catalog has")
	}
	if !b.Given() {
		t.Error("Given() = false with SRDs")
	}

	none, err := quote.New(set(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := none.Quote("FR-W-01")
	if none.Given() || q.HasText() || q.Sentences[0].Missing != "no SRDs given" || q.Where() != "W.md §1" {
		t.Errorf("without SRDs: given %v, quote %+v", none.Given(), q)
	}
	var nilBook *quote.Book
	if _, ok := nilBook.Quote("FR-W-01"); ok || nilBook.Given() {
		t.Error("a nil book quotes")
	}
}
