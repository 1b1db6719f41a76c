//go:build linux

package listdir

import (
	"io/fs"
	"time"

	"golang.org/x/sys/unix"
)

// statNames lstats the names of the directory dir on the operating
// system's filesystem relative to the open directory (one fstatat each,
// no path lookup from the root), as fsys.Lstat on afero.OsFs would. When
// the directory cannot be opened the names stay unstatted and visit
// lstats them itself.
func statNames(dir string, names []name) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	for i := range names {
		n := &names[i]
		var st unix.Stat_t
		for {
			err = unix.Fstatat(fd, n.raw, &st, unix.AT_SYMLINK_NOFOLLOW)
			if err != unix.EINTR {
				break
			}
		}
		if err != nil {
			n.err = &fs.PathError{Op: "lstat", Path: dir + "/" + n.raw, Err: err}
		} else {
			n.info = &statInfo{name: n.raw, st: st}
		}
		n.statted = true
	}
}

// statInfo is an fs.FileInfo from lstat, as os.Lstat builds it.
type statInfo struct {
	name string
	st   unix.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.st.Size }
func (s *statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Unix()) }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) Sys() any           { return &s.st }

// Mode is os's conversion of st_mode (os/stat_linux.go).
func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & unix.S_IFMT {
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	}
	if s.st.Mode&unix.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.st.Mode&unix.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.st.Mode&unix.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
