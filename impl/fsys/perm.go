package fsys

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/afero"
)

// maxSymlinks is the number of symlinks a single path resolution may follow
// before failing with ELOOP, as on Linux.
const maxSymlinks = 40

// access is a set of permission bits as they appear in one rwx triad.
type access uint32

const (
	mayExec  access = 1
	mayWrite access = 2
	mayRead  access = 4
)

// permits reports whether fi's mode grants every bit of want to the
// emulated user: the owner triad if the user owns the file, the group triad
// if the file's group is the user's, the "other" triad otherwise (the
// kernel's rule, without supplementary groups).
func (p *PermFs) permits(fi fs.FileInfo, want access) bool {
	perm := access(fi.Mode().Perm())
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		switch {
		case int(st.Uid) == p.uid:
			perm >>= 6
		case int(st.Gid) == p.gid:
			perm >>= 3
		}
	}
	return perm&7&want == want
}

// PermFs wraps a filesystem and, before delegating an operation, applies the
// permission checks the kernel would apply to an unprivileged user (uid and
// gid given to NewPermFsAs; NewPermFs emulates nobody, 65534:65534): the
// owner, group or "other" rwx bits of the real modes decide, as for that
// user. Running as root, it therefore reproduces what the unprivileged user
// sees, on trees chowned to it (as the runner does) or not.
//
// The rules, checked against the base filesystem's lstat results:
//   - resolving a path needs search (x) on every directory passed through,
//     starting at "/" and following symlinks met on the way (at most 40);
//   - Lstat, Stat and Readlink need nothing more than resolution;
//   - opening for reading needs r on the file or directory, opening for
//     writing (or with O_TRUNC) needs w on an existing file, and creating a
//     file needs w+x on the directory it is created in;
//   - Readdir (which stats entries) also needs x on the directory, while
//     Readdirnames needs only the r checked at open;
//   - Mkdir, Remove, Symlink, Rename and LinkNoReplace need w+x on the
//     parent directories they create in or remove from, and moving a
//     directory to another parent needs w on it;
//   - Chmod, Chown and Chtimes need only resolution, as for the owner.
//
// Sticky bits, ACLs and capabilities are not modelled. Denials are
// *fs.PathError values (or *os.LinkError for Rename and LinkNoReplace)
// carrying syscall.EACCES;
// relative names are made absolute with the process working directory.
// The base filesystem must be able to lstat (see Lstat).
type PermFs struct {
	base     afero.Fs
	uid, gid int
}

// Base returns the filesystem p wraps.
func (p *PermFs) Base() afero.Fs { return p.base }

// NewPermFs returns a PermFs over base.
func NewPermFs(base afero.Fs) afero.Fs { return NewPermFsAs(base, 65534, 65534) }

// NewPermFsAs returns a PermFs emulating the user uid:gid.
func NewPermFsAs(base afero.Fs, uid, gid int) afero.Fs {
	return &PermFs{base: base, uid: uid, gid: gid}
}

var (
	_ afero.Fs        = (*PermFs)(nil)
	_ afero.Symlinker = (*PermFs)(nil)
	_ NoReplaceLinker = (*PermFs)(nil)
)

// Name implements afero.Fs.
func (p *PermFs) Name() string { return "PermFs" }

// Lstat returns the FileInfo of name without following a final symlink.
func (p *PermFs) Lstat(name string) (fs.FileInfo, error) {
	if _, err := p.resolve("lstat", name, false); err != nil {
		return nil, err
	}
	return Lstat(p.base, name)
}

// LstatIfPossible implements afero.Lstater; it always lstats.
func (p *PermFs) LstatIfPossible(name string) (fs.FileInfo, bool, error) {
	fi, err := p.Lstat(name)
	return fi, true, err
}

// Stat implements afero.Fs.
func (p *PermFs) Stat(name string) (fs.FileInfo, error) {
	if _, err := p.resolve("stat", name, true); err != nil {
		return nil, err
	}
	return p.base.Stat(name)
}

