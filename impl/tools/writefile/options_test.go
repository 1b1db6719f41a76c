package writefile

import (
	"crypto/sha256"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/internal/tooltest"
	"github.com/forge-conform/forge-conform/impl/session"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// TestOptions creates files under each reading Options realizes.
func TestOptions(t *testing.T) {
	tests := []struct {
		name     string
		opts     Options
		args     string
		want     string // output with "$ROOT" for the root; "" when an error is wanted
		wantKind toolerr.Kind
		tree     []string // the snapshot after the call
	}{
		{name: "json", args: `{"path":"n.txt","content":"hi\n"}`,
			want: `{"status":"created","path":"n.txt","bytes_written":3}`, tree: []string{"keep=k", "n.txt=hi\n"}},
		{name: "created text", opts: Options{CreatedText: true}, args: `{"path":"n.txt","content":"hi\n"}`,
			want: "Created $ROOT/n.txt (3 bytes)", tree: []string{"keep=k", "n.txt=hi\n"}},
		{name: "parents created", args: `{"path":"a/b.txt","content":"x"}`,
			want: `{"status":"created","path":"a/b.txt","bytes_written":1}`, tree: []string{"a/", "a/b.txt=x", "keep=k"}},
		{name: "no parents", opts: Options{NoParents: true}, args: `{"path":"a/b.txt","content":"x"}`, wantKind: toolerr.ExecutionFailed, tree: []string{"keep=k"}},
		{name: "create new", opts: Options{CreateNew: true}, args: `{"path":"n.txt","content":"hi\n"}`,
			want: `{"status":"created","path":"n.txt","bytes_written":3}`, tree: []string{"keep=k", "n.txt=hi\n"}},
		{name: "create new never replaces", opts: Options{CreateNew: true}, args: `{"path":"keep","content":"x"}`, wantKind: toolerr.ExecutionFailed, tree: []string{"keep=k"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tooltest.Build(t, tooltest.File("keep", "k"))
			out, _, err := tooltest.Run(t, Tool{Options: tt.opts}, root, tooltest.Call{Args: tt.args, Session: session.New()})
			if tt.wantKind != "" {
				tooltest.ErrorKind(t, err, tt.wantKind)
			} else if got := strings.ReplaceAll(out, root, "$ROOT"); err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
			if got := snapshot(t, root); !slices.Equal(got, tt.tree) {
				t.Errorf("tree %q, want %q", got, tt.tree)
			}
		})
	}
}

// TestCreateNewRemovesPartialFile: with Options.CreateNew a write that
// fails leaves no file behind.
func TestCreateNewRemovesPartialFile(t *testing.T) {
	root := tooltest.Build(t, tooltest.File("keep", "k"))
	errSync := errors.New("disk on fire")
	_, _, err := tooltest.Run(t, Tool{Options: Options{CreateNew: true}}, root, tooltest.Call{
		Args: `{"path":"n.txt","content":"hi"}`,
		FS:   func(f afero.Fs) afero.Fs { return &hookFs{Fs: f, syncErr: errSync} },
	})
	tooltest.ErrorKind(t, err, toolerr.ExecutionFailed)
	if _, err := os.Lstat(filepath.Join(root, "n.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("n.txt left behind: %v", err)
	}
}

// TestRecordRead: with Options.RecordRead the new file's SHA-256 is in the
// read cache under its canonical path.
func TestRecordRead(t *testing.T) {
	for _, record := range []bool{false, true} {
		root := tooltest.Build(t)
		st := session.New()
		if _, _, err := tooltest.Run(t, Tool{Options: Options{RecordRead: record}}, root,
			tooltest.Call{Args: `{"path":"n.txt","content":"hi"}`, Session: st}); err != nil {
			t.Fatal(err)
		}
		r, ok := st.LastRead(filepath.Join(root, "n.txt"))
		if ok != record || (ok && r.SHA256 != sha256.Sum256([]byte("hi"))) {
			t.Errorf("RecordRead %v: cache entry %v, %v", record, ok, r)
		}
	}
}
