package report_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/forge-conform/forge-conform/conformance/report"
	"github.com/forge-conform/forge-conform/spec"
	"github.com/forge-conform/forge-conform/spec/anchor"
	"github.com/forge-conform/forge-conform/spec/quote"
)

// sampleSRD is an SRD excerpt of our own wording for sampleRun's IDs.
const sampleSRD = `# list_directory (sample for the report tests)

### 3.4 Traversal

* **FR-LD-LST-07:** Traversal stops once max_entries entries are listed (sample wording).

## 6. Tests

| ID | Scenario |
| --- | --- |
| T-LD-05 | A directory larger than max_entries is truncated (sample wording) |
`

// sampleQuotes quotes sampleRun's IDs: T-LD-05 from the sample SRD,
// FR-LD-LST-07 from it too but out of date (its fingerprint differs), and
// CX-LD-FMT-02 by summary (its document is not given).
func sampleQuotes() *quote.Book {
	doc := anchor.Parse(sampleSRD)
	as := doc.Propose("LIST_DIRECTORY_SRD.md", []string{"T-LD-05", "FR-LD-LST-07"})
	stale := as["FR-LD-LST-07"]
	stale.Fingerprint = "sha256:0000000000000000"
	req := func(id, summary string, a anchor.Anchor) spec.Requirement {
		return spec.Requirement{ID: id, Level: "MUST", Summary: summary, Testable: true, Origin: "srd", Anchors: []anchor.Anchor{a}}
	}
	set := &spec.Set{Catalogs: map[string]*spec.Catalog{
		"list_directory": {Spec: "list_directory", Document: "LIST_DIRECTORY_SRD.md", Requirements: []spec.Requirement{
			req("T-LD-05", "max_entries truncates.", as["T-LD-05"]),
			req("FR-LD-LST-07", "Stop at max_entries.", stale)}},
		"codex_list_dir": {Spec: "codex_list_dir", Document: "CODEX_LIST_DIR.md", Requirements: []spec.Requirement{
			{ID: "CX-LD-FMT-02", Level: "SHOULD", Summary: "Indentation.", Testable: true, Origin: "derived",
				Anchors: []anchor.Anchor{{Document: "CODEX_LIST_DIR.md", Section: "3.3", By: anchor.BySentence, Sentence: 2, Fingerprint: "sha256:0000000000000000"}}}}},
	}}
	b, err := quote.New(set, fstest.MapFS{"LIST_DIRECTORY_SRD.md": {Data: []byte(sampleSRD)}})
	if err != nil {
		panic(err)
	}
	return b
}

func TestTextShowsTheSRDSentence(t *testing.T) {
	var buf bytes.Buffer
	report.Text(&buf, sampleRun(), report.TextOptions{})
	for _, want := range []string{
		"  SRD: T-LD-05 (LIST_DIRECTORY_SRD.md §6): | T-LD-05 | A directory larger than max_entries is truncated (sample wording) |\n",
		"  SRD: FR-LD-LST-07 (LIST_DIRECTORY_SRD.md §3.4, changed since the catalog was written: the catalog is out of date): **FR-LD-LST-07:** Traversal stops",
		"  summary: CX-LD-FMT-02 (CODEX_LIST_DIR.md §3.3 sentence 2; CODEX_LIST_DIR.md not among the SRDs given): Indentation.\n",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, buf.String())
		}
	}

	// Without the SRDs: the summary and where the sentence is.
	run := sampleRun()
	set := &spec.Set{Catalogs: map[string]*spec.Catalog{"list_directory": {Spec: "list_directory", Document: "LIST_DIRECTORY_SRD.md",
		Requirements: []spec.Requirement{{ID: "T-LD-05", Summary: "max_entries truncates.", Anchors: []anchor.Anchor{{Document: "LIST_DIRECTORY_SRD.md", Section: "6", By: anchor.ByID}}}}}}}
	b, err := quote.New(set, nil)
	if err != nil {
		t.Fatal(err)
	}
	run.Quotes = b
	buf.Reset()
	report.Text(&buf, run, report.TextOptions{})
	if want := "  summary: T-LD-05 (LIST_DIRECTORY_SRD.md §6; no SRDs given; --srd-dir DIR quotes them): max_entries truncates.\n"; !strings.Contains(buf.String(), want) {
		t.Errorf("the report without SRDs lacks %q:\n%s", want, buf.String())
	}

	// A run without quotes (a library caller) shows none.
	run.Quotes = nil
	buf.Reset()
	report.Text(&buf, run, report.TextOptions{})
	if strings.Contains(buf.String(), "SRD:") || strings.Contains(buf.String(), "summary:") {
		t.Errorf("a run without quotes shows some:\n%s", buf.String())
	}
}

func TestJSONCarriesTheSRDSentence(t *testing.T) {
	rep := report.BuildJSON(sampleRun())
	got := rep.Cases[1].Failures[0].Requirements
	want := []report.JSONRequirement{
		{ID: "T-LD-05", Summary: "max_entries truncates.", Sentences: []report.JSONSentence{{Where: "LIST_DIRECTORY_SRD.md §6", Document: "LIST_DIRECTORY_SRD.md", Section: "6",
			Text: "| T-LD-05 | A directory larger than max_entries is truncated (sample wording) |"}}},
		{ID: "FR-LD-LST-07", Summary: "Stop at max_entries.", Sentences: []report.JSONSentence{{Where: "LIST_DIRECTORY_SRD.md §3.4", Document: "LIST_DIRECTORY_SRD.md", Section: "3.4",
			Text: "**FR-LD-LST-07:** Traversal stops once max_entries entries are listed (sample wording).", Stale: true}}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("requirements of the failure differ (-want +got):\n%s", d)
	}
	raw, _ := json.Marshal(rep.Cases[len(rep.Cases)-1].Failures[0].Requirements)
	if w := `[{"id":"CX-LD-FMT-02","summary":"Indentation.","sentences":[{"where":"CODEX_LIST_DIR.md §3.3 sentence 2","document":"CODEX_LIST_DIR.md","section":"3.3","missing":"CODEX_LIST_DIR.md not among the SRDs given"}]}]`; string(raw) != w {
		t.Errorf("requirements without the document = %s, want %s", raw, w)
	}
}

func TestJUnitAndHTMLCarryTheSRDSentence(t *testing.T) {
	var junit, html bytes.Buffer
	if err := report.JUnit(&junit, sampleRun()); err != nil {
		t.Fatal(err)
	}
	if err := report.RunHTML(&html, sampleRun(), ""); err != nil {
		t.Fatal(err)
	}
	const sentence = "SRD: T-LD-05 (LIST_DIRECTORY_SRD.md §6): | T-LD-05 | A directory larger than max_entries is truncated (sample wording) |"
	var doc junitDoc
	if err := xml.Unmarshal(junit.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if body := doc.Suites[0].Cases[1].Failure; body == nil || !strings.Contains(body.Body, "\n  "+sentence+"\n") {
		t.Errorf("the JUnit failure body lacks the sentence:\n%+v", body)
	}
	if !strings.Contains(html.String(), `<p class="says">`+sentence+`</p>`) {
		t.Errorf("the HTML page lacks the sentence")
	}
}
