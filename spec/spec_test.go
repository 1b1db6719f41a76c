package spec_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/forge-conform/forge-conform/internal/srddir"
	"github.com/forge-conform/forge-conform/spec"
)

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestExtractIDs(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"sample SRD", readTestdata(t, "sample_srd.md"), []string{
			"A-02", "C-01", "CFG-LD-01", "CFG-LD-05", "FR-LD-DEF", "FR-LD-VAL-06", "FR-LD-VAL-06a", "IT-E2E-01", "NFR-LD-PERF-01", "T-LD-14"}},
		{"lettered suffix", "see FR-LD-OUT-02b.", []string{"FR-LD-OUT-02b"}},
		{"NFR is not read as FR", "NFR-LD-SEC-03", []string{"NFR-LD-SEC-03"}},
		{"ID in backquotes and parentheses", "(`T-LD-05`)", []string{"T-LD-05"}},
		{"D rows", "D-01 and D-12", []string{"D-01", "D-12"}},
		{"RFC and encodings", "RFC 2119, RFC 8174, UTF-8, UTF-16, WTF-8", []string{}},
		{"lower case", "t-ld-01 fr-ld-val-01", []string{}},
		{"one-digit and three-digit constraints", "C-1 C-001 A-1234", []string{}},
		{"empty", "", []string{}},
	}
	for _, tt := range tests {
		got := spec.ExtractIDs(tt.text)
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s: ExtractIDs differs (-want +got):\n%s", tt.name, d)
		}
	}
}

// smallSet is a hand-built Set: list_directory (document LIST_DIRECTORY_SRD.md)
// and write_file (WRITE_FILE_SRD.md).
func smallSet() *spec.Set {
	r := func(id, origin string) spec.Requirement {
		return spec.Requirement{ID: id, Level: "MUST", Summary: "s", Testable: true, Origin: origin}
	}
	return &spec.Set{Catalogs: map[string]*spec.Catalog{
		"list_directory": {Spec: "list_directory", Document: "LIST_DIRECTORY_SRD.md", Tools: []string{"list_directory"}, Requirements: []spec.Requirement{
			r("FR-LD-DEF-01", "srd"), r("FR-LD-DEF-02", "srd"), r("FR-LD-GONE-01", "srd"), r("LD-ENT-01", "derived"), r("T-LD-01", "derived")}},
		"write_file": {Spec: "write_file", Document: "WRITE_FILE_SRD.md", Tools: []string{"write_file", "write_file_v2"}, Requirements: []spec.Requirement{
			r("FR-WF-01", "srd")}},
	}}
}

func TestCheckDocument(t *testing.T) {
	cat := smallSet().Catalogs["list_directory"]
	tests := []struct {
		name, text     string
		missing, extra []string
	}{
		{"renamed copy", readTestdata(t, "list_directory_v2.md"), []string{"FR-LD-NEW-01"}, []string{"FR-LD-GONE-01"}},
		{"in agreement", "FR-LD-DEF-01 FR-LD-DEF-02 FR-LD-GONE-01", nil, nil},
		{"derived IDs may be printed", "FR-LD-DEF-01 FR-LD-DEF-02 FR-LD-GONE-01 T-LD-01", nil, nil},
		{"empty document", "", nil, []string{"FR-LD-DEF-01", "FR-LD-DEF-02", "FR-LD-GONE-01"}},
		{"sorted", "T-LD-99 FR-LD-DEF-01 FR-LD-DEF-02 FR-LD-GONE-01 C-02 FR-LD-AAA-01", []string{"C-02", "FR-LD-AAA-01", "T-LD-99"}, nil},
	}
	for _, tt := range tests {
		d := spec.CheckDocument(cat, tt.text)
		if d.Catalog != "list_directory" {
			t.Errorf("%s: Diff.Catalog = %q", tt.name, d.Catalog)
		}
		if diff := cmp.Diff(tt.missing, d.Missing); diff != "" {
			t.Errorf("%s: Missing differs (-want +got):\n%s", tt.name, diff)
		}
		if diff := cmp.Diff(tt.extra, d.Extra); diff != "" {
			t.Errorf("%s: Extra differs (-want +got):\n%s (derived IDs are never Extra)", tt.name, diff)
		}
		if got, want := d.Empty(), len(tt.missing)+len(tt.extra) == 0; got != want {
			t.Errorf("%s: Empty() = %v, want %v", tt.name, got, want)
		}
	}
}

