package fcptest

import (
	"slices"
	"testing"

	"github.com/forge-conform/forge-conform/spec/fcp"
)

// TestNamesAreTheProtocols: the tools registered are PROTOCOL.md §9.6's,
// as spec/fcp lists them for the corpus.
func TestNamesAreTheProtocols(t *testing.T) {
	var got []string
	for _, tl := range Tools() {
		got = append(got, tl.Name())
	}
	want := slices.Clone(fcp.TestTools)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("fcptest registers %v, spec/fcp.TestTools lists %v", got, want)
	}
}
