package searchfiles

import (
	"reflect"
	"testing"

	"github.com/forge-conform/forge-conform/impl/internal/tooltest"
)

// TestOptions checks each reading of Options against the reference's on
// one tree.
func TestOptions(t *testing.T) {
	root := tooltest.Build(t,
		tooltest.File("u.txt", "é needle\n"), tooltest.File("cr.txt", "a only\r\nb only\r"),
		tooltest.Dir("sub"), tooltest.File("sub/deep.txt", "needle\n"),
		tooltest.File(".gitignore", "*.log\n"), tooltest.Dir("nested"), tooltest.Dir("nested/.git"),
		tooltest.File("nested/n.log", "needle\n"),
	)
	tests := []struct {
		name, args string
		opts       Options
		want       []string // "path:line:column:match_text", or the echoed "path|query"
	}{
		{"byte columns", `{"path":".","query":"needle","include_globs":["u.txt"]}`, Options{}, []string{"u.txt:1:4:needle"}},
		{"char-columns", `{"path":".","query":"needle","include_globs":["u.txt"]}`, Options{CharColumns: true}, []string{"u.txt:1:3:needle"}},
		{"final CR kept", `{"path":".","query":"only$","mode":"regex"}`, Options{}, []string{"cr.txt:1:3:only"}},
		{"strip-final-cr", `{"path":".","query":"only$","mode":"regex"}`, Options{StripFinalCR: true}, []string{"cr.txt:1:3:only", "cr.txt:2:3:only"}},
		{"relative globs", `{"path":".","query":"needle","include_globs":["*.txt"]}`, Options{}, []string{"u.txt:1:4:needle"}},
		{"basename-globs", `{"path":".","query":"needle","include_globs":["*.txt"]}`, Options{BasenameGlobs: true},
			[]string{"sub/deep.txt:1:1:needle", "u.txt:1:4:needle"}},
		{"nested repository", `{"path":".","query":"needle","exclude_globs":["**/*.txt"]}`, Options{}, []string{"nested/n.log:1:1:needle"}},
		{"no-nested-repos", `{"path":".","query":"needle","exclude_globs":["**/*.txt"]}`, Options{NoNestedRepos: true}, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := tooltest.Run(t, New().With(tc.opts), root, tooltest.Call{Args: tc.args})
			if err != nil {
				t.Fatal(err)
			}
			if got := hits(t, out); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
	echo := []struct {
		name, args string
		opts       Options
		path, q    string
	}{
		{"normalized", `{"path":"./sub/","query":" needle"}`, Options{}, "sub", " needle"},
		{"echo-as-sent", `{"path":"./sub/","query":"needle"}`, Options{EchoAsSent: true}, "./sub/", "needle"},
		{"trimmed-query", `{"path":"sub","query":" needle "}`, Options{TrimmedQuery: true}, "sub", "needle"},
	}
	for _, tc := range echo {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := tooltest.Run(t, New().With(tc.opts), root, tooltest.Call{Args: tc.args})
			if err != nil {
				t.Fatal(err)
			}
			if o := decode(t, out); o.Path != tc.path || o.Query != tc.q {
				t.Errorf("echo %q %q, want %q %q", o.Path, o.Query, tc.path, tc.q)
			}
		})
	}
	t.Run("untrimmed-path", func(t *testing.T) {
		if _, _, err := tooltest.Run(t, New().With(Options{UntrimmedPath: true}), root, tooltest.Call{Args: `{"path":" sub ","query":"x"}`}); err == nil {
			t.Error("the path as sent, \" sub \", was found")
		}
	})
}