func TestForDocument(t *testing.T) {
	tests := []struct {
		name, file, text string
		want             string // catalog spec; "" = nil
	}{
		{"base name", "LIST_DIRECTORY_SRD.md", "", "list_directory"},
		{"base name with directories", "docs/srds/LIST_DIRECTORY_SRD.md", "FR-WF-01", "list_directory"},
		{"base name with backslashes", `C:\docs\WRITE_FILE_SRD.md`, "", "write_file"},
		{"renamed copy by overlap", "list_directory_v2.md", readTestdata(t, "list_directory_v2.md"), "list_directory"},
		{"exactly half the IDs", "x.md", "FR-WF-01 FR-WF-99", "write_file"},
		{"less than half the IDs", "unrelated.md", readTestdata(t, "unrelated.md"), ""},
		{"no IDs", "notes.md", "nothing here", ""},
		{"base name is case-sensitive", "list_directory_srd.md", "nothing here", ""},
	}
	set := smallSet()
	for _, tt := range tests {
		got := set.ForDocument(tt.file, tt.text)
		switch {
		case tt.want == "" && got != nil:
			t.Errorf("%s: ForDocument(%q) = %s, want nil", tt.name, tt.file, got.Spec)
		case tt.want != "" && (got == nil || got.Spec != tt.want):
			t.Errorf("%s: ForDocument(%q) = %v, want %s", tt.name, tt.file, got, tt.want)
		}
	}
}

func TestSetLookups(t *testing.T) {
	set := smallSet()
	if d := cmp.Diff([]string{"list_directory", "write_file"}, set.Names()); d != "" {
		t.Errorf("Names differ (-want +got):\n%s", d)
	}
	cat := set.Catalogs["list_directory"]
	if r, ok := cat.Lookup("LD-ENT-01"); !ok || r.Origin != "derived" {
		t.Errorf("Lookup(LD-ENT-01) = %+v, %v", r, ok)
	}
	if _, ok := cat.Lookup("FR-WF-01"); ok {
		t.Error("Lookup finds an ID of another catalog")
	}
}

const goodCatalog = `{
  "spec": "x",
  "document": "X.md",
  "title": "X",
  "tools": ["x"],
  "requirements": [
    {"id": "FR-X-01", "level": "MUST", "section": "1", "summary": "does x", "testable": true, "origin": "srd",
      "anchors": [{"document": "X.md", "section": "1", "by": "id", "sentence": 2, "fingerprint": "sha256:0123456789abcdef"}]},
    {"id": "C-01", "level": "MUST", "section": "2", "summary": "anywhere", "testable": false, "verified": "build matrix", "origin": "srd"},
    {"id": "X-ENT-01", "level": "SHOULD", "section": "3", "summary": "entry", "testable": true, "origin": "derived"}
  ]
}`

