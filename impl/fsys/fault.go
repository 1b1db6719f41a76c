package fsys

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/afero"
)

// The operations a Fault can target.
const (
	OpLstat    = "lstat"    // Lstat / LstatIfPossible
	OpStat     = "stat"     // Stat
	OpReaddir  = "readdir"  // Readdir and Readdirnames on an opened directory
	OpOpen     = "open"     // Open, OpenFile and Create
	OpReadlink = "readlink" // ReadlinkIfPossible
	// OpOpenWrite fails only opens that write or create (O_WRONLY, O_RDWR,
	// O_CREATE, O_TRUNC or O_APPEND): OpenFile and Create.
	OpOpenWrite = "openwrite"
	OpRename    = "rename" // Rename, when either name is the fault's path
	OpLink      = "link"   // LinkNoReplace, when either name is the fault's path
	// OpWrite fails the writes (Write, WriteAt, WriteString) of the Nth
	// file written at or below the fault's path, whatever its name: the
	// files opened there are numbered in the order of their first write
	// (faultwrite.go).
	OpWrite = "write"
	// OpFsync fails the Sync of the Nth file synced at or below the
	// fault's path, numbered in the order of their first Sync.
	OpFsync = "fsync"
)

// FaultOps lists the operations a Fault can target.
func FaultOps() []string {
	return []string{OpLstat, OpStat, OpReaddir, OpOpen, OpReadlink, OpOpenWrite, OpRename, OpLink, OpWrite, OpFsync}
}

// Fault makes one operation on one path fail with Err. An OpReaddir fault
// without Err but with a Delay fails nothing: it is a slow listing, whose
// first read after each open waits Delay, then is served.
type Fault struct {
	Op   string // one of FaultOps()
	Path string // absolute; compared with the operation's name after filepath.Clean
	Err  error  // typically a syscall.Errno, see ParseErrno
	// Nth selects, for OpWrite and OpFsync, which file fails: the Nth
	// (from 1) to be written (or synced) at or below Path; 0 means 1.
	// Other ops take no Nth.
	Nth int
	// Delay, for OpWrite, OpFsync, OpOpen and OpReaddir, makes each
	// failing call wait this long before it fails: a slow disk, for
	// timeouts. An OpReaddir fault's directory opens at once; its listing
	// waits. Other ops take none.
	Delay time.Duration
}

// Validate reports what is wrong with f, if anything.
func (f Fault) Validate() error {
	switch {
	case !slices.Contains(FaultOps(), f.Op):
		return fmt.Errorf("fault op %q is unknown; use one of %s", f.Op, strings.Join(FaultOps(), ", "))
	case !filepath.IsAbs(f.Path):
		return fmt.Errorf("fault path %q is not absolute; give the full path the tool will use", f.Path)
	case f.Err == nil && (f.Op != OpReaddir || f.Delay == 0):
		return fmt.Errorf("fault %s %q has no error; set one, e.g. from ParseErrno (only a readdir fault with a Delay may have none: a slow listing)", f.Op, f.Path)
	case f.Nth < 0 || f.Delay < 0:
		return fmt.Errorf("fault %s %q: Nth %d and Delay %v must not be negative", f.Op, f.Path, f.Nth, f.Delay)
	case f.Nth != 0 && !counted(f.Op):
		return fmt.Errorf("fault %s %q: only %s and %s faults take an Nth", f.Op, f.Path, OpWrite, OpFsync)
	case f.Delay != 0 && !delayed(f.Op):
		return fmt.Errorf("fault %s %q: only %s, %s, %s and %s faults take a Delay", f.Op, f.Path, OpWrite, OpFsync, OpOpen, OpReaddir)
	}
	return nil
}

// ParseErrno returns the errno named name ("EACCES", "EPERM", "ENOENT",
// "EIO", "ELOOP", "ENOTDIR" or "ENOSPC").
func ParseErrno(name string) (syscall.Errno, error) {
	switch name {
	case "EACCES":
		return syscall.EACCES, nil
	case "EPERM":
		return syscall.EPERM, nil
	case "ENOENT":
		return syscall.ENOENT, nil
	case "EIO":
		return syscall.EIO, nil
	case "ELOOP":
		return syscall.ELOOP, nil
	case "ENOTDIR":
		return syscall.ENOTDIR, nil
	case "ENOSPC":
		return syscall.ENOSPC, nil
	}
	return 0, fmt.Errorf("unknown errno %q; use one of EACCES, EPERM, ENOENT, EIO, ELOOP, ENOTDIR, ENOSPC", name)
}

type faultKey struct{ op, path string }

// delayed reports whether a fault of op may take a Delay.
func delayed(op string) bool { return counted(op) || op == OpOpen || op == OpReaddir }

