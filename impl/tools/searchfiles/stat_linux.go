//go:build linux

package searchfiles

import (
	"io"
	"io/fs"
	"os"

	"github.com/spf13/afero"
	"golang.org/x/sys/unix"

	"github.com/forge-conform/forge-conform/impl/fsys"
)

// sizeEntries fills in the sizes of the regular files of ents, lstat'ed
// relative to the open directory f (one fstatat each, no path lookup from
// the root). An entry that cannot be lstat'ed stays unsized; its reader
// finds out why.
func sizeEntries(f afero.File, ents []dirent) {
	osf, ok := f.(*os.File)
	if !ok {
		return
	}
	sc, err := osf.SyscallConn()
	if err != nil {
		return
	}
	_ = sc.Control(func(fd uintptr) { sizeFd(int(fd), ents) })
}

// sizeFd is sizeEntries on the open directory fd.
func sizeFd(fd int, ents []dirent) {
	var st unix.Stat_t
	for i := range ents {
		if !ents[i].typ.IsRegular() {
			continue
		}
		if err := unix.Fstatat(fd, ents[i].name, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil &&
			st.Mode&unix.S_IFMT == unix.S_IFREG {
			ents[i].size, ents[i].sized = st.Size, true
		}
	}
}

// sizeRoot fills in the sizes of the regular files of the root's entries.
func sizeRoot(root string, ents []dirent) {
	var st unix.Stat_t
	for i := range ents {
		if ents[i].typ.IsRegular() {
			if err := unix.Lstat(root+"/"+ents[i].name, &st); err == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
				ents[i].size, ents[i].sized = st.Size, true
			}
		}
	}
}

// readCandidateOS is readCandidate on the operating system's files
// (afero.OsFs, nothing wrapped around it) with plain system calls: open,
// fstat, read, close, without the *os.File's extra fstat and bookkeeping.
// Results and error texts are readCandidate's.
func readCandidateOS(req *request, it *item, sc *scratch) ([]byte, string) {
	var fd int
	var err error
	for {
		fd, err = unix.Open(it.abs, openFlags|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return nil, fsys.ErrText(err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fsys.ErrText(err)
	}
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return nil, errNotRegular.Error()
	case st.Size > req.maxFileSize:
		return nil, tooLarge(st.Size, req.maxFileSize)
	}
	return readOpened(fdReader(fd), st.Size, sc)
}

// fdReader reads a file descriptor, retrying on EINTR.
type fdReader int

func (r fdReader) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(int(r), p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

const osFastPath = true

// readDirOS is readDir on the operating system's files (afero.OsFs,
// nothing wrapped around it) with plain system calls (fsys.ReadDirFd):
// open, getdents into buf, fstatat relative to the open directory for the
// sizes, close. Names, their order, types and error texts are those of
// readDir through os.File.ReadDir: a type the kernel does not report
// (DT_UNKNOWN) is lstat'ed, and an entry gone by then is left out.
func readDirOS(dir string, sizes bool, buf *[]byte) ([]dirent, error) {
	fd, err := fsys.OpenDirFd(dir)
	if err != nil {
		return nil, err
	}
	var ents []dirent
	err = fsys.ReadDirFd(fd, dir, buf, func(name []byte, typ fs.FileMode, known bool) error {
		e := dirent{name: string(name), typ: typ, known: true}
		if !known {
			var st unix.Stat_t
			var err error
			for {
				err = unix.Fstatat(fd, e.name, &st, unix.AT_SYMLINK_NOFOLLOW)
				if err != unix.EINTR {
					break
				}
			}
			if err == unix.ENOENT {
				return nil
			}
			if err != nil {
				return &fs.PathError{Op: "lstat", Path: dir + "/" + e.name, Err: err}
			}
			e.typ = fsys.ModeType(st.Mode)
		}
		ents = append(ents, e)
		return nil
	})
	if err == nil && sizes {
		sizeFd(fd, ents)
	}
	if cerr := unix.Close(fd); cerr != nil && err == nil {
		return nil, &fs.PathError{Op: "close", Path: dir, Err: cerr}
	}
	if err != nil {
		return nil, err
	}
	return ents, nil
}

// blockingPipe returns a pipe whose read end is in blocking mode, so the
// runtime's network poller does not watch it: a child writing to it in
// many small pieces then wakes no idle thread of this process, only a
// goroutine blocked reading it. Both ends are closed on exec.
func blockingPipe() (r, w *os.File, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, nil, &os.SyscallError{Syscall: "pipe2", Err: err}
	}
	return os.NewFile(uintptr(p[0]), "|0"), os.NewFile(uintptr(p[1]), "|1"), nil
}