func TestLoadFS(t *testing.T) {
	set, err := spec.LoadFS(fstest.MapFS{
		"catalog/x.json":     {Data: []byte(goodCatalog)},
		"INTERPRETATIONS.md": {Data: []byte("# Interpretations\n\n### I-X-01 First reading\nClass: forced.\ntext\n### I-X-02 Second reading\ntext\n## I-X-03 not a heading level we read\nClass: conflict\n### I-X-04 Third\n\nClass: declared (policies.x)\n")},
	})
	if err != nil {
		t.Fatalf("LoadFS: %v", err)
	}
	c := set.Catalogs["x"]
	if c == nil || c.Document != "X.md" || len(c.Requirements) != 3 || c.Requirements[1].Verified != "build matrix" || len(c.Requirements[0].Anchors) != 1 || c.Requirements[0].Anchors[0].Sentence != 2 {
		t.Fatalf("catalog x = %+v", c)
	}
	if d := cmp.Diff(map[string]string{"I-X-01": "First reading", "I-X-02": "Second reading", "I-X-04": "Third"}, set.Interpretations); d != "" {
		t.Errorf("Interpretations differ (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]spec.Class{"I-X-01": spec.ClassForced, "I-X-04": spec.ClassDeclared}, set.Classes); d != "" {
		t.Errorf("Classes differ (-want +got):\n%s", d)
	}
	if _, err := spec.LoadFS(fstest.MapFS{"INTERPRETATIONS.md": {Data: []byte("### I-X-01 A\nClass: guessed\n")}}); err == nil || !strings.Contains(err.Error(), `I-X-01 has class "guessed"`) {
		t.Errorf("an unknown class: error %v", err)
	}

	noInterp, err := spec.LoadFS(fstest.MapFS{"catalog/x.json": {Data: []byte(goodCatalog)}})
	if err != nil || len(noInterp.Interpretations) != 0 {
		t.Errorf("without INTERPRETATIONS.md: %v, %v", noInterp.Interpretations, err)
	}
}

func TestLoadFSErrors(t *testing.T) {
	mod := func(old, new string) string {
		if strings.Count(goodCatalog, old) != 1 {
			t.Fatalf("%q does not occur once in goodCatalog", old)
		}
		return strings.Replace(goodCatalog, old, new, 1)
	}
	tests := []struct {
		name, file, data, want string
	}{
		{"duplicate ID", "catalog/x.json", mod(`"id": "X-ENT-01"`, `"id": "FR-X-01"`), "catalog/x.json: FR-X-01 is listed twice"},
		{"missing summary", "catalog/x.json", mod(`"summary": "does x"`, `"summary": ""`), "catalog/x.json: FR-X-01 has no summary"},
		{"untestable without verified", "catalog/x.json", mod(`, "verified": "build matrix"`, ``), `catalog/x.json: C-01 is not testable but says nowhere how it is verified (set "verified")`},
		{"bad level", "catalog/x.json", mod(`"level": "SHOULD"`, `"level": "REQUIRED"`), `catalog/x.json: X-ENT-01 has level "REQUIRED" (want MUST, SHOULD, MAY or INFO)`},
		{"missing level", "catalog/x.json", mod(`"level": "SHOULD", `, ``), `catalog/x.json: X-ENT-01 has level ""`},
		{"bad origin", "catalog/x.json", mod(`"origin": "derived"`, `"origin": "guessed"`), `catalog/x.json: X-ENT-01 has origin "guessed" (want srd or derived)`},
		{"spec does not match the file name", "catalog/y.json", goodCatalog, `catalog/y.json: spec "x" must match the file name "y"`},
		{"unknown field", "catalog/x.json", mod(`"title"`, `"titel": "", "title"`), `catalog/x.json: json: unknown field "titel"`},
		{"unknown anchor field", "catalog/x.json", mod(`"by": "id"`, `"by": "id", "line": 3`), `catalog/x.json: json: unknown field "line"`},
		{"bad anchor kind", "catalog/x.json", mod(`"by": "id"`, `"by": "line"`), `catalog/x.json: FR-X-01 has an anchor by "line" (want id or sentence)`},
		{"anchor without section", "catalog/x.json", mod(`"section": "1", "by"`, `"section": "", "by"`), `catalog/x.json: FR-X-01 has an anchor without document or section`},
		{"invalid JSON", "catalog/x.json", `{"spec": `, "catalog/x.json: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := spec.LoadFS(fstest.MapFS{
				tt.file:          {Data: []byte(tt.data)},
				"catalog/z.json": {Data: []byte(strings.Replace(goodCatalog, `"spec": "x"`, `"spec": "z"`, 1))},
			})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("LoadFS error = %v, want it to contain %q", err, tt.want)
			}
			if set == nil || set.Catalogs["z"] == nil {
				t.Errorf("LoadFS must still load the good catalog z next to a bad one")
			}
			if len(set.Catalogs) != 1 {
				t.Errorf("LoadFS kept the bad catalog: %v", set.Names())
			}
		})
	}
}