// ReadlinkIfPossible implements afero.LinkReader.
func (p *PermFs) ReadlinkIfPossible(name string) (string, error) {
	if _, err := p.resolve("readlink", name, false); err != nil {
		return "", err
	}
	return Readlink(p.base, name)
}

// SymlinkIfPossible implements afero.Linker.
func (p *PermFs) SymlinkIfPossible(oldname, newname string) error {
	linkErr := func(err error) error {
		return &os.LinkError{Op: "symlink", Old: oldname, New: newname, Err: err}
	}
	target, err := p.resolve("symlink", newname, false)
	if err != nil {
		return linkErr(errnoOf(err))
	}
	if err := p.need(filepath.Dir(target), mayWrite|mayExec); err != nil {
		return linkErr(errnoOf(err))
	}
	l, ok := p.base.(afero.Linker)
	if !ok {
		return linkErr(afero.ErrNoSymlink)
	}
	if err := l.SymlinkIfPossible(oldname, newname); err != nil {
		return err
	}
	p.own(target)
	return nil
}

// own gives an entry the emulated user just created to that user, as the
// kernel would: later permission checks then see the owner's triad. It
// needs root (the only case PermFs is used in) and is best effort.
func (p *PermFs) own(path string) {
	if os.Geteuid() == 0 {
		_ = os.Lchown(path, p.uid, p.gid)
	}
}

// Open implements afero.Fs.
func (p *PermFs) Open(name string) (afero.File, error) {
	return p.OpenFile(name, os.O_RDONLY, 0)
}

// Create implements afero.Fs.
func (p *PermFs) Create(name string) (afero.File, error) {
	return p.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

// OpenFile implements afero.Fs.
func (p *PermFs) OpenFile(name string, flag int, perm fs.FileMode) (afero.File, error) {
	target, err := p.resolve("open", name, flag&syscall.O_NOFOLLOW == 0)
	if err != nil {
		return nil, err
	}
	var want access
	switch flag & (os.O_RDONLY | os.O_WRONLY | os.O_RDWR) {
	case os.O_RDONLY:
		want = mayRead
	case os.O_WRONLY:
		want = mayWrite
	default:
		want = mayRead | mayWrite
	}
	if flag&os.O_TRUNC != 0 {
		want |= mayWrite
	}
	fi, err := Lstat(p.base, target)
	created := false
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if flag&os.O_CREATE != 0 {
			created = true
			if err := p.need(filepath.Dir(target), mayWrite|mayExec); err != nil {
				return nil, p.fail("open", name, err)
			}
		}
		// Otherwise the base reports ENOENT.
	case err != nil:
		return nil, p.fail("open", name, err)
	case flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL:
		// The base reports EEXIST, which the kernel checks first.
	case fi.IsDir() && want&mayWrite != 0:
		// The base reports EISDIR, which the kernel checks first.
	case !p.permits(fi, want):
		return nil, p.fail("open", name, syscall.EACCES)
	}
	f, err := p.base.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	if created {
		p.own(target)
	}
	return &permFile{File: f, fs: p, resolved: target}, nil
}

// Mkdir implements afero.Fs.
func (p *PermFs) Mkdir(name string, perm fs.FileMode) error {
	target, err := p.resolve("mkdir", name, false)
	if err != nil {
		return err
	}
	if _, err := Lstat(p.base, target); err == nil {
		return p.base.Mkdir(name, perm) // reports EEXIST
	}
	if err := p.need(filepath.Dir(target), mayWrite|mayExec); err != nil {
		return p.fail("mkdir", name, err)
	}
	if err := p.base.Mkdir(name, perm); err != nil {
		return err
	}
	p.own(target)
	return nil
}

