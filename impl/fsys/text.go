package fsys

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// ErrText is the short, non-localized message of a filesystem error: the
// errno text ("permission denied", "input/output error") without the
// operation and path, which would make a tool's output depend on where the
// tree lives. Without an errno it is the text inside a *fs.PathError or
// *os.LinkError, else err's own.
func ErrText(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err.Error()
	}
	return err.Error()
}

// JoinRel joins a slash-separated path relative to a walk's root ("" for
// the root itself) and an entry name.
func JoinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
