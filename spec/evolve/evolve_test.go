package evolve_test

import (
	"encoding/json"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/spec"
	"github.com/forge-conform/forge-conform/spec/anchor"
	"github.com/forge-conform/forge-conform/spec/evolve"
)

const v1 = `# Widget SRD

**Version:** 1.0

## 1. Behaviour

* **FR-W-01:** The widget MUST turn.
* **FR-W-02:** The widget MUST stop when asked.

Turning is clockwise.

## 2. Configuration

* **CFG-W-01:** ` + "`speed`" + ` sets the turns per minute. Its built-in value is 60.
`

const v2 = `# Widget SRD

**Version:** 1.1

## 1. Behaviour

* **FR-W-01:** The widget MUST turn.
* **FR-W-03:** The widget MUST report its speed.
* **FR-W-04:** The widget MAY hum.

Turning is clockwise.

## 2. Configuration

* **CFG-W-01:** ` + "`speed`" + ` sets the turns per minute. Its built-in value is 30.
`

// widget is a catalog anchored to v1, with a derived ID on "Turning is
// clockwise." (§1 sentence 3, sentence 4 in v2).
func widget(t *testing.T) (*spec.Set, *spec.Catalog) {
	t.Helper()
	c := &spec.Catalog{Spec: "widget", Document: "WIDGET.md", Version: "1.0", Tools: []string{"turn"}}
	doc := anchor.Parse(v1)
	ids := []string{"FR-W-01", "FR-W-02", "CFG-W-01"}
	for id, a := range doc.Propose(c.Document, ids) {
		c.Requirements = append(c.Requirements, spec.Requirement{ID: id, Origin: "srd", Anchors: []anchor.Anchor{a}})
	}
	a, err := doc.At(c.Document, "1", 3, 3)
	if err != nil {
		t.Fatal(err)
	}
	c.Requirements = append(c.Requirements, spec.Requirement{ID: "W-DIR-01", Origin: "derived", Anchors: []anchor.Anchor{a}})
	slices.SortFunc(c.Requirements, func(a, b spec.Requirement) int {
		return map[bool]int{true: -1, false: 1}[a.ID < b.ID]
	})
	return &spec.Set{Catalogs: map[string]*spec.Catalog{"widget": c}}, c
}

func TestChanges(t *testing.T) {
	set, c := widget(t)
	got := map[string]evolve.Kind{}
	for _, ch := range evolve.Changes(set, c, v2) {
		got[ch.ID] = ch.Kind
	}
	want := map[string]evolve.Kind{"FR-W-03": evolve.Added, "FR-W-04": evolve.Added, "FR-W-02": evolve.Removed, "CFG-W-01": evolve.Changed, "W-DIR-01": evolve.Moved}
	if len(got) != len(want) {
		t.Errorf("changes %v, want %v", got, want)
	}
	for id, k := range want {
		if got[id] != k {
			t.Errorf("%s: %q, want %q", id, got[id], k)
		}
	}
	if ch := evolve.Changes(set, c, v1); len(ch) != 0 {
		t.Errorf("the anchored revision itself differs: %+v", ch)
	}
}

func TestDiff(t *testing.T) {
	set, c := widget(t)
	byID := map[string]evolve.SentenceDiff{}
	for _, d := range evolve.Diff(set, c, v1, v2) {
		byID[d.ID] = d
	}
	cfg := byID["CFG-W-01"]
	if got := evolve.FormatWordDiff(cfg.Ops); got != "**CFG-W-01:** `speed` sets the turns per minute. Its built-in value is [-60.-] {+30.+}" {
		t.Errorf("CFG-W-01 word diff: %s", got)
	}
	if got := evolve.ValueChanges(cfg.Ops); !slices.Equal(got, []string{"60 → 30"}) {
		t.Errorf("CFG-W-01 values: %v", got)
	}
	if d := byID["W-DIR-01"]; !d.Moved || d.Where.Sentence != 3 || d.NewWhere.Sentence != 4 || d.NewWhere.Fingerprint != d.Where.Fingerprint {
		t.Errorf("W-DIR-01 did not move from sentence 3 to 4 unchanged: %+v", d)
	}
	if d := byID["FR-W-03"]; d.Kind != evolve.Added || d.New != "**FR-W-03:** The widget MUST report its speed." {
		t.Errorf("FR-W-03: %+v", d)
	}
	if d := byID["FR-W-02"]; d.Kind != evolve.Removed || d.Old == "" {
		t.Errorf("FR-W-02: %+v", d)
	}
	if _, ok := byID["FR-W-01"]; ok {
		t.Error("FR-W-01 did not change but is listed")
	}
}