// injected is what a fault that is not counted does: wait, then fail.
type injected struct {
	err   error
	delay time.Duration
}

// FaultFs wraps a filesystem and fails the operations its faults name with
// a *fs.PathError carrying the fault's error; everything else is delegated.
// Faults match the exact cleaned path only, never its descendants (but
// write and fsync faults, which count the files at or below their path),
// and when two faults name the same operation and path the first wins.
// The counts of write and fsync faults live as long as the FaultFs: use one
// per case.
//
// A FaultFs also counts the operations it serves (Ops): every call of its
// afero.Fs, Lstater, LinkReader, Linker and NoReplaceLinker methods, and
// the reading of the listing of a directory a readdir fault names (each
// failing read; the first read after each open of a slow one); not the
// reads, writes and other listings of opened files, which name no path:
// as a fusefault mount counts for an external implementation.
type FaultFs struct {
	base    afero.Fs
	faults  map[faultKey]injected
	counted *counters // write and fsync faults
	ops     atomic.Int64
}

// Ops returns how many operations f has served (see FaultFs), counted
// when each starts.
func (f *FaultFs) Ops() int64 { return f.ops.Load() }

// NewFaultFs returns a FaultFs over base. Faults with an unknown Op never
// match; check them first with Fault.Validate.
func NewFaultFs(base afero.Fs, faults []Fault) afero.Fs {
	m := make(map[faultKey]injected, len(faults))
	var cs []countedFault
	for _, f := range faults {
		k := faultKey{f.Op, filepath.Clean(f.Path)}
		if _, dup := m[k]; !dup {
			m[k] = injected{err: f.Err, delay: f.Delay}
			if counted(f.Op) {
				cs = append(cs, countedFault{Fault: f, path: k.path})
			}
		}
	}
	return &FaultFs{base: base, faults: m, counted: newCounters(cs)}
}

var (
	_ afero.Fs        = (*FaultFs)(nil)
	_ afero.Symlinker = (*FaultFs)(nil)
	_ NoReplaceLinker = (*FaultFs)(nil)
)

// fault returns the injected error for op on name after the fault's
// delay, or nil at once.
func (f *FaultFs) fault(op, name string) error {
	f.ops.Add(1)
	in, ok := f.lookup(op, name)
	if !ok {
		return nil
	}
	if in.delay > 0 {
		time.Sleep(in.delay)
	}
	return in.err
}

// lookup returns the fault for op on name, its error the *fs.PathError
// the os package would return.
func (f *FaultFs) lookup(op, name string) (injected, bool) {
	in, ok := f.faults[faultKey{op, filepath.Clean(name)}]
	if !ok {
		return injected{}, false
	}
	if in.err == nil {
		return in, true // a slow listing
	}
	pathOp := op
	switch op {
	case OpReaddir:
		pathOp = "readdirent" // what os.File reports for a failed getdents
	case OpOpenWrite:
		pathOp = OpOpen
	}
	in.err = &fs.PathError{Op: pathOp, Path: name, Err: in.err}
	return in, true
}

// Name implements afero.Fs.
func (f *FaultFs) Name() string { return "FaultFs" }

// Base returns the filesystem f wraps. Every fault of a FaultFs strikes at
// open, stat, lstat, readlink, readdir, rename or link, or while writing or
// syncing an opened file, never while reading one.
func (f *FaultFs) Base() afero.Fs { return f.base }

// LstatIfPossible implements afero.Lstater.
func (f *FaultFs) LstatIfPossible(name string) (fs.FileInfo, bool, error) {
	if err := f.fault(OpLstat, name); err != nil {
		return nil, true, err
	}
	if l, ok := f.base.(afero.Lstater); ok {
		return l.LstatIfPossible(name)
	}
	fi, err := f.base.Stat(name)
	return fi, false, err
}

// Stat implements afero.Fs.
func (f *FaultFs) Stat(name string) (fs.FileInfo, error) {
	if err := f.fault(OpStat, name); err != nil {
		return nil, err
	}
	return f.base.Stat(name)
}

// ReadlinkIfPossible implements afero.LinkReader.
func (f *FaultFs) ReadlinkIfPossible(name string) (string, error) {
	if err := f.fault(OpReadlink, name); err != nil {
		return "", err
	}
	return Readlink(f.base, name)
}

// SymlinkIfPossible implements afero.Linker.
func (f *FaultFs) SymlinkIfPossible(oldname, newname string) error {
	f.ops.Add(1)
	if l, ok := f.base.(afero.Linker); ok {
		return l.SymlinkIfPossible(oldname, newname)
	}
	return &os.LinkError{Op: "symlink", Old: oldname, New: newname, Err: afero.ErrNoSymlink}
}

