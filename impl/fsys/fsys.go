// Package fsys holds the filesystem helpers the reference tools and the
// sandbox use on top of afero.Fs, plus two wrapping filesystems for fixtures:
//
//   - PermFs (NewPermFs) makes a process running as root see the permission
//     checks an unprivileged user would see, so permission fixtures behave the
//     same whether the suite runs as root or not.
//   - FaultFs (NewFaultFs) injects errors for chosen operations on chosen
//     paths.
//
// Every error returned here stays inspectable: errors.Is with fs.ErrNotExist
// or fs.ErrPermission works, and errors.As finds the *fs.PathError and the
// syscall.Errno inside it.
package fsys

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/spf13/afero"
)

// OS returns the real operating-system filesystem.
func OS() afero.Fs { return afero.NewOsFs() }

// Lstat returns the FileInfo of name without following a final symlink.
//
// fsys must implement afero.Lstater and actually lstat; a filesystem that can
// only stat (afero's MemMapFs, for instance) yields an error wrapping
// errors.ErrUnsupported rather than a silently followed result.
func Lstat(fsys afero.Fs, name string) (fs.FileInfo, error) {
	if l, ok := fsys.(afero.Lstater); ok {
		fi, lstatCalled, err := l.LstatIfPossible(name)
		if lstatCalled {
			return fi, err
		}
	}
	return nil, &fs.PathError{Op: "lstat", Path: name, Err: unsupported(fsys, "lstat")}
}

// Readlink returns the target of the symlink name as stored, without
// resolving it. fsys must implement afero.LinkReader.
func Readlink(fsys afero.Fs, name string) (string, error) {
	if r, ok := fsys.(afero.LinkReader); ok {
		return r.ReadlinkIfPossible(name)
	}
	return "", &fs.PathError{Op: "readlink", Path: name, Err: unsupported(fsys, "readlink")}
}

// Stat returns the FileInfo of name, following symlinks.
func Stat(fsys afero.Fs, name string) (fs.FileInfo, error) {
	return fsys.Stat(name)
}

// ReadDirNames returns the names of the entries of dir in the order the
// filesystem yields them, byte for byte (names that are not valid UTF-8 are
// kept). It does not stat the entries, so it works on a directory that grants
// read but not search permission.
func ReadDirNames(fsys afero.Fs, dir string) (names []string, err error) {
	f, err := fsys.Open(dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			names, err = nil, cerr
		}
	}()
	names, err = f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	return names, nil
}

func unsupported(fsys afero.Fs, op string) error {
	return fmt.Errorf("filesystem %s cannot %s without following symlinks; use an afero.OsFs (or a wrapper that delegates to one): %w",
		fsys.Name(), op, errors.ErrUnsupported)
}
