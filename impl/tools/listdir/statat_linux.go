//go:build linux

package listdir

import (
	"io/fs"
	"time"

	"golang.org/x/sys/unix"

	"github.com/forge-conform/forge-conform/impl/fsys"
)

// osFastPath reports that readDirOS is available.
const osFastPath = true

// readDirOS reads the directory dir on the operating system's filesystem
// (afero.OsFs, nothing wrapped around it) with plain system calls: open,
// getdents into buf (fsys.ReadDirFd), one fstatat per name relative to the
// open directory (no path lookup from the root), close. It returns the
// names sorted (sortedNames), converted by conv. Names, failures and their texts are those of
// fsys.ReadDirNames and fsys.Lstat through afero.OsFs. Hidden names are
// left out unless includeHidden: the walk neither lists nor enters them
// (FR-LD-LST-06), so they need no lstat. A name whose lstat fails carries
// the error.
func readDirOS(dir string, includeHidden bool, conv func(string) string, buf *dirBuf) (names []name, err error) {
	fd, err := fsys.OpenDirFd(dir)
	if err != nil {
		return nil, err
	}
	// The names go into one string, each a substring: one allocation.
	text, ends := buf.text[:0], buf.ends[:0]
	err = fsys.ReadDirFd(fd, dir, &buf.dirents, func(b []byte, _ fs.FileMode, _ bool) error {
		if b[0] == '.' && !includeHidden {
			return nil
		}
		text = append(text, b...)
		ends = append(ends, len(text))
		return nil
	})
	if err == nil {
		all, raws, start := string(text), buf.raws[:0], 0
		for _, end := range ends {
			raws = append(raws, all[start:end])
			start = end
		}
		names = sortedNames(raws, conv)
		for i := range names {
			statAt(fd, dir, &names[i])
		}
		clear(raws)
		buf.raws = raws[:0]
	}
	buf.text, buf.ends = text, ends
	if cerr := unix.Close(fd); cerr != nil && err == nil {
		err = &fs.PathError{Op: "close", Path: dir, Err: cerr}
	}
	if err != nil {
		return nil, err
	}
	return names, nil
}

// dirBuf is readDirOS's scratch space, reused from one directory to the
// next by one goroutine.
type dirBuf struct {
	dirents []byte   // getdents
	text    []byte   // the names, one after the other
	ends    []int    // where each name ends in text
	raws    []string // the names, before they are statted
}

// statAt lstats n relative to the open directory fd, named dir in errors.
func statAt(fd int, dir string, n *name) {
	var st unix.Stat_t
	var err error
	for {
		err = unix.Fstatat(fd, n.raw, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		n.err = &fs.PathError{Op: "lstat", Path: dir + "/" + n.raw, Err: err}
	} else {
		n.meta = metaOfStat(&st)
	}
	n.statted = true
}

// metaOfStat is metaOf of the fs.FileInfo os.Lstat would build from st:
// os sets no type bits for a file type it does not know, which is then
// regular (os/stat_linux.go).
func metaOfStat(st *unix.Stat_t) meta {
	var m meta
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		m.typ = typeSymlink
	case unix.S_IFDIR:
		m.typ = typeDir
	case unix.S_IFBLK, unix.S_IFCHR, unix.S_IFIFO, unix.S_IFSOCK:
		m.typ = typeOther
	default:
		m.typ = typeFile
		m.size, m.hasSize = st.Size, true
	}
	m.mtime, m.hasMtime = epochMillis(time.Unix(st.Mtim.Unix()))
	return m
}
