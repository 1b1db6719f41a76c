package fsys

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/afero"
)

// node describes one entry of a fixture tree. Exactly one of dir, link or
// (implicitly) a regular file applies.
type node struct {
	path string
	dir  bool
	link string // symlink target, as stored; "$ROOT" stands for the tree's root
	mode fs.FileMode
	body string
}

// buildTree creates nodes under a fresh temporary directory whose own mode and
// whose parent's mode are opened to 0755 (os.MkdirTemp uses 0700, which would
// hide everything from a non-owner). Directory modes are applied after all
// entries exist, deepest first, and restored in t.Cleanup so the tree can be
// removed.
func buildTree(t *testing.T, nodes []node) string {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{filepath.Dir(root), root} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for d := filepath.Dir(filepath.Dir(root)); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil || fi.Mode().Perm()&0o001 == 0 {
			t.Skipf("%s does not grant search to others; point TMPDIR at a directory that does (e.g. /tmp)", d)
		}
		if d == "/" {
			break
		}
	}
	var dirs []node
	for _, n := range nodes {
		p := filepath.Join(root, n.path)
		var err error
		switch {
		case n.dir:
			err = os.Mkdir(p, 0o755)
			dirs = append(dirs, n)
		case n.link != "":
			err = os.Symlink(strings.ReplaceAll(n.link, "$ROOT", root), p)
		default:
			if err = os.WriteFile(p, []byte(n.body), 0o644); err == nil {
				err = os.Chmod(p, n.mode)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, n := range dirs {
			_ = os.Chmod(filepath.Join(root, n.path), 0o755)
		}
	})
	for _, n := range slices.Backward(dirs) {
		if err := os.Chmod(filepath.Join(root, n.path), n.mode); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// checkErr checks that err is nil when want is 0, and otherwise that it
// carries want inside an *fs.PathError or *os.LinkError.
func checkErr(t *testing.T, err error, want syscall.Errno) {
	t.Helper()
	if want == 0 {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("got no error, want %v", want)
	}
	var pe *fs.PathError
	var le *os.LinkError
	if !errors.As(err, &pe) && !errors.As(err, &le) {
		t.Errorf("error %v (%T) is neither *fs.PathError nor *os.LinkError", err, err)
	}
	var errno syscall.Errno
	if !errors.As(err, &errno) || errno != want {
		t.Fatalf("got error %v, want errno %v", err, want)
	}
	if want == syscall.EACCES && !errors.Is(err, fs.ErrPermission) {
		t.Errorf("errors.Is(%v, fs.ErrPermission) = false", err)
	}
	if want == syscall.ENOENT && !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("errors.Is(%v, fs.ErrNotExist) = false", err)
	}
}

func TestReadDirNamesKeepsRawNames(t *testing.T) {
	root := t.TempDir()
	raw := "caf\xe9\xff" // not UTF-8
	for _, n := range []string{raw, "plain"} {
		if err := os.WriteFile(filepath.Join(root, n), nil, 0o644); err != nil {
			t.Skipf("filesystem refuses name %q: %v", n, err)
		}
	}
	got, err := ReadDirNames(OS(), root)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if want := []string{raw, "plain"}; !slices.Equal(got, want) {
		t.Fatalf("ReadDirNames = %q, want %q", got, want)
	}
}

func TestHelpersOnOS(t *testing.T) {
	root := buildTree(t, []node{
		{path: "f", mode: 0o644},
		{path: "l", link: "f"},
		{path: "dangling", link: "nowhere"},
	})
	tests := []struct {
		name    string
		run     func() error
		wantErr syscall.Errno
	}{
		{"lstat link is a link", func() error {
			fi, err := Lstat(OS(), filepath.Join(root, "l"))
			if err == nil && fi.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("Lstat followed the link: mode %v", fi.Mode())
			}
			return err
		}, 0},
		{"stat link follows", func() error {
			fi, err := Stat(OS(), filepath.Join(root, "l"))
			if err == nil && !fi.Mode().IsRegular() {
				t.Errorf("Stat did not follow the link: mode %v", fi.Mode())
			}
			return err
		}, 0},
		{"readlink", func() error {
			got, err := Readlink(OS(), filepath.Join(root, "l"))
			if err == nil && got != "f" {
				t.Errorf("Readlink = %q, want %q", got, "f")
			}
			return err
		}, 0},
		{"lstat dangling", func() error { _, err := Lstat(OS(), filepath.Join(root, "dangling")); return err }, 0},
		{"stat dangling", func() error { _, err := Stat(OS(), filepath.Join(root, "dangling")); return err }, syscall.ENOENT},
		{"readlink regular file", func() error { _, err := Readlink(OS(), filepath.Join(root, "f")); return err }, syscall.EINVAL},
		{"readdirnames of file", func() error { _, err := ReadDirNames(OS(), filepath.Join(root, "f")); return err }, syscall.ENOTDIR},
		{"readdirnames missing", func() error { _, err := ReadDirNames(OS(), filepath.Join(root, "missing")); return err }, syscall.ENOENT},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkErr(t, tc.run(), tc.wantErr) })
	}
}

