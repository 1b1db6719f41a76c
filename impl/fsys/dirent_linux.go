//go:build linux

package fsys

import (
	"encoding/binary"
	"io/fs"

	"golang.org/x/sys/unix"
)

// DirentBufSize is a good size for ReadDirFd's buffer: os.File.ReadDir's.
const DirentBufSize = 8 << 10

// OpenDirFd opens dir as os.Open does (O_RDONLY, close-on-exec), for
// ReadDirFd and fstatat relative to it; the error is os.Open's.
func OpenDirFd(dir string) (int, error) {
	for {
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return -1, &fs.PathError{Op: "open", Path: dir, Err: err}
		}
		return fd, nil
	}
}

// ReadDirFd lists the open directory fd (named dir in errors) with
// getdents into buf (grown to DirentBufSize when smaller), without an
// *os.File or an fs.DirEntry per name. It calls yield for each name in
// directory order, as os.File.ReadDir and Readdirnames report them ("."
// and ".." and entries with inode 0 left out), with the type bits of its
// d_type; known is false for DT_UNKNOWN. The name bytes are valid only
// during the call. An error of yield stops the listing and is returned;
// a getdents error is os.File.ReadDir's.
func ReadDirFd(fd int, dir string, buf *[]byte, yield func(name []byte, typ fs.FileMode, known bool) error) error {
	if len(*buf) < DirentBufSize {
		*buf = make([]byte, DirentBufSize)
	}
	b := *buf
	for {
		n, err := unix.Getdents(fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &fs.PathError{Op: "readdirent", Path: dir, Err: err}
		}
		if n <= 0 {
			return nil
		}
		for rec := b[:n]; len(rec) >= 19; {
			// struct linux_dirent64: d_ino u64, d_off s64, d_reclen u16,
			// d_type u8, d_name NUL-terminated.
			reclen := int(binary.NativeEndian.Uint16(rec[16:18]))
			if reclen < 19 || reclen > len(rec) {
				break
			}
			ino := binary.NativeEndian.Uint64(rec[0:8])
			dt := rec[18]
			name := rec[19:reclen]
			for i, c := range name {
				if c == 0 {
					name = name[:i]
					break
				}
			}
			rec = rec[reclen:]
			if ino == 0 || string(name) == "." || string(name) == ".." {
				continue
			}
			typ, known := dtType(dt)
			if err := yield(name, typ, known); err != nil {
				return err
			}
		}
	}
}

// dtType is os's conversion of a d_type to type bits; known is false for
// DT_UNKNOWN (and any value os does not know).
func dtType(dt byte) (typ fs.FileMode, known bool) {
	switch dt {
	case unix.DT_BLK:
		return fs.ModeDevice, true
	case unix.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice, true
	case unix.DT_DIR:
		return fs.ModeDir, true
	case unix.DT_FIFO:
		return fs.ModeNamedPipe, true
	case unix.DT_LNK:
		return fs.ModeSymlink, true
	case unix.DT_REG:
		return 0, true
	case unix.DT_SOCK:
		return fs.ModeSocket, true
	}
	return 0, false
}

// ModeType is os's conversion of st_mode's file type to type bits.
func ModeType(mode uint32) fs.FileMode {
	switch mode & unix.S_IFMT {
	case unix.S_IFBLK:
		return fs.ModeDevice
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFSOCK:
		return fs.ModeSocket
	}
	return 0
}
