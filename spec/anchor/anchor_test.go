package anchor_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/forge-conform/forge-conform/spec/anchor"
)

func mini(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "mini.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSplit(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"two sentences", "One. Two.", []string{"One.", "Two."}},
		{"lower case next word", "see v1. then more", []string{"see v1. then more"}},
		{"abbreviation", "Use e.g. Foo here. Next", []string{"Use e.g. Foo here.", "Next"}},
		{"closing parenthesis and quote", `It fails (see "x."). Then`, []string{`It fails (see "x.").`, "Then"}},
		{"bold closer", "**Done.** Next", []string{"**Done.**", "Next"}},
		{"inside a code span", "Run `a. B` now. Next", []string{"Run `a. B` now.", "Next"}},
		{"no space after", "v1.9 and a.b", []string{"v1.9 and a.b"}},
		{"question and exclamation", "Why? Because! Yes", []string{"Why?", "Because!", "Yes"}},
		{"CJK terminators", "第一句。第二句！", []string{"第一句。", "第二句！"}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, anchor.Split(tt.text)); d != "" {
			t.Errorf("%s: Split differs (-want +got):\n%s", tt.name, d)
		}
	}
}

func TestParseSections(t *testing.T) {
	doc := anchor.Parse(mini(t))
	var keys []string
	for _, s := range doc.Sections {
		keys = append(keys, s.Key)
	}
	if d := cmp.Diff([]string{"h0", "h1", "1", "1.1", "h4", "h5"}, keys); d != "" {
		t.Errorf("section keys differ (-want +got):\n%s", d)
	}
	s, _ := doc.Section("1.1")
	var got []string
	for _, x := range s.Sentences {
		got = append(got, string(s.Blocks[x.Block].Kind)+": "+x.Text)
	}
	want := []string{
		"heading: 1.1 Widgets (FR-W-01)",
		"paragraph: **Requirement:** The widget MUST spin.",
		"paragraph: It spins twice, e.g. in tests.",
		"item: **FR-W-02:** The widget MUST stop:",
		"item: on request",
		"item: on error",
		"item: **FR-W-03 (Colour):** Widgets are blue.",
		"paragraph: **FR-W-04:** Shown after a list without a blank line.",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("§1.1 sentences differ (-want +got):\n%s", d)
	}
	if p := doc.Sections[s.Parent].Key; p != "1" {
		t.Errorf("§1.1's parent is §%s, want §1", p)
	}
	code, _ := doc.Section("h4")
	if len(code.Sentences) != 3 || code.Sentences[2].Text != "second line" || code.Blocks[1].Line != 25 || code.Blocks[1].EndLine != 27 {
		t.Errorf("code section = %+v", code)
	}
}

func TestProposeAndResolve(t *testing.T) {
	text := mini(t)
	doc := anchor.Parse(text)
	ids := []string{"C-01", "FR-W-01", "FR-W-02", "FR-W-03", "FR-W-04", "FR-NONE-01"}
	got := doc.Propose("MINI.md", ids)
	want := map[string]string{
		"C-01":    "| C-01 | Runs anywhere |",
		"FR-W-01": "1.1 Widgets (FR-W-01) **Requirement:** The widget MUST spin. It spins twice, e.g. in tests.",
		"FR-W-02": "**FR-W-02:** The widget MUST stop: on request on error",
		"FR-W-03": "**FR-W-03 (Colour):** Widgets are blue.",
		"FR-W-04": "**FR-W-04:** Shown after a list without a blank line.",
	}
	if _, ok := got["FR-NONE-01"]; ok {
		t.Error("Propose anchors an ID the document does not define")
	}
	for id, text := range want {
		a, ok := got[id]
		if !ok {
			t.Errorf("Propose found no anchor for %s", id)
			continue
		}
		res := doc.Resolve(id, a)
		if res.Status != anchor.OK || res.Text != text {
			t.Errorf("Resolve(%s) = %s %q, want ok %q", id, res.Status, res.Text, text)
		}
	}

	changed := anchor.Parse(strings.Replace(text, "Widgets are blue", "Widgets are red", 1))
	if res := changed.Resolve("FR-W-03", got["FR-W-03"]); res.Status != anchor.Changed {
		t.Errorf("after a one-word change FR-W-03 is %s, want changed", res.Status)
	}
	if res := changed.Resolve("FR-W-02", got["FR-W-02"]); res.Status != anchor.OK {
		t.Errorf("FR-W-02 is %s after a change elsewhere, want ok", res.Status)
	}
	gone := anchor.Parse(strings.Replace(text, "**FR-W-03 (Colour):**", "", 1))
	if res := gone.Resolve("FR-W-03", got["FR-W-03"]); res.Status != anchor.NotFound || res.Reason == "" {
		t.Errorf("a removed ID resolves %s (%q), want not found with a reason", res.Status, res.Reason)
	}
}

func TestAt(t *testing.T) {
	doc := anchor.Parse(mini(t))
	tests := []struct {
		section     string
		first, last int
		text        string
		err         bool
	}{
		{"h5", 1, 2, "Numbers used twice fall back to ordinals。 第二句。", false},
		{"h4", 0, 0, "Notes", false},
		{"1.1", 2, 2, "It spins twice, e.g. in tests.", false},
		{"1.1", 8, 8, "", true},
		{"9", 1, 1, "", true},
		{"1.1", 3, 2, "", true},
	}
	for _, tt := range tests {
		a, err := doc.At("MINI.md", tt.section, tt.first, tt.last)
		if (err != nil) != tt.err {
			t.Errorf("At(%s, %d, %d) error = %v, want error %v", tt.section, tt.first, tt.last, err, tt.err)
			continue
		}
		if err != nil {
			continue
		}
		if res := doc.Resolve("X", a); res.Status != anchor.OK || res.Text != tt.text {
			t.Errorf("At(%s, %d, %d) resolves %s %q, want %q", tt.section, tt.first, tt.last, res.Status, res.Text, tt.text)
		}
	}
}

func TestFingerprint(t *testing.T) {
	fp := anchor.Fingerprint("a", "b")
	if !strings.HasPrefix(fp, "sha256:") || len(fp) != len("sha256:")+16 {
		t.Errorf("Fingerprint = %q, want sha256: and 16 hex digits", fp)
	}
	if fp == anchor.Fingerprint("a b") {
		t.Error("sentences joined with a newline fingerprint like one sentence")
	}
}