func TestLstatRefusesToFollow(t *testing.T) {
	mem := afero.NewMemMapFs()
	if err := afero.WriteFile(mem, "/f", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Lstat(mem, "/f")
	if !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("Lstat on MemMapFs: got %v, want an error wrapping errors.ErrUnsupported", err)
	}
	_, err = Readlink(mem, "/f")
	if !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("Readlink on MemMapFs: got %v, want an error wrapping errors.ErrUnsupported", err)
	}
}

// permFixture is the tree the PermFs tests run against.
func permFixture(t *testing.T) string {
	return buildTree(t, []node{
		{path: "open", dir: true, mode: 0o755},
		{path: "open/f", mode: 0o644, body: "hello"},
		{path: "open/ro", mode: 0o444},
		{path: "open/secret", mode: 0o000},
		{path: "rw", dir: true, mode: 0o777},
		{path: "rw/f", mode: 0o644},
		{path: "ronly", dir: true, mode: 0o444},
		{path: "ronly/child", mode: 0o644},
		{path: "ronly/childdir", dir: true, mode: 0o755},
		{path: "closed", dir: true, mode: 0o000},
		{path: "closed/inner", mode: 0o644},
		{path: "wonly", dir: true, mode: 0o333},
		{path: "wonly/w", mode: 0o666},
		{path: "rx", dir: true, mode: 0o555},
		{path: "rx/file", mode: 0o666},
		{path: "rx/sub", dir: true, mode: 0o777},
		{path: "to-open", link: "open"},
		{path: "to-closed-inner", link: "closed/inner"},
		{path: "abs-to-ronly", link: "$ROOT/ronly"},
		{path: "loop1", link: "loop2"},
		{path: "loop2", link: "loop1"},
		{path: "dangling", link: "nowhere"},
	})
}

