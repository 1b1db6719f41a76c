package check

import (
	"fmt"
	"sort"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/diff"
)

// KindTree names the check of the filesystem after a call.
const KindTree = "tree"

// Node is one filesystem entry of a snapshot.
type Node struct {
	Type    string `json:"type"` // file, dir, symlink, other
	Mode    string `json:"mode"` // octal permission bits
	Content string `json:"content,omitempty"`
	Target  string `json:"target,omitempty"`
}

// Snapshot maps a slash-separated path relative to the fixture base
// ("root/a.txt", "outside/secret") to its entry.
type Snapshot map[string]Node

// Tree checks the filesystem after a call: the paths the expectation lists
// (relative to the root) must be as stated, every other entry exactly as
// before the call. Temp files left behind show up as extra entries.
func Tree(before, after Snapshot, want map[string]corpus.TreeEntry, ids []string) []Failure {
	expected := Snapshot{}
	for p, n := range before {
		expected[p] = n
	}
	keys := make([]string, 0, len(want))
	for p := range want {
		keys = append(keys, p)
	}
	sort.Strings(keys)
	for _, p := range keys {
		w := want[p]
		key := "root/" + p
		switch {
		case w.Absent:
			delete(expected, key)
		default:
			n := expected[key]
			n.Type = "file"
			if w.Dir {
				n.Type, n.Content = "dir", ""
			}
			if w.Content != nil {
				n.Content = *w.Content
			}
			if w.Mode != "" {
				n.Mode = w.Mode
			} else if n.Mode == "" {
				n.Mode = after[key].Mode // a new file: any mode unless stated
			}
			n.Target = ""
			expected[key] = n
		}
	}
	if d := diff.JSON(expected, after); d != "" {
		return []Failure{{IDs: ids, Kind: KindTree,
			Message: fmt.Sprintf("the filesystem after the call differs from the expected tree (%d entries expected, %d found)", len(expected), len(after)),
			Diff:    d}}
	}
	return nil
}
