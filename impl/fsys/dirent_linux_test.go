//go:build linux

package fsys

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// TestReadDirFd checks ReadDirFd against os.File.ReadDir: the same names
// in the same order with the same types, over more than one buffer.
func TestReadDirFd(t *testing.T) {
	dir := t.TempDir()
	for i := range 500 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file-with-a-long-name-%03d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, e := range ents {
		want = append(want, fmt.Sprintf("%s %v", e.Name(), e.Type()))
	}

	fd, err := OpenDirFd(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	var got []string
	buf := make([]byte, 100) // grown to DirentBufSize
	err = ReadDirFd(fd, dir, &buf, func(name []byte, typ fs.FileMode, known bool) error {
		if !known { // a filesystem without d_type: lstat, as os does
			var st unix.Stat_t
			if err := unix.Fstatat(fd, string(name), &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				return err
			}
			typ = ModeType(st.Mode)
		}
		got = append(got, fmt.Sprintf("%s %v", name, typ))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(buf) != DirentBufSize {
		t.Errorf("buffer of %d bytes, want %d", len(buf), DirentBufSize)
	}
	if !slices.Equal(got, want) {
		t.Errorf("ReadDirFd listed %d names, os.File.ReadDir %d; first difference in\n got %.400v\nwant %.400v", len(got), len(want), got, want)
	}

	if _, err := OpenDirFd(filepath.Join(dir, "missing")); ErrText(err) != "no such file or directory" {
		t.Errorf("opening a missing directory: %v", err)
	}
}
