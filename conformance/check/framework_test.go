package check

import (
	"reflect"
	"testing"
)

func TestFramework(t *testing.T) {
	tests := []struct {
		name string
		spec string
		in   Failure
		want []string
	}{
		{"executor's own catalog", "tool_executor", Failure{Kind: KindInvariant, IDs: []string{idSanitize}}, []string{idSanitize}},
		{"sanitize in list_directory", "list_directory", Failure{Kind: KindInvariant, IDs: []string{idSanitize}}, []string{"NFR-LD-SEC-02", "C-04"}},
		{"screen sanitize in search_files", "search_files", Failure{Kind: KindScreen, IDs: []string{idSanitize, idSecOut}}, []string{"NFR-SF-SEC-02", "C-04"}},
		{"sanitize where the tool states none", "write_file", Failure{Kind: KindInvariant, IDs: []string{idSanitize}}, []string{"tool_executor:FR-OUT-02"}},
		{"other invariant qualified", "list_directory", Failure{Kind: KindInvariant, IDs: []string{idOneResult}}, []string{"tool_executor:NFR-REL-01"}},
		{"screen check qualified", "list_directory", Failure{Kind: KindScreen, IDs: []string{idProgress}}, []string{"tool_executor:FR-TUI-02"}},
		{"qualified ID kept", "list_directory", Failure{Kind: KindInvariant, IDs: []string{"tool_executor:FR-EXE-05"}}, []string{"tool_executor:FR-EXE-05"}},
		{"expectation untouched", "list_directory", Failure{Kind: KindExpect, IDs: []string{"FR-LD-DEF-05"}}, []string{"FR-LD-DEF-05"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Framework(tt.spec, []Failure{tt.in})[0].IDs
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Framework(%q, %v) IDs = %v, want %v", tt.spec, tt.in.IDs, got, tt.want)
			}
		})
	}
}
