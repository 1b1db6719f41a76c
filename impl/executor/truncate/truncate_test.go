package truncate

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FR-OUT-04, FR-OUT-04a, T-OUT-01: byte-exact, marker within the limit.
func TestOutput(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int64
		want string
	}{
		{"fits", "hello", 5, "hello"},
		{"empty", "", 0, ""},
		{"cut", strings.Repeat("a", 100), 30, "aaaaaa" + Marker},
		{"limit below marker", strings.Repeat("a", 100), 10, Marker[:10]},
		{"limit equals marker", strings.Repeat("a", 100), int64(len(Marker)), Marker},
		{"limit zero", "abc", 0, ""},
		{"char boundary", "aaaaé" + strings.Repeat("b", 50), int64(len(Marker)) + 5, "aaaa" + Marker},
		{"exact fit", strings.Repeat("a", 30), 30, strings.Repeat("a", 30)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Output(tc.in, tc.max)
			if got != tc.want {
				t.Errorf("Output(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
			}
			if int64(len(got)) > max(tc.max, 0) {
				t.Errorf("len %d > effective_max %d", len(got), tc.max)
			}
		})
	}
}

func TestOutputNeverSplitsACharacter(t *testing.T) {
	in := strings.Repeat("日本語", 40)
	for m := int64(len(Marker)) + 1; m < int64(len(in)); m++ {
		got := Output(in, m)
		if !utf8.ValidString(got) || int64(len(got)) > m || !strings.HasSuffix(got, Marker) {
			t.Fatalf("max %d: %q", m, got)
		}
	}
}
