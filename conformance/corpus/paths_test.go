package corpus

import (
	"reflect"
	"testing"
)

func TestSplitPaths(t *testing.T) {
	tests := []struct {
		in   string
		want []TextPart
	}{
		{"No changes applied.", []TextPart{{Text: "No changes applied."}}},
		{"", []TextPart{{Text: ""}}},
		{"modified: $PATH(a.txt)", []TextPart{{Text: "modified: "}, {Text: "a.txt", Path: true}}},
		{"$PATH(a)\n$PATH(b c)!", []TextPart{{Text: "a", Path: true}, {Text: "\n"}, {Text: "b c", Path: true}, {Text: "!"}}},
		{"open $PATH(a", []TextPart{{Text: "open $PATH(a"}}},
	}
	for _, tt := range tests {
		if got := SplitPaths(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitPaths(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
	if got := AsWritten("created: $PATH(new file.txt)"); got != "created: new file.txt" {
		t.Errorf("AsWritten = %q", got)
	}
}