// MkdirAll implements afero.Fs, creating each missing directory through
// Mkdir so every step is checked.
func (p *PermFs) MkdirAll(path string, perm fs.FileMode) error {
	if fi, err := p.Stat(path); err == nil {
		if fi.IsDir() {
			return nil
		}
		return &fs.PathError{Op: "mkdir", Path: path, Err: syscall.ENOTDIR}
	}
	abs, err := absPath(path)
	if err != nil {
		return &fs.PathError{Op: "mkdir", Path: path, Err: err}
	}
	if parent := filepath.Dir(abs); parent != abs {
		if err := p.MkdirAll(parent, perm); err != nil {
			return err
		}
	}
	if err := p.Mkdir(path, perm); err != nil {
		if fi, lerr := p.Lstat(path); lerr == nil && fi.IsDir() {
			return nil
		}
		return err
	}
	return nil
}

// Remove implements afero.Fs.
func (p *PermFs) Remove(name string) error {
	target, err := p.resolve("remove", name, false)
	if err != nil {
		return err
	}
	if _, err := Lstat(p.base, target); err != nil {
		return p.base.Remove(name) // reports the lookup failure
	}
	if err := p.need(filepath.Dir(target), mayWrite|mayExec); err != nil {
		return p.fail("remove", name, err)
	}
	return p.base.Remove(name)
}

// RemoveAll implements afero.Fs, walking the tree through the PermFs so every
// listing and removal is checked. A missing path is not an error.
func (p *PermFs) RemoveAll(path string) error {
	fi, err := p.Lstat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	if fi.IsDir() {
		names, err := ReadDirNames(p, path)
		if err != nil {
			return err
		}
		for _, n := range names {
			if err := p.RemoveAll(filepath.Join(path, n)); err != nil {
				return err
			}
		}
	}
	if err := p.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Rename implements afero.Fs.
func (p *PermFs) Rename(oldname, newname string) error {
	linkErr := func(err error) error {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: errnoOf(err)}
	}
	src, err := p.resolve("rename", oldname, false)
	if err != nil {
		return linkErr(err)
	}
	dst, err := p.resolve("rename", newname, false)
	if err != nil {
		return linkErr(err)
	}
	fi, err := Lstat(p.base, src)
	if err != nil {
		return p.base.Rename(oldname, newname) // reports the lookup failure
	}
	if err := p.need(filepath.Dir(src), mayWrite|mayExec); err != nil {
		return linkErr(err)
	}
	if err := p.need(filepath.Dir(dst), mayWrite|mayExec); err != nil {
		return linkErr(err)
	}
	if fi.IsDir() && filepath.Dir(src) != filepath.Dir(dst) && !p.permits(fi, mayWrite) {
		return linkErr(syscall.EACCES)
	}
	return p.base.Rename(oldname, newname)
}

// LinkNoReplace implements NoReplaceLinker: like link(2), it needs w+x on
// the directory newname is created in (and resolution of both names).
func (p *PermFs) LinkNoReplace(oldname, newname string) error {
	linkErr := func(err error) error {
		return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: errnoOf(err)}
	}
	if _, err := p.resolve("link", oldname, false); err != nil {
		return linkErr(err)
	}
	dst, err := p.resolve("link", newname, false)
	if err != nil {
		return linkErr(err)
	}
	if err := p.need(filepath.Dir(dst), mayWrite|mayExec); err != nil {
		return linkErr(err)
	}
	return LinkNoReplace(p.base, oldname, newname)
}

// Chmod implements afero.Fs.
func (p *PermFs) Chmod(name string, mode fs.FileMode) error {
	if _, err := p.resolve("chmod", name, true); err != nil {
		return err
	}
	return p.base.Chmod(name, mode)
}

// Chown implements afero.Fs.
func (p *PermFs) Chown(name string, uid, gid int) error {
	if _, err := p.resolve("chown", name, true); err != nil {
		return err
	}
	return p.base.Chown(name, uid, gid)
}

// Chtimes implements afero.Fs.
func (p *PermFs) Chtimes(name string, atime, mtime time.Time) error {
	if _, err := p.resolve("chtimes", name, true); err != nil {
		return err
	}
	return p.base.Chtimes(name, atime, mtime)
}