func TestPermFs(t *testing.T) {
	root := permFixture(t)
	p := func(rel string) string { return filepath.Join(root, rel) }
	fsys := NewPermFs(OS())
	open := func(rel string, flag int) error {
		f, err := fsys.OpenFile(p(rel), flag, 0o644)
		if err == nil {
			f.Close()
		}
		return err
	}
	names := func(rel string, want ...string) func() error {
		return func() error {
			got, err := ReadDirNames(fsys, p(rel))
			slices.Sort(got)
			if err == nil && !slices.Equal(got, want) {
				t.Errorf("ReadDirNames(%s) = %q, want %q", rel, got, want)
			}
			return err
		}
	}
	readdir := func(rel string) error {
		f, err := fsys.Open(p(rel))
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.Readdir(-1)
		return err
	}
	lstat := func(rel string) error { _, err := Lstat(fsys, p(rel)); return err }
	stat := func(rel string) error { _, err := fsys.Stat(p(rel)); return err }
	readlink := func(rel string) error { _, err := fsys.(afero.LinkReader).ReadlinkIfPossible(p(rel)); return err }

	tests := []struct {
		name    string
		run     func() error
		wantErr syscall.Errno
	}{
		// A 0444 directory can be listed, but nothing inside can be reached.
		{"list 0444 dir", names("ronly", "child", "childdir"), 0},
		{"lstat 0444 dir", func() error { return lstat("ronly") }, 0},
		{"lstat child of 0444 dir", func() error { return lstat("ronly/child") }, syscall.EACCES},
		{"stat child of 0444 dir", func() error { return stat("ronly/childdir") }, syscall.EACCES},
		{"open child of 0444 dir", func() error { return open("ronly/child", os.O_RDONLY) }, syscall.EACCES},
		{"readdir with stat of 0444 dir", func() error { return readdir("ronly") }, syscall.EACCES},
		{"list 0444 dir via absolute link", names("abs-to-ronly", "child", "childdir"), 0},
		{"lstat child via absolute link", func() error { return lstat("abs-to-ronly/child") }, syscall.EACCES},
		// A 0000 directory can be lstat'ed from its parent, nothing more.
		{"lstat 0000 dir", func() error { return lstat("closed") }, 0},
		{"list 0000 dir", names("closed"), syscall.EACCES},
		{"lstat child of 0000 dir", func() error { return lstat("closed/inner") }, syscall.EACCES},
		{"lstat link into 0000 dir", func() error { return lstat("to-closed-inner") }, 0},
		{"readlink link into 0000 dir", func() error { return readlink("to-closed-inner") }, 0},
		{"stat link into 0000 dir", func() error { return stat("to-closed-inner") }, syscall.EACCES},
		// A 0333 directory can be searched and written, not listed.
		{"list 0333 dir", names("wonly"), syscall.EACCES},
		{"read file in 0333 dir", func() error { return open("wonly/w", os.O_RDONLY) }, 0},
		{"create in 0333 dir", func() error { return open("wonly/new", os.O_WRONLY|os.O_CREATE) }, 0},
		// Files.
		{"read 0644 file via relative link", func() error { return open("to-open/f", os.O_RDONLY) }, 0},
		{"read 0000 file", func() error { return open("open/secret", os.O_RDONLY) }, syscall.EACCES},
		{"write 0444 file", func() error { return open("open/ro", os.O_WRONLY) }, syscall.EACCES},
		{"truncate 0444 file", func() error { return open("open/ro", os.O_RDONLY|os.O_TRUNC) }, syscall.EACCES},
		{"write 0666 file in 0555 dir", func() error { return open("rx/file", os.O_WRONLY) }, 0},
		{"create in 0555 dir", func() error { return open("rx/new", os.O_WRONLY|os.O_CREATE) }, syscall.EACCES},
		{"create in 0444 dir", func() error { return open("ronly/new", os.O_WRONLY|os.O_CREATE) }, syscall.EACCES},
		{"create in 0777 dir", func() error { return open("rw/new", os.O_WRONLY|os.O_CREATE) }, 0},
		{"open dir for writing", func() error { return open("open", os.O_WRONLY) }, syscall.EISDIR},
		// Directory changes.
		{"mkdir in 0777 dir", func() error { return fsys.Mkdir(p("rw/d"), 0o755) }, 0},
		{"remove in 0777 dir", func() error { return fsys.Remove(p("rw/d")) }, 0},
		{"mkdir in 0555 dir", func() error { return fsys.Mkdir(p("rx/d"), 0o755) }, syscall.EACCES},
		{"mkdirall under 0555 dir", func() error { return fsys.MkdirAll(p("rx/sub/a"), 0o755) }, 0},
		{"mkdirall through 0555 dir", func() error { return fsys.MkdirAll(p("rx/x/y"), 0o755) }, syscall.EACCES},
		{"remove in 0555 dir", func() error { return fsys.Remove(p("rx/file")) }, syscall.EACCES},
		{"remove missing", func() error { return fsys.Remove(p("open/missing")) }, syscall.ENOENT},
		{"removeall in 0555 dir", func() error { return fsys.RemoveAll(p("rx/sub")) }, syscall.EACCES},
		{"rename within 0777 dir", func() error { return fsys.Rename(p("rw/f"), p("rw/g")) }, 0},
		{"rename into 0444 dir", func() error { return fsys.Rename(p("rw/g"), p("ronly/g")) }, syscall.EACCES},
		{"symlink in 0555 dir", func() error { return fsys.(afero.Linker).SymlinkIfPossible("x", p("rx/l")) }, syscall.EACCES},
		{"link in 0777 dir", func() error { return LinkNoReplace(fsys, p("rw/g"), p("rw/h")) }, 0},
		{"link onto existing name", func() error { return LinkNoReplace(fsys, p("rw/g"), p("rw/h")) }, syscall.EEXIST},
		{"link into 0555 dir", func() error { return LinkNoReplace(fsys, p("rw/g"), p("rx/h")) }, syscall.EACCES},
		{"link from 0000 dir", func() error { return LinkNoReplace(fsys, p("closed/inner"), p("rw/i")) }, syscall.EACCES},
		{"chmod file in 0555 dir", func() error { return fsys.Chmod(p("rx/file"), 0o666) }, 0},
		{"chmod child of 0000 dir", func() error { return fsys.Chmod(p("closed/inner"), 0o644) }, syscall.EACCES},
		// Resolution failures keep their kernel errno.
		{"stat loop", func() error { return stat("loop1") }, syscall.ELOOP},
		{"stat dangling", func() error { return stat("dangling") }, syscall.ENOENT},
		{"lstat dangling", func() error { return lstat("dangling") }, 0},
		{"stat under file", func() error { return stat("open/f/x") }, syscall.ENOTDIR},
		{"lstat under missing", func() error { return lstat("missing/x") }, syscall.ENOENT},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkErr(t, tc.run(), tc.wantErr) })
	}

	t.Run("denial names the requested path", func(t *testing.T) {
		_, err := fsys.Stat(p("ronly/child"))
		var pe *fs.PathError
		if !errors.As(err, &pe) || pe.Op != "stat" || pe.Path != p("ronly/child") || pe.Err != syscall.EACCES {
			t.Fatalf("got %#v, want &fs.PathError{Op: \"stat\", Path: %q, Err: EACCES}", err, p("ronly/child"))
		}
	})
	t.Run("read content through PermFs", func(t *testing.T) {
		got, err := afero.ReadFile(fsys, p("open/f"))
		if err != nil || string(got) != "hello" {
			t.Fatalf("ReadFile = %q, %v; want \"hello\"", got, err)
		}
	})
}