func TestLoadFSReportsEveryProblem(t *testing.T) {
	bad := strings.Replace(strings.Replace(goodCatalog, `"summary": "does x"`, `"summary": ""`, 1), `"level": "SHOULD"`, `"level": "MAYBE"`, 1)
	_, err := spec.LoadFS(fstest.MapFS{"catalog/x.json": {Data: []byte(bad)}, "catalog/w.json": {Data: []byte(goodCatalog)}})
	for _, want := range []string{"FR-X-01 has no summary", `X-ENT-01 has level "MAYBE"`, `catalog/w.json: spec "x" must match`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("LoadFS error = %v, want it to contain %q", err, want)
		}
	}
}

func TestEmbeddedCatalogs(t *testing.T) {
	set, err := spec.Load()
	if err != nil {
		t.Fatalf("the embedded catalogs do not load: %v", err)
	}
	for _, name := range []string{"list_directory", "codex_list_dir"} {
		if set.Catalogs[name] == nil {
			t.Errorf("no embedded catalog %q (have %v)", name, set.Names())
		}
	}
	for spec, tool := range map[string]string{"list_directory": "list_directory", "codex_list_dir": "list_dir"} {
		if c := set.Catalogs[spec]; c == nil || !slices.Contains(c.Tools, tool) {
			t.Errorf("catalog %s does not list tool %s", spec, tool)
		}
	}
	for _, id := range []string{"I-LD-03", "I-LD-04", "I-LD-11"} {
		if set.Interpretations[id] == "" {
			t.Errorf("INTERPRETATIONS.md defines no %s", id)
		}
	}
}

// Every interpretation states its class (the rule at the top of
// INTERPRETATIONS.md), so that every case's reliance on it is judged.
func TestEveryInterpretationHasAClass(t *testing.T) {
	set, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	for id := range set.Interpretations {
		if set.Classes[id] == "" {
			t.Errorf("%s has no \"Class: forced|allowed|declared|conflict\" line in INTERPRETATIONS.md", id)
		}
	}
}

// The list_directory catalog holds every ID the SRD prints and nothing the
// SRD lacks; the same holds for every catalog whose document is present.
func TestEmbeddedCatalogsMatchTheSRDs(t *testing.T) {
	set, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	seeds := srddir.Require(t)
	text, err := os.ReadFile(filepath.Join(seeds, "LIST_DIRECTORY_SRD.md"))
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("%s/LIST_DIRECTORY_SRD.md not found: set %s to the directory holding the SRD .md files", seeds, srddir.Env)
	}
	if err != nil {
		t.Fatal(err)
	}
	ld := set.Catalogs["list_directory"]
	ids := spec.ExtractIDs(string(text))
	for _, want := range []string{"FR-LD-VAL-06a", "C-01", "T-LD-14", "NFR-LD-PERF-01", "CFG-LD-05", "A-04", "FR-LD-OUT-02b"} {
		if _, ok := ld.Lookup(want); !ok {
			t.Errorf("the catalog lacks %s", want)
		}
		if !contains(ids, want) {
			t.Errorf("ExtractIDs does not find %s in the SRD", want)
		}
	}
	for _, id := range ids {
		if _, ok := ld.Lookup(id); !ok {
			t.Errorf("the SRD names %s but the list_directory catalog lacks it", id)
		}
	}
	if d := spec.CheckDocument(ld, string(text)); !d.Empty() {
		t.Errorf("catalog and SRD disagree: missing %v, extra %v", d.Missing, d.Extra)
	}
	if c := set.ForDocument("LIST_DIRECTORY_SRD.md", string(text)); c != ld {
		t.Errorf("ForDocument by name = %v", c)
	}
	if c := set.ForDocument("renamed.md", string(text)); c != ld {
		t.Errorf("ForDocument by overlap = %v", c)
	}

	for _, name := range set.Names() {
		c := set.Catalogs[name]
		doc, err := os.ReadFile(filepath.Join(seeds, c.Document))
		if err != nil {
			t.Logf("%s: %v (skipped)", name, err)
			continue
		}
		if d := spec.CheckDocument(c, string(doc)); !d.Empty() {
			t.Errorf("%s: catalog and %s disagree: missing %v, extra %v", name, c.Document, d.Missing, d.Extra)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
