package applypatch

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/impl/internal/tooltest"
	"github.com/forge-conform/forge-conform/impl/lp1"
	"github.com/forge-conform/forge-conform/impl/session"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// TestOptions runs one patch under each reading Options realizes and
// checks the output (with "$ROOT" for the workspace), the error kind and
// file, and a.txt's content after the call.
func TestOptions(t *testing.T) {
	tests := []struct {
		name     string
		opts     Options
		patch    string
		read     []string
		want     string // output; "" when an error is wanted
		wantKind toolerr.Kind
		wantFile string
		wantMsg  string // a prefix of the error message
		wantA    string // a.txt afterwards
	}{
		{name: "as written", patch: patch("F ./a.txt", "E", "one", "."), read: []string{"a.txt"},
			want: "modified: ./a.txt", wantA: "two\nthree\n"},
		{name: "canonical", opts: Options{PathForm: PathCanonical}, patch: patch("F link-a", "E", "one", "."),
			read: []string{"a.txt"}, want: "modified: $ROOT/a.txt", wantA: "two\nthree\n"},
		{name: "relative", opts: Options{PathForm: PathRelative}, patch: patch("F ./a.txt", "E", "one", "."),
			read: []string{"a.txt"}, want: "modified: a.txt", wantA: "two\nthree\n"},
		{name: "sections evolve", patch: patch("F a.txt", "E", "one", ".", "F a.txt", "E", "two", "."),
			read: []string{"a.txt"}, want: "modified: a.txt", wantA: "three\n"},
		{name: "sections from disk", opts: Options{SectionsFromDisk: true},
			patch: patch("F a.txt", "E", "one", ".", "F b.txt", "N -", "F a.txt", "E", "two", "."),
			read:  []string{"a.txt", "b.txt"}, want: "modified: a.txt\nmodified: b.txt\nmodified: a.txt", wantA: "one\nthree\n"},
		{name: "sections from disk lose no edit silently", opts: Options{SectionsFromDisk: true},
			patch: patch("F a.txt", "R", "one", ".", "ONE", ".", "F a.txt", "R", "ONE", ".", "1", "."),
			read:  []string{"a.txt"}, wantKind: toolerr.PatchFailed, wantFile: "a.txt", wantMsg: "line 9:", wantA: "one\ntwo\nthree\n"},
		{name: "parse error file", opts: Options{ParseErrorFile: "<patch>"}, patch: "LP1\nX\nEND\n",
			wantKind: toolerr.PatchFailed, wantFile: "<patch>", wantMsg: "line 2:", wantA: "one\ntwo\nthree\n"},
		{name: "no line numbers", opts: Options{NoLineNumbers: true}, patch: patch("F a.txt", "E", "nine", "."),
			read: []string{"a.txt"}, wantKind: toolerr.PatchFailed, wantFile: "a.txt", wantMsg: "E: ", wantA: "one\ntwo\nthree\n"},
		{name: "empty section accepted", opts: Options{LP1: lp1.Options{EmptySections: true}}, patch: patch("F b.txt", "F a.txt", "N -"),
			read: []string{"a.txt", "b.txt"}, want: "modified: a.txt", wantA: "one\ntwo\nthree"},
		{name: "empty match with occurrence", opts: Options{LP1: lp1.Options{EmptyMatchWithOcc: true}}, patch: patch("F a.txt", "I 4", ".", "four", "."),
			read: []string{"a.txt"}, want: "modified: a.txt", wantA: "one\ntwo\nthree\nfour\n"},
		{name: "final newline preserved", opts: Options{LP1: lp1.Options{KeepFinalNewline: true}},
			patch: patch("F a.txt", "E", "one", "two", "three", ".", "T", "b", "."),
			read:  []string{"a.txt"}, want: "modified: a.txt", wantA: "b\n"},
		{name: "final newline invariant", patch: patch("F a.txt", "E", "one", "two", "three", ".", "T", "b", "."),
			read: []string{"a.txt"}, want: "modified: a.txt", wantA: "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := workspace.Build(t, fixture()...)
			st := session.New()
			markRead(t, st, root, tt.read...)
			args, _ := json.Marshal(map[string]string{"patch": tt.patch})
			out, _, err := tooltest.Run(t, Tool{Options: tt.opts}, root, tooltest.Call{Args: string(args), Session: st})
			if tt.wantKind == "" {
				if err != nil {
					t.Fatalf("err = %v, want %q", err, tt.want)
				}
				if got := strings.ReplaceAll(out, root, "$ROOT"); got != tt.want {
					t.Errorf("out = %q, want %q", got, tt.want)
				}
			} else {
				te := tooltest.AsError(t, err)
				if te == nil || te.Kind != tt.wantKind || te.File != tt.wantFile || !strings.HasPrefix(te.Message, tt.wantMsg) {
					t.Errorf("err = %#v, want %s in %q starting %q", te, tt.wantKind, tt.wantFile, tt.wantMsg)
				}
			}
			if got := readFile(t, root, "a.txt"); got != tt.wantA {
				t.Errorf("a.txt = %q, want %q", got, tt.wantA)
			}
		})
	}
}

// TestKeepCache: with Options.KeepCache a successful patch leaves the
// read_file entry as it was, so a second patch is StaleFile
// "File content changed since last read".
func TestKeepCache(t *testing.T) {
	root := workspace.Build(t, fixture()...)
	st := session.New()
	markRead(t, st, root, "a.txt")
	tl := Tool{Options: Options{KeepCache: true}}
	for i, p := range []string{patch("F a.txt", "E", "one", "."), patch("F a.txt", "E", "two", ".")} {
		args, _ := json.Marshal(map[string]string{"patch": p})
		_, _, err := tooltest.Run(t, tl, root, tooltest.Call{Args: string(args), Session: st})
		switch {
		case i == 0 && err != nil:
			t.Fatalf("first patch: %v", err)
		case i == 1:
			if te := tooltest.AsError(t, err); te.Kind != toolerr.StaleFile || te.Message != "File content changed since last read" {
				t.Errorf("second patch: %#v, want StaleFile", te)
			}
		}
	}
	if got := readFile(t, root, "a.txt"); got != "two\nthree\n" {
		t.Errorf("a.txt = %q", got)
	}
	if _, ok := st.LastRead(filepath.Join(root, "a.txt")); !ok {
		t.Error("the read_file entry is gone")
	}
}