func TestPermFsRelativePath(t *testing.T) {
	root := permFixture(t)
	t.Chdir(root)
	fsys := NewPermFs(OS())
	if _, err := fsys.Stat("open/f"); err != nil {
		t.Errorf("Stat(open/f): %v", err)
	}
	_, err := fsys.Stat("ronly/child")
	checkErr(t, err, syscall.EACCES)
}

func TestFaultFs(t *testing.T) {
	root := buildTree(t, []node{
		{path: "a", mode: 0o644, body: "a"},
		{path: "d", dir: true, mode: 0o755},
		{path: "d/x", mode: 0o644},
		{path: "l", link: "a"},
	})
	p := func(rel string) string { return filepath.Join(root, rel) }
	fsys := NewFaultFs(OS(), []Fault{
		{Op: OpLstat, Path: p("a"), Err: syscall.EACCES},
		{Op: OpStat, Path: p("a"), Err: syscall.EIO},
		{Op: OpReaddir, Path: p("d"), Err: syscall.EIO},
		{Op: OpOpen, Path: p("d/x") + "/", Err: syscall.EPERM},
		{Op: OpReadlink, Path: p("l"), Err: syscall.ENOENT},
		{Op: OpStat, Path: p("a"), Err: syscall.ENOTDIR}, // shadowed by the first stat fault
	})
	tests := []struct {
		name    string
		run     func() error
		wantErr syscall.Errno
	}{
		{"lstat fault", func() error { _, err := Lstat(fsys, p("a")); return err }, syscall.EACCES},
		{"lstat fault on uncleaned name", func() error { _, err := Lstat(fsys, p("d/../a")); return err }, syscall.EACCES},
		{"stat fault, first wins", func() error { _, err := fsys.Stat(p("a")); return err }, syscall.EIO},
		{"readdir fault", func() error { _, err := ReadDirNames(fsys, p("d")); return err }, syscall.EIO},
		{"open of faulted dir succeeds", func() error {
			f, err := fsys.Open(p("d"))
			if err == nil {
				f.Close()
			}
			return err
		}, 0},
		{"open fault", func() error { _, err := fsys.Open(p("d/x")); return err }, syscall.EPERM},
		{"readlink fault", func() error { _, err := Readlink(fsys, p("l")); return err }, syscall.ENOENT},
		{"lstat of unfaulted link", func() error { _, err := Lstat(fsys, p("l")); return err }, 0},
		{"fault does not reach descendants", func() error { _, err := fsys.Stat(p("d/x")); return err }, 0},
		{"read of unfaulted file", func() error {
			got, err := afero.ReadFile(fsys, p("l"))
			if err == nil && string(got) != "a" {
				t.Errorf("ReadFile = %q, want \"a\"", got)
			}
			return err
		}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkErr(t, tc.run(), tc.wantErr) })
	}
}

