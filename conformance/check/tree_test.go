package check

import (
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/conformance/corpus"
)

func TestTree(t *testing.T) {
	str := func(s string) *string { return &s }
	before := Snapshot{
		"root":       {Type: "dir", Mode: "0755"},
		"root/a.txt": {Type: "file", Mode: "0644", Content: "one\n"},
		"root/link":  {Type: "symlink", Mode: "0777", Target: "a.txt"},
	}
	with := func(edit func(Snapshot)) Snapshot {
		s := Snapshot{}
		for k, v := range before {
			s[k] = v
		}
		edit(s)
		return s
	}
	tests := []struct {
		name  string
		after Snapshot
		want  map[string]corpus.TreeEntry
		fails bool
	}{
		{"unchanged", before, map[string]corpus.TreeEntry{}, false},
		{"unexpected change", with(func(s Snapshot) { s["root/a.txt"] = Node{Type: "file", Mode: "0644", Content: "two\n"} }), map[string]corpus.TreeEntry{}, true},
		{"expected change", with(func(s Snapshot) { s["root/a.txt"] = Node{Type: "file", Mode: "0644", Content: "two\n"} }),
			map[string]corpus.TreeEntry{"a.txt": {Content: str("two\n")}}, false},
		{"mode change not expected", with(func(s Snapshot) { s["root/a.txt"] = Node{Type: "file", Mode: "0600", Content: "one\n"} }),
			map[string]corpus.TreeEntry{"a.txt": {Content: str("one\n")}}, true},
		{"new file any mode", with(func(s Snapshot) { s["root/n.txt"] = Node{Type: "file", Mode: "0600", Content: "x"} }),
			map[string]corpus.TreeEntry{"n.txt": {Content: str("x")}}, false},
		{"new file wrong mode", with(func(s Snapshot) { s["root/n.txt"] = Node{Type: "file", Mode: "0600", Content: "x"} }),
			map[string]corpus.TreeEntry{"n.txt": {Content: str("x"), Mode: "0644"}}, true},
		{"temp file left behind", with(func(s Snapshot) { s["root/.a.txt.tmp"] = Node{Type: "file", Mode: "0600"} }), map[string]corpus.TreeEntry{}, true},
		{"expected absent", with(func(s Snapshot) { delete(s, "root/a.txt") }), map[string]corpus.TreeEntry{"a.txt": {Absent: true}}, false},
		{"absent but present", before, map[string]corpus.TreeEntry{"a.txt": {Absent: true}}, true},
		{"new directory", with(func(s Snapshot) { s["root/d"] = Node{Type: "dir", Mode: "0755"} }), map[string]corpus.TreeEntry{"d": {Dir: true, Mode: "0755"}}, false},
		{"file where a dir is expected", with(func(s Snapshot) { s["root/d"] = Node{Type: "file", Mode: "0755"} }), map[string]corpus.TreeEntry{"d": {Dir: true}}, true},
		{"symlink replaced by a file", with(func(s Snapshot) { s["root/link"] = Node{Type: "file", Mode: "0644", Content: "one\n"} }), map[string]corpus.TreeEntry{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Tree(before, tt.after, tt.want, []string{"T-X-01"})
			if (len(got) > 0) != tt.fails {
				t.Fatalf("Tree failures = %v, want failing=%v", got, tt.fails)
			}
			if tt.fails && (got[0].Kind != KindTree || got[0].IDs[0] != "T-X-01" || !strings.Contains(got[0].Diff, "root/")) {
				t.Errorf("failure = %+v, want a tree failure naming the case IDs with a diff", got[0])
			}
		})
	}
}