func TestWordDiff(t *testing.T) {
	tests := []struct{ old, new, want string }{
		{"a b c", "a b c", "a b c"},
		{"a b c", "a x c", "a [-b-] {+x+} c"},
		{"a b", "a b c d", "a b {+c d+}"},
		{"x a", "a", "[-x-] a"},
		{"", "a", "{+a+}"},
	}
	for _, tt := range tests {
		if got := evolve.FormatWordDiff(evolve.WordDiff(tt.old, tt.new)); got != tt.want {
			t.Errorf("WordDiff(%q, %q) = %q, want %q", tt.old, tt.new, got, tt.want)
		}
	}
	if got := evolve.ValueChanges(evolve.WordDiff("must be MUST", "must be SHALL")); got != nil {
		t.Errorf("a keyword change is a value change: %v", got)
	}
}

func TestAffected(t *testing.T) {
	set, _ := widget(t)
	args := func(s string) json.RawMessage { return json.RawMessage(s) }
	cp := &corpus.Corpus{Cases: []*corpus.Case{
		{Spec: "widget", Name: "names-it", Tool: "turn", IDs: []string{"CFG-W-01"}, Args: args(`{"speed":5}`), Interpretations: []string{"I-W-02"}},
		{Spec: "widget", Name: "default-speed", Tool: "turn", IDs: []string{"FR-W-01"}, Args: args(`{}`)},
		{Spec: "widget", Name: "sets-speed", Tool: "turn", IDs: []string{"FR-W-01"}, Config: args(`{"tools":{"turn":{"speed":9}}}`)},
		{Spec: "other", Name: "cross", Tool: "other", IDs: []string{"widget:CFG-W-01"}},
		{Spec: "other", Name: "unrelated", Tool: "other", IDs: []string{"FR-O-01"}},
	}}
	goldens := fstest.MapFS{"widget/names-it.golden": {}, "widget/default-speed.golden": {}}
	md := []byte("# I\n\n## widget\n\n### I-W-01 Speed\n\nCFG-W-01 counts whole turns (not CFG-W-011).\n\n### I-W-03 Other\n\nFR-W-01 only.\n")
	src := evolve.Sources{Corpus: cp, Specs: set, Goldens: goldens, Interpretations: md}
	im := src.Affected("widget", "CFG-W-01", "**CFG-W-01:** `speed` sets the turns per minute. Its built-in value is 30.")
	check := func(what string, got, want []string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	check("Cases", im.Cases, []string{"widget/names-it", "other/cross"})
	check("Keys", im.Keys, []string{"speed"})
	check("Defaults", im.Defaults, []string{"widget/default-speed"})
	check("Goldens", im.Goldens, []string{"widget/names-it.golden", "widget/default-speed.golden"})
	check("Interpretations", im.Interpretations, []string{"I-W-01", "I-W-02"})
	// Not a configuration requirement: no defaults.
	if im := src.Affected("widget", "FR-W-01", "`speed` is mentioned"); len(im.Defaults) != 0 {
		t.Errorf("FR-W-01 has default cases: %v", im.Defaults)
	}
	check("Citing FR-W-0", evolve.Citing(md, "FR-W-0"), nil)
}