// resolve walks name the way the kernel's path lookup does, checking search
// permission on every directory it passes through, and returns the absolute
// path of the object name designates with every symlink before the last
// component resolved (and the last one too when followLast). A missing last
// component is not an error: the returned path is where it would be.
func (p *PermFs) resolve(op, name string, followLast bool) (string, error) {
	abs, err := absPath(name)
	if err != nil {
		return "", &fs.PathError{Op: op, Path: name, Err: err}
	}
	pending := splitPath(abs)
	cur := "/"
	var curInfo fs.FileInfo // cur's Lstat when the walk has it; nil: not yet
	links := 0
	for len(pending) > 0 {
		c := pending[0]
		pending = pending[1:]
		if err := p.needInfo(cur, curInfo, mayExec); err != nil {
			return "", p.fail(op, name, err)
		}
		if c == "." {
			continue
		}
		if c == ".." {
			cur, curInfo = filepath.Dir(cur), nil
			continue
		}
		next := filepath.Join(cur, c)
		last := len(pending) == 0
		if last && !followLast {
			return next, nil
		}
		fi, err := Lstat(p.base, next)
		if err != nil {
			if last && errors.Is(err, fs.ErrNotExist) {
				return next, nil
			}
			return "", p.fail(op, name, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur, curInfo = next, fi // the next round's search check needs no second lstat
			continue
		}
		links++
		if links > maxSymlinks {
			return "", p.fail(op, name, syscall.ELOOP)
		}
		dest, err := Readlink(p.base, next)
		if err != nil {
			return "", p.fail(op, name, err)
		}
		if filepath.IsAbs(dest) {
			cur, curInfo = "/", nil
		}
		pending = append(splitPath(dest), pending...)
	}
	return cur, nil
}

// need checks that dir is a directory whose "other" triad grants want.
func (p *PermFs) need(dir string, want access) error { return p.needInfo(dir, nil, want) }

// needInfo is need with dir's Lstat already at hand (nil: lstat it).
func (p *PermFs) needInfo(dir string, fi fs.FileInfo, want access) error {
	if fi == nil {
		var err error
		if fi, err = Lstat(p.base, dir); err != nil {
			return err
		}
	}
	if !fi.IsDir() {
		return syscall.ENOTDIR
	}
	if !p.permits(fi, want) {
		return syscall.EACCES
	}
	return nil
}

// fail reports err for op on name the way the kernel would: a *fs.PathError
// naming the path the caller gave and carrying the bare errno.
func (p *PermFs) fail(op, name string, err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return &fs.PathError{Op: op, Path: name, Err: errno}
	}
	return err
}

// errnoOf returns the syscall.Errno inside err, or err itself.
func errnoOf(err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return err
}

// absPath cleans name and makes it absolute with the process working directory.
func absPath(name string) (string, error) {
	if filepath.IsAbs(name) {
		return filepath.Clean(name), nil
	}
	return filepath.Abs(name)
}

// splitPath returns the non-empty components of a slash-separated path.
func splitPath(p string) []string {
	parts := strings.Split(p, "/")
	out := parts[:0]
	for _, s := range parts {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// permFile is a file opened through a PermFs. Readdir stats every entry, so
// it needs search permission on the directory, which the open did not check.
type permFile struct {
	afero.File
	fs       *PermFs
	resolved string
}

// Readdir implements afero.File, failing like os.File.Readdir does when the
// entries cannot be lstat'ed.
func (f *permFile) Readdir(count int) ([]fs.FileInfo, error) {
	if err := f.fs.need(f.resolved, mayExec); err != nil {
		names, rerr := f.File.Readdirnames(count)
		if len(names) == 0 {
			return nil, rerr
		}
		return nil, &fs.PathError{Op: "lstat", Path: f.File.Name() + "/" + names[0], Err: errnoOf(err)}
	}
	return f.File.Readdir(count)
}
