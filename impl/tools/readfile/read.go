package readfile

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"syscall"
	"unicode/utf8"

	"github.com/spf13/afero"
)

// sniffLen is the binary-detection window (§3.6.8, I-RF-05).
const sniffLen = 8192

// bufSize is the read buffer; it must exceed sniffLen so that one Peek can
// tell whether the file continues past the window.
const bufSize = 64 << 10

// The binary output headers (I-RF-06).
const (
	binaryHeader    = "[binary:base64]"
	truncatedHeader = binaryHeader + " [truncated]"
	// truncatedNoSpace is the header of Options.NoSpaceHeader.
	truncatedNoSpace = binaryHeader + "[truncated]"
)

// openFlags open the final component without following a symlink
// (FR-VAL-06). O_NONBLOCK keeps a FIFO swapped in after the type check from
// blocking the open; it has no effect on regular files.
const openFlags = syscall.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// errNotRegular reports that the opened object is not a regular file.
var errNotRegular = errors.New("not a regular file")

// openRegular opens the canonical path canon for reading and checks, on the
// opened descriptor, that it is a regular file. A symlink at canon (one
// swapped in after sandbox validation) fails with ELOOP instead of being
// followed; a directory or special file fails with errNotRegular (or
// EISDIR). The caller closes the file.
func openRegular(afs afero.Fs, canon string) (afero.File, fs.FileInfo, error) {
	f, err := afs.OpenFile(canon, openFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fi, &fs.PathError{Op: "open", Path: canon, Err: errNotRegular}
	}
	return f, fi, nil
}

// ctxReader fails reads once ctx is done, so long reads honour the call's
// timeout and cancellation (FR-EXE-03, FR-EXE-04).
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// isBinary applies I-RF-05 to the first bytes of a file: window is at most
// sniffLen bytes, and more reports that the file continues beyond it. A NUL
// byte or invalid UTF-8 makes the file binary, except that a multi-byte
// character cut by the end of the window of a longer file is not invalid
// (Rust's Utf8Error::error_len() is None there).
func isBinary(window []byte, more bool) bool {
	if bytes.IndexByte(window, 0) >= 0 {
		return true
	}
	if utf8.Valid(window) {
		return false
	}
	if !more {
		return true
	}
	// Find the start of the last (possibly partial) character.
	i := len(window) - 1
	for i > 0 && i > len(window)-utf8.UTFMax && !utf8.RuneStart(window[i]) {
		i--
	}
	return !utf8.Valid(window[:i]) || !incompletePrefix(window[i:])
}

// incompletePrefix reports whether t is a proper prefix of some well-formed
// UTF-8 sequence: some continuation makes it a valid character. The second
// byte of a sequence is the only constrained one (E0, ED, F0, F4 narrow its
// range); 0x80, 0x90 and 0xA0 between them meet every constraint.
func incompletePrefix(t []byte) bool {
	if len(t) == 0 || utf8.FullRune(t) {
		return false
	}
	for _, second := range []byte{0x80, 0x90, 0xA0} {
		c := append([]byte(nil), t...)
		if len(c) == 1 {
			c = append(c, second)
		}
		for !utf8.FullRune(c) {
			c = append(c, 0x80)
		}
		if r, n := utf8.DecodeRune(c); r != utf8.RuneError && n == len(c) {
			return true
		}
	}
	return false
}

// errScanLimit reports that a ranged read would scan past max_scan_bytes.
var errScanLimit = errors.New("scan limit exceeded")

// scanRange returns the bytes of lines start..=end of src (end 0: through
// EOF), each with its own terminator (I-RF-01, I-RF-02). It consumes src
// only up to the end of line end (or EOF) and fails with errScanLimit if
// that point lies more than maxScan bytes into the file (I-RF-04). Memory is
// bounded by maxScan plus one buffer.
func scanRange(src *bufio.Reader, start, end uint64, maxScan int64) ([]byte, error) {
	var out []byte
	var consumed int64
	line := uint64(1)
	for {
		chunk, err := src.ReadSlice('\n')
		if len(chunk) > 0 {
			consumed += int64(len(chunk))
			if consumed > maxScan {
				return nil, errScanLimit
			}
			if line >= start && (end == 0 || line <= end) {
				out = append(out, chunk...)
			}
			if chunk[len(chunk)-1] == '\n' {
				if line == end {
					return out, nil
				}
				line++
			}
		}
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			return out, nil
		default:
			return nil, err
		}
	}
}

// binaryOutput renders I-RF-06 for a file whose first bytes are head and
// whose total length is total, within limit bytes. head must hold at least
// fullCapacity(limit)+1 bytes whenever total exceeds fullCapacity(limit).
// trunc is the header of a truncated output. ok is false when not even the
// header and newline fit.
func binaryOutput(head []byte, total, limit int64, trunc string) (out string, ok bool) {
	if total <= fullCapacity(limit) {
		return binaryHeader + "\n" + base64.StdEncoding.EncodeToString(head[:total]), true
	}
	hl := int64(len(trunc)) + 1
	if limit < hl {
		return "", false
	}
	n := (limit - hl) / 4 * 3
	return trunc + "\n" + base64.StdEncoding.EncodeToString(head[:n]), true
}

// fullCapacity is the largest file length whose untruncated binary output
// fits limit: len(header)+1+4*ceil(n/3) <= limit. It is -1 when not even an
// empty body fits.
func fullCapacity(limit int64) int64 {
	hl := int64(len(binaryHeader)) + 1
	if limit < hl {
		return -1
	}
	return (limit - hl) / 4 * 3
}

// plural returns "1 byte" or "n bytes".
func plural(n int64) string {
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}
