package corpus_test

import (
	"reflect"
	"testing"

	"github.com/forge-conform/forge-conform/conformance/cases"
	"github.com/forge-conform/forge-conform/conformance/corpus"
)

// TestLoadTrusted: the embedded corpus passes Load's schema validation,
// and LoadTrusted, which skips it, reads the same cases.
func TestLoadTrusted(t *testing.T) {
	want, err := corpus.Load(cases.FS)
	if err != nil {
		t.Fatalf("the embedded corpus fails Load: %v", err)
	}
	got, err := corpus.LoadTrusted(cases.FS)
	if err != nil {
		t.Fatalf("LoadTrusted: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("LoadTrusted read %d cases, Load %d: they differ", len(got.Cases), len(want.Cases))
	}
}
