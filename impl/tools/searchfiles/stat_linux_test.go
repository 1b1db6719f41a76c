//go:build linux

package searchfiles

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/fsys"
)

// viaOsFile is the OS filesystem without the *afero.OsFs type, so that
// readDir lists through *os.File.ReadDir instead of readDirOS.
type viaOsFile struct{ afero.OsFs }

// TestReadDirOS checks that the plain-OS listing gives readDir's result
// through os.File.ReadDir: the same names in the same order, types and
// sizes, and the same error texts.
func TestReadDirOS(t *testing.T) {
	root := t.TempDir()
	mk := func(rel, data string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk("a.txt", "hello")
	mk(".hidden", "x")
	mk("sub/b.go", "package b")
	mk("bad\xffname", "lossy")
	if err := os.Symlink("a.txt", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	// More names than one getdents buffer holds.
	for i := range 600 {
		mk(fmt.Sprintf("many/file-with-a-long-name-%04d.txt", i), fmt.Sprint(i))
	}
	for _, tc := range []struct {
		name, dir string
		sizes     bool
	}{
		{"root", root, false},
		{"root sizes", root, true},
		{"sub", filepath.Join(root, "sub"), true},
		{"many", filepath.Join(root, "many"), true},
		{"missing", filepath.Join(root, "nope"), false},
		{"file", filepath.Join(root, "a.txt"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, wantErr := readDir(viaOsFile{}, tc.dir, tc.sizes, nil)
			var buf []byte
			got, gotErr := readDir(afero.NewOsFs(), tc.dir, tc.sizes, &buf)
			if (wantErr == nil) != (gotErr == nil) {
				t.Fatalf("error %v, want %v", gotErr, wantErr)
			}
			if wantErr != nil {
				if g, w := fsys.ErrText(gotErr), fsys.ErrText(wantErr); g != w {
					t.Errorf("error text %q, want %q", g, w)
				}
				return
			}
			if len(want) == 0 {
				t.Fatal("the reference listing is empty: the test checks nothing")
			}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(dirent{})); diff != "" {
				t.Errorf("listing differs (-os.File.ReadDir +readDirOS):\n%s", diff)
			}
		})
	}
}
