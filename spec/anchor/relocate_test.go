package anchor

import "testing"

func TestRelocate(t *testing.T) {
	before := Parse("# T\n\n## 1. A\n\nOne. Two. Three.\n\n## 2. B\n\nFour.\n")
	a, err := before.At("T.md", "1", 2, 3) // "Two. Three."
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, text  string
		ok          bool
		section     string
		first, last int
	}{
		{"unchanged place", "# T\n\n## 1. A\n\nOne. Two. Three.\n", true, "1", 2, 3},
		{"a sentence before", "# T\n\n## 1. A\n\nZero. One. Two. Three.\n", true, "1", 3, 4},
		{"to another section", "# T\n\n## 1. A\n\nOne.\n\n## 2. B\n\nTwo. Three.\n", true, "2", 1, 2},
		{"changed", "# T\n\n## 1. A\n\nOne. Two. Three!\n", false, "", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Parse(tt.text).Relocate(a, a.Fingerprint)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v (%+v)", ok, tt.ok, got)
			}
			if ok && (got.Section != tt.section || got.Sentence != tt.first || got.Through != tt.last || got.Fingerprint != a.Fingerprint) {
				t.Errorf("relocated to %+v, want §%s %d-%d", got, tt.section, tt.first, tt.last)
			}
		})
	}
	byID := Anchor{Document: "T.md", Section: "1", By: ByID, Fingerprint: a.Fingerprint}
	if _, ok := before.Relocate(byID, a.Fingerprint); ok {
		t.Error("a ByID anchor was relocated: it follows its ID")
	}
}
