package runner

import (
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/spec"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// A case "since" a later SRD version is skipped for an implementation
// stating an earlier one in hello, and runs otherwise.
func TestVersionSkip(t *testing.T) {
	tests := []struct {
		name     string
		since    string
		declared map[string]string
		want     string // "" runs; else a substring of the skip reason
	}{
		{"no since", "", map[string]string{"ld": "1.0"}, ""},
		{"nothing declared", "1.2", nil, ""},
		{"other spec declared", "1.2", map[string]string{"sf": "1.0"}, ""},
		{"same version", "1.2", map[string]string{"ld": "1.2"}, ""},
		{"later version", "1.2", map[string]string{"ld": "1.10"}, ""},
		{"earlier version", "1.2", map[string]string{"ld": "1.1"}, "needs ld SRD v1.2 (since); the implementation implements v1.1 (hello srd_versions)"},
		{"not a version", "1.2", map[string]string{"ld": "one"}, "srd_versions.ld"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Runner{hello: fcp.Response{SRDVersions: tt.declared}}
			got := r.versionSkip(&corpus.Case{Spec: "ld", Name: "c", Since: tt.since})
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("versionSkip = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestVersions(t *testing.T) {
	specs := &spec.Set{Catalogs: map[string]*spec.Catalog{"ld": {Spec: "ld", Version: "1.1"}, "cx": {Spec: "cx"}}}
	r := &Runner{opts: Options{Specs: specs}, hello: fcp.Response{SRDVersions: map[string]string{"ld": "1.0"}}}
	got := r.versions()
	want := []Version{{Spec: "cx"}, {Spec: "ld", Catalog: "1.1", Declared: "1.0"}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("versions = %+v, want %+v", got, want)
	}
}