func TestFaultFsOverPermFs(t *testing.T) {
	root := permFixture(t)
	fsys := NewFaultFs(NewPermFs(OS()), []Fault{{Op: OpStat, Path: filepath.Join(root, "open"), Err: syscall.EIO}})
	_, err := fsys.Stat(filepath.Join(root, "open"))
	checkErr(t, err, syscall.EIO)
	_, err = Lstat(fsys, filepath.Join(root, "ronly/child"))
	checkErr(t, err, syscall.EACCES)
}

func TestParseErrno(t *testing.T) {
	tests := []struct {
		in      string
		want    syscall.Errno
		wantErr bool
	}{
		{"EACCES", syscall.EACCES, false},
		{"EPERM", syscall.EPERM, false},
		{"ENOENT", syscall.ENOENT, false},
		{"EIO", syscall.EIO, false},
		{"ELOOP", syscall.ELOOP, false},
		{"ENOTDIR", syscall.ENOTDIR, false},
		{"ENOSPC", syscall.ENOSPC, false},
		{"eacces", 0, true},
		{"EBUSY", 0, true},
		{"", 0, true},
	}
	for _, tc := range tests {
		got, err := ParseErrno(tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("ParseErrno(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestFaultValidate(t *testing.T) {
	tests := []struct {
		f       Fault
		wantErr bool
	}{
		{Fault{Op: OpOpen, Path: "/x", Err: syscall.EIO}, false},
		{Fault{Op: "truncate", Path: "/x", Err: syscall.EIO}, true},
		{Fault{Op: OpWrite, Path: "/x", Err: syscall.EIO, Nth: 3, Delay: time.Second}, false},
		{Fault{Op: OpFsync, Path: "/x", Err: syscall.EIO}, false},
		{Fault{Op: OpWrite, Path: "/x", Err: syscall.EIO, Nth: -1}, true},
		{Fault{Op: OpRename, Path: "/x", Err: syscall.EIO, Nth: 2}, true},
		{Fault{Op: OpOpen, Path: "/x", Err: syscall.EIO, Delay: time.Second}, false},
		{Fault{Op: OpReaddir, Path: "/x", Err: syscall.EIO, Delay: time.Second}, false},
		{Fault{Op: OpReaddir, Path: "/x", Err: syscall.EIO, Nth: 2}, true},
		{Fault{Op: OpLstat, Path: "/x", Err: syscall.EIO, Delay: time.Second}, true},
		{Fault{Op: OpOpen, Path: "/x", Err: syscall.EIO, Delay: -time.Second}, true},
		{Fault{Op: OpOpenWrite, Path: "/x", Err: syscall.EIO}, false},
		{Fault{Op: OpRename, Path: "/x", Err: syscall.EIO}, false},
		{Fault{Op: OpLink, Path: "/x", Err: syscall.EIO}, false},
		{Fault{Op: OpOpen, Path: "x", Err: syscall.EIO}, true},
		{Fault{Op: OpOpen, Path: "/x"}, true},
		{Fault{Op: OpReaddir, Path: "/x", Delay: time.Second}, false}, // a slow listing
		{Fault{Op: OpReaddir, Path: "/x"}, true},
		{Fault{Op: OpOpen, Path: "/x", Delay: time.Second}, true},
	}
	for _, tc := range tests {
		if err := tc.f.Validate(); (err != nil) != tc.wantErr {
			t.Errorf("%+v.Validate() = %v, want error %v", tc.f, err, tc.wantErr)
		}
	}
}

func TestLinkNoReplace(t *testing.T) {
	root := buildTree(t, []node{
		{path: "src", mode: 0o600, body: "data"},
		{path: "taken", mode: 0o644, body: "keep"},
		{path: "dangling", link: "nowhere"},
	})
	p := func(rel string) string { return filepath.Join(root, rel) }
	tests := []struct {
		name    string
		fsys    afero.Fs
		newname string
		wantErr syscall.Errno
	}{
		{"new name", OS(), "fresh", 0},
		{"existing file kept", OS(), "taken", syscall.EEXIST},
		{"dangling symlink not followed", OS(), "dangling", syscall.EEXIST},
		{"missing directory", OS(), "nodir/x", syscall.ENOENT},
		{"through FaultFs", NewFaultFs(OS(), nil), "fresh2", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkErr(t, LinkNoReplace(tc.fsys, p("src"), p(tc.newname)), tc.wantErr) })
	}
	for _, name := range []string{"fresh", "fresh2"} {
		if got, err := os.ReadFile(p(name)); err != nil || string(got) != "data" {
			t.Errorf("%s = %q, %v; want the linked content", name, got, err)
		}
	}
	if got, _ := os.ReadFile(p("taken")); string(got) != "keep" {
		t.Errorf("taken was replaced: %q", got)
	}
	if _, err := os.Lstat(p("nowhere")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the dangling link's target was created: %v", err)
	}
	err := LinkNoReplace(afero.NewMemMapFs(), "/a", "/b")
	var le *os.LinkError
	if !errors.Is(err, errors.ErrUnsupported) || !errors.As(err, &le) {
		t.Errorf("LinkNoReplace on MemMapFs = %v, want an *os.LinkError wrapping errors.ErrUnsupported", err)
	}
}

func TestFaultFsWriteOps(t *testing.T) {
	root := buildTree(t, []node{
		{path: "a", mode: 0o644, body: "a"},
		{path: "b", mode: 0o644, body: "b"},
	})
	p := func(rel string) string { return filepath.Join(root, rel) }
	fsys := NewFaultFs(OS(), []Fault{
		{Op: OpOpenWrite, Path: p("a"), Err: syscall.EIO},
		{Op: OpOpenWrite, Path: p("new"), Err: syscall.EACCES},
		{Op: OpRename, Path: p("b"), Err: syscall.EIO},
		{Op: OpLink, Path: p("linked"), Err: syscall.EPERM},
	})
	open := func(rel string, flag int) func() error {
		return func() error {
			f, err := fsys.OpenFile(p(rel), flag, 0o644)
			if err == nil {
				f.Close()
			}
			return err
		}
	}
	tests := []struct {
		name    string
		run     func() error
		wantErr syscall.Errno
	}{
		{"read open not an openwrite", open("a", os.O_RDONLY), 0},
		{"write open", open("a", os.O_WRONLY), syscall.EIO},
		{"append open", open("a", os.O_RDONLY|os.O_APPEND), syscall.EIO},
		{"create", open("new", os.O_WRONLY|os.O_CREATE|os.O_EXCL), syscall.EACCES},
		{"Create", func() error { _, err := fsys.Create(p("new")); return err }, syscall.EACCES},
		{"other file writable", open("b", os.O_WRONLY), 0},
		{"rename onto faulted name", func() error { return fsys.Rename(p("a"), p("b")) }, syscall.EIO},
		{"rename from faulted name", func() error { return fsys.Rename(p("b"), p("c")) }, syscall.EIO},
		{"link to faulted name", func() error { return LinkNoReplace(fsys, p("a"), p("linked")) }, syscall.EPERM},
		{"link elsewhere", func() error { return LinkNoReplace(fsys, p("a"), p("other")) }, 0},
		{"rename elsewhere", func() error { return fsys.Rename(p("other"), p("moved")) }, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkErr(t, tc.run(), tc.wantErr) })
	}
	for name, want := range map[string]string{"a": "a", "b": "b", "moved": "a"} {
		if got, err := os.ReadFile(p(name)); err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	var pe *fs.PathError
	if _, err := fsys.OpenFile(p("a"), os.O_WRONLY, 0); !errors.As(err, &pe) || pe.Op != "open" {
		t.Errorf("openwrite fault = %#v, want an *fs.PathError with Op \"open\"", err)
	}
}

func TestErrText(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&fs.PathError{Op: "open", Path: "/x/y", Err: syscall.EACCES}, "permission denied"},
		{&os.LinkError{Op: "rename", Old: "/a", New: "/b", Err: syscall.EXDEV}, "invalid cross-device link"},
		{syscall.EIO, "input/output error"},
		{&fs.PathError{Op: "open", Path: "/x", Err: fs.ErrNotExist}, "file does not exist"},
		{&os.LinkError{Op: "link", Old: "/a", New: "/b", Err: fs.ErrExist}, "file already exists"},
		{errors.New("plain"), "plain"},
	}
	for _, tt := range tests {
		if got := ErrText(tt.err); got != tt.want {
			t.Errorf("ErrText(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestJoinRel(t *testing.T) {
	for _, tt := range []struct{ dir, name, want string }{{"", "a", "a"}, {"a", "b", "a/b"}, {"a/b", ".c", "a/b/.c"}} {
		if got := JoinRel(tt.dir, tt.name); got != tt.want {
			t.Errorf("JoinRel(%q, %q) = %q, want %q", tt.dir, tt.name, got, tt.want)
		}
	}
}

func TestFaultFsCountsWrites(t *testing.T) {
	root := buildTree(t, []node{
		{path: "d", dir: true, mode: 0o755},
		{path: "d/old", mode: 0o644, body: "old"},
		{path: "e", dir: true, mode: 0o755},
	})
	p := func(rel string) string { return filepath.Join(root, rel) }
	fsys := NewFaultFs(OS(), []Fault{
		{Op: OpWrite, Path: p("d"), Err: syscall.ENOSPC, Nth: 2},
		{Op: OpFsync, Path: root, Err: syscall.EIO, Nth: 3, Delay: 50 * time.Millisecond},
	})
	open := func(rel string, flag int) afero.File {
		t.Helper()
		f, err := fsys.OpenFile(p(rel), flag, 0o644)
		if err != nil {
			t.Fatalf("OpenFile(%s): %v", rel, err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	const create = os.O_WRONLY | os.O_CREATE | os.O_EXCL
	first, second, third := open("d/t1", create), open("d/old", os.O_WRONLY|os.O_TRUNC), open("d/t3", create)
	outside := open("e/x", create)
	if _, err := second.WriteString(""); err != nil {
		t.Errorf("an empty write neither counts nor fails: %v", err)
	}
	if _, err := outside.Write([]byte("x")); err != nil {
		t.Errorf("a write outside the fault's dir: %v", err)
	}
	if _, err := first.Write([]byte("1")); err != nil {
		t.Errorf("file 1's write: %v", err)
	}
	_, err := second.WriteString("2")
	checkErr(t, err, syscall.ENOSPC)
	_, err = second.WriteAt([]byte("2"), 0)
	checkErr(t, err, syscall.ENOSPC) // every write of the Nth file fails
	if _, err := third.Write([]byte("3")); err != nil {
		t.Errorf("file 3's write: %v", err)
	}
	if _, err := first.Write([]byte("more")); err != nil {
		t.Errorf("file 1's second write: %v", err)
	}
	// Syncs are numbered on their own: outside (1), first (2), third (3).
	for _, f := range []afero.File{outside, first} {
		if err := f.Sync(); err != nil {
			t.Errorf("Sync(%s): %v", f.Name(), err)
		}
	}
	start := time.Now()
	checkErr(t, third.Sync(), syscall.EIO)
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("the failing sync returned after %v, want the 50ms delay", d)
	}
	if d, err := fsys.Open(root); err != nil || d.Sync() != nil {
		t.Errorf("a directory is never counted: %v", err)
	}
	if got, _ := os.ReadFile(p("d/t1")); string(got) != "1more" {
		t.Errorf("d/t1 = %q, want the unfaulted writes", got)
	}
}

// TestFaultFsDelays: a delayed open fault waits before every open of its
// path fails; a delayed readdir fault's directory opens at once and its
// listing waits before it fails; other paths open.
func TestFaultFsDelays(t *testing.T) {
	root := buildTree(t, []node{
		{path: "d", dir: true, mode: 0o755},
		{path: "d/x", mode: 0o644, body: "x"},
		{path: "f", mode: 0o644, body: "f"},
	})
	p := func(rel string) string { return filepath.Join(root, rel) }
	const delay = 50 * time.Millisecond
	fsys := NewFaultFs(OS(), []Fault{
		{Op: OpOpen, Path: p("f"), Err: syscall.EIO, Delay: delay},
		{Op: OpReaddir, Path: p("d"), Err: syscall.EACCES, Delay: delay},
	})
	timed := func(what string, op func() error, want syscall.Errno, slow bool) {
		t.Helper()
		start := time.Now()
		err := op()
		took := time.Since(start)
		checkErr(t, err, want)
		if slow && took < delay {
			t.Errorf("%s returned after %v, before its %v delay", what, took, delay)
		}
	}
	timed("open f", func() error { _, err := fsys.Open(p("f")); return err }, syscall.EIO, true)
	timed("open f again", func() error { _, err := fsys.OpenFile(p("f"), os.O_RDONLY, 0); return err }, syscall.EIO, true)
	var dir afero.File
	timed("open d", func() error { var err error; dir, err = fsys.Open(p("d")); return err }, 0, false)
	if dir != nil {
		defer dir.Close()
		timed("list d", func() error { _, err := dir.Readdirnames(-1); return err }, syscall.EACCES, true)
	}
	timed("open d/x", func() error {
		f, err := fsys.Open(p("d/x"))
		if err == nil {
			f.Close()
		}
		return err
	}, 0, false)
}

// TestFaultFsSlowListingAndOps: a readdir fault without an error is a slow
// listing, served after its delay on the first read of each open; the
// FaultFs counts the operations that name a path, and the reading of a
// faulted listing as one.
func TestFaultFsSlowListingAndOps(t *testing.T) {
	root := buildTree(t, []node{
		{path: "d", dir: true, mode: 0o755},
		{path: "d/x", mode: 0o644, body: "x"},
		{path: "f", mode: 0o644, body: "f"},
	})
	p := func(rel string) string { return filepath.Join(root, rel) }
	const delay = 50 * time.Millisecond
	ffs := NewFaultFs(OS(), []Fault{{Op: OpReaddir, Path: p("d"), Delay: delay}}).(*FaultFs)
	if n := ffs.Ops(); n != 0 {
		t.Fatalf("Ops() = %d before any operation, want 0", n)
	}
	dir, err := ffs.Open(p("d"))
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	start := time.Now()
	names, err := dir.Readdirnames(-1)
	if took := time.Since(start); err != nil || took < delay || len(names) != 1 || names[0] != "x" {
		t.Errorf("slow listing: %q, %v after %v; want [x] after at least %v", names, err, took, delay)
	}
	if _, err := ffs.Stat(p("f")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ffs.LstatIfPossible(p("d/x")); err != nil {
		t.Fatal(err)
	}
	// open d, its listing, stat f, lstat d/x
	if n := ffs.Ops(); n != 4 {
		t.Errorf("Ops() = %d, want 4", n)
	}
}