// Open implements afero.Fs.
func (f *FaultFs) Open(name string) (afero.File, error) {
	return f.OpenFile(name, os.O_RDONLY, 0)
}

// Create implements afero.Fs.
func (f *FaultFs) Create(name string) (afero.File, error) {
	return f.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

// writeFlags are the open flags that make an open one OpOpenWrite targets.
const writeFlags = os.O_WRONLY | os.O_RDWR | os.O_CREATE | os.O_TRUNC | os.O_APPEND

// OpenFile implements afero.Fs.
func (f *FaultFs) OpenFile(name string, flag int, perm fs.FileMode) (afero.File, error) {
	if err := f.fault(OpOpen, name); err != nil {
		return nil, err
	}
	if flag&writeFlags != 0 {
		if in, ok := f.lookup(OpOpenWrite, name); ok {
			return nil, in.err // never delayed
		}
	}
	file, err := f.base.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	if in, ok := f.lookup(OpReaddir, name); ok {
		return &faultFile{File: file, fault: in, ops: &f.ops}, nil
	}
	return f.counted.wrap(file, name), nil
}

// Mkdir implements afero.Fs.
func (f *FaultFs) Mkdir(name string, perm fs.FileMode) error {
	f.ops.Add(1)
	return f.base.Mkdir(name, perm)
}

// MkdirAll implements afero.Fs.
func (f *FaultFs) MkdirAll(path string, perm fs.FileMode) error {
	f.ops.Add(1)
	return f.base.MkdirAll(path, perm)
}

// Remove implements afero.Fs.
func (f *FaultFs) Remove(name string) error {
	f.ops.Add(1)
	return f.base.Remove(name)
}

// RemoveAll implements afero.Fs.
func (f *FaultFs) RemoveAll(path string) error {
	f.ops.Add(1)
	return f.base.RemoveAll(path)
}

// Rename implements afero.Fs.
func (f *FaultFs) Rename(oldname, newname string) error {
	f.ops.Add(1)
	if err := f.linkFault(OpRename, oldname, newname); err != nil {
		return err
	}
	return f.base.Rename(oldname, newname)
}

// LinkNoReplace implements NoReplaceLinker.
func (f *FaultFs) LinkNoReplace(oldname, newname string) error {
	f.ops.Add(1)
	if err := f.linkFault(OpLink, oldname, newname); err != nil {
		return err
	}
	return LinkNoReplace(f.base, oldname, newname)
}

// linkFault returns the injected error for a two-name operation when a
// fault names either path (oldname first), as the *os.LinkError the os
// package returns; nil otherwise.
func (f *FaultFs) linkFault(op, oldname, newname string) error {
	for _, name := range []string{oldname, newname} {
		if in, ok := f.faults[faultKey{op, filepath.Clean(name)}]; ok {
			return &os.LinkError{Op: op, Old: oldname, New: newname, Err: in.err}
		}
	}
	return nil
}

// Chmod implements afero.Fs.
func (f *FaultFs) Chmod(name string, mode fs.FileMode) error {
	f.ops.Add(1)
	return f.base.Chmod(name, mode)
}

// Chown implements afero.Fs.
func (f *FaultFs) Chown(name string, uid, gid int) error {
	f.ops.Add(1)
	return f.base.Chown(name, uid, gid)
}

// Chtimes implements afero.Fs.
func (f *FaultFs) Chtimes(name string, atime, mtime time.Time) error {
	f.ops.Add(1)
	return f.base.Chtimes(name, atime, mtime)
}

// faultFile is an opened directory whose listing fails with the fault's
// error after its delay, or, for a slow listing, is served after its delay
// (the first read only).
type faultFile struct {
	afero.File
	fault  injected
	ops    *atomic.Int64 // the FaultFs's
	waited sync.Once
}

// fail waits as the fault says and returns its error (nil: serve the
// listing).
func (f *faultFile) fail() error {
	if f.fault.err == nil {
		f.waited.Do(func() {
			f.ops.Add(1)
			time.Sleep(f.fault.delay)
		})
		return nil
	}
	f.ops.Add(1)
	if f.fault.delay > 0 {
		time.Sleep(f.fault.delay)
	}
	return f.fault.err
}

// Readdir implements afero.File.
func (f *faultFile) Readdir(n int) ([]fs.FileInfo, error) {
	if err := f.fail(); err != nil {
		return nil, err
	}
	return f.File.Readdir(n)
}

// Readdirnames implements afero.File.
func (f *faultFile) Readdirnames(n int) ([]string, error) {
	if err := f.fail(); err != nil {
		return nil, err
	}
	return f.File.Readdirnames(n)
}
