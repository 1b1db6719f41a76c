//go:build linux

// Package fusefault serves a directory through FUSE with faults injected,
// so that any implementation under test, in any language, meets the errors
// a fixture declares (fixture.Fault): a file whose lstat fails with EIO, a
// directory whose listing fails, a rename that fails with EIO or ENOSPC in
// the middle of an apply_patch. The runner mounts a materialized fixture
// with Mount and hands the implementation paths inside the mount point.
//
// Everything the faults do not name is passed through to the directory
// (go-fuse's loopback node): contents, modes, owners, mtimes, symlinks,
// renames. Caches are off (zero entry and attribute timeouts), so every
// lookup reaches the filesystem and a fault is met every time. When the
// runner is root the mount allows other users and lets the kernel check
// permissions against the real modes and owners (allow_other,
// default_permissions), and files created through it belong to the caller,
// so an implementation run as nobody sees what it would see on disk.
//
// How the fixture operations map to FUSE requests (a path is relative to
// the mounted directory):
//
//	lstat, stat  LOOKUP of the path and GETATTR of its node fail (both:
//	             through FUSE the two differ only on a symlink's target)
//	readdir      OPENDIR succeeds, READDIR fails (getdents returns the error)
//	             after the fault's Delay
//	open         OPEN, OPENDIR and CREATE of the path fail after the fault's
//	             Delay
//	openwrite    OPEN and CREATE fail when the flags write, create, truncate
//	             or append
//	readlink     READLINK fails
//	rename       RENAME fails when either name is the path
//	link         LINK fails when either name is the path
//	write        WRITE fails on the Nth file handle written at or below the
//	             path, numbered by first WRITE (write.go)
//	fsync        FSYNC fails on the Nth file handle synced at or below the
//	             path, numbered by first FSYNC
//
// A readdir Fault without an Errno fails nothing: it is a slow listing
// (the fixture's slow directive), whose first READDIR after each OPENDIR
// is answered after the Delay, then the listing is served.
//
// A Mount counts the requests it serves that name a path (Mount.Ops):
// LOOKUP, GETATTR, OPENDIR, OPEN, CREATE, READLINK, RENAME and LINK, and
// the reading of the listing of a directory a readdir fault names (each
// failing READDIR; the first READDIR after each OPENDIR of a slow one);
// not READ, WRITE, the listings of other directories, or the kernel's
// RELEASE and FORGET.
package fusefault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/moby/sys/mountinfo"
	"golang.org/x/sys/unix"

	"github.com/forge-conform/forge-conform/conformance/leftover"
)

// fsSubtype makes the mounts' type fuse.fusefault; their source names the
// process that serves them (package leftover).
const fsSubtype = "fusefault"

// The operations a Fault can name (fixture.Fault's Op).
const (
	OpLstat     = "lstat"
	OpStat      = "stat"
	OpReaddir   = "readdir"
	OpOpen      = "open"
	OpOpenWrite = "openwrite"
	OpReadlink  = "readlink"
	OpRename    = "rename"
	OpLink      = "link"
	OpWrite     = "write"
	OpFsync     = "fsync"
)

// Fault makes one operation on one path fail with Errno.
type Fault struct {
	Op    string        // one of the Op constants
	Path  string        // slash-separated, relative to the mounted directory; "." is the directory itself
	Errno syscall.Errno // non-zero, but for a slow readdir
	// Nth (write and fsync): the Nth file handle written (synced) at or
	// below Path fails; 0 means 1.
	Nth int
	// Delay (write, fsync, open and readdir): a failing request is
	// answered after Delay, or at once when the caller is interrupted.
	Delay time.Duration
}

// Mount is a directory served through FUSE.
type Mount struct {
	// Dir is the mount point: the paths to hand the implementation.
	Dir    string
	server *fuse.Server
	ops    *atomic.Int64
}

// Ops returns how many requests naming a path the mount has served,
// counted as each arrives (see the package doc).
func (m *Mount) Ops() int64 { return m.ops.Load() }

// Usable reports why FUSE cannot be used here, or nil: /dev/fuse must open
// for reading and writing (mounting needs root, or fusermount3 for other
// users).
func Usable() error {
	f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("cannot open /dev/fuse: %w (load the module with `modprobe fuse`, or install fuse3)", err)
	}
	return f.Close()
}

// Probe mounts an empty directory made under tmp and reads it back, then
// unmounts it: nil means New works here.
func Probe(tmp string) error {
	if err := Usable(); err != nil {
		return err
	}
	dir, err := os.MkdirTemp(tmp, ".fuse-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	src, mnt := filepath.Join(dir, "src"), filepath.Join(dir, "mnt")
	if err := errors.Join(os.Mkdir(src, 0o755), os.Mkdir(mnt, 0o755)); err != nil {
		return err
	}
	m, err := New(src, mnt, nil)
	if err != nil {
		return err
	}
	if _, err := os.ReadDir(mnt); err != nil {
		_ = m.Unmount()
		return fmt.Errorf("reading the probe mount: %w", err)
	}
	return m.Unmount()
}

// New mounts src at the existing empty directory mnt with faults injected.
// Unmount it when done.
func New(src, mnt string, faults []Fault) (*Mount, error) {
	set := map[key]Fault{}
	var counted []Fault
	for _, f := range faults {
		if f.Errno == 0 && (f.Op != OpReaddir || f.Delay == 0) {
			return nil, fmt.Errorf("fusefault: fault %s %q has no errno (only a readdir fault with a Delay may have none: a slow listing)", f.Op, f.Path)
		}
		switch f.Op {
		case OpLstat, OpStat, OpOpenWrite, OpReadlink, OpRename, OpLink:
			if f.Nth != 0 || f.Delay != 0 {
				return nil, fmt.Errorf("fusefault: fault %s %q: only write, fsync, open and readdir faults take a Delay, only write and fsync an Nth", f.Op, f.Path)
			}
		case OpReaddir, OpOpen:
			if f.Nth != 0 {
				return nil, fmt.Errorf("fusefault: fault %s %q: only write and fsync faults take an Nth", f.Op, f.Path)
			}
		case OpWrite, OpFsync:
		default:
			return nil, fmt.Errorf("fusefault: fault op %q is unknown", f.Op)
		}
		if f.Delay < 0 {
			return nil, fmt.Errorf("fusefault: fault %s %q: negative Delay %v", f.Op, f.Path, f.Delay)
		}
		k := key{f.Op, path.Clean(f.Path)}
		if _, dup := set[k]; !dup {
			f.Path = k.path
			set[k] = f
			if f.Op == OpWrite || f.Op == OpFsync {
				counted = append(counted, f)
			}
		}
	}
	var st syscall.Stat_t
	if err := syscall.Stat(src, &st); err != nil {
		return nil, fmt.Errorf("fusefault: %w", err)
	}
	rootData := &fs.LoopbackRoot{Path: src, Dev: uint64(st.Dev)}
	ops := new(atomic.Int64)
	root := &node{LoopbackNode: &fs.LoopbackNode{RootData: rootData}, faults: set, counts: newCounts(counted), ops: ops}
	rootData.RootNode = root

	zero := time.Duration(0)
	opts := &fs.Options{
		EntryTimeout:    &zero,
		AttrTimeout:     &zero,
		NegativeTimeout: &zero,
		MountOptions: fuse.MountOptions{
			FsName:      strings.TrimSuffix(leftover.Name("fuse"), "-"), // the owner, for Sweep
			Name:        fsSubtype,
			DirectMount: true,
		},
	}
	if os.Geteuid() == 0 {
		opts.MountOptions.AllowOther = true
		opts.MountOptions.Options = []string{"default_permissions"}
	}
	server, err := fs.Mount(mnt, root, opts)
	if err != nil {
		return nil, fmt.Errorf("fusefault: mounting %s at %s: %w", src, mnt, err)
	}
	return &Mount{Dir: mnt, server: server, ops: ops}, nil
}

// Unmount unmounts the directory; when it is still busy (a process holds a
// file open in it), it is detached lazily and goes away with the last user.
func (m *Mount) Unmount() error {
	if m == nil || m.server == nil {
		return nil
	}
	err := m.server.Unmount()
	if err != nil {
		if derr := unix.Unmount(m.Dir, unix.MNT_DETACH); derr != nil {
			return fmt.Errorf("fusefault: unmounting %s: %w", m.Dir, errors.Join(err, derr))
		}
	}
	m.server = nil
	return nil
}

// Sweep unmounts the fusefault mounts whose serving process died (a runner
// killed with SIGKILL leaves its mounts behind, each answering
// "transport endpoint is not connected", or hanging when a process that
// inherited the FUSE descriptor still holds it): it aborts the connection
// (as root), detaches the mount lazily and removes the mount point when
// empty. Mounts of live processes, and those of processes in another pid
// namespace, are left alone. It returns the mount points it unmounted.
func Sweep() ([]string, error) {
	mounts, err := mountinfo.GetMounts(mountinfo.FSTypeFilter("fuse." + fsSubtype))
	if err != nil {
		return nil, fmt.Errorf("fusefault: reading the mount table: %w", err)
	}
	var done []string
	var errs []error
	for _, m := range mounts {
		if kind, o, ok := leftover.Parse(m.Source); !ok || kind != "fuse" || !o.Dead() {
			continue
		}
		// A connection whose descriptor a stray process still holds
		// hangs every access until it is aborted (/sys/fs/fuse/connections
		// names it by the kernel's device number, major<<20 | minor).
		dev := strconv.FormatUint(uint64(m.Major)<<20|uint64(m.Minor), 10)
		_ = os.WriteFile(filepath.Join("/sys/fs/fuse/connections", dev, "abort"), []byte("1"), 0)
		if err := detach(m.Mountpoint); err != nil {
			errs = append(errs, err)
			continue
		}
		_ = os.Remove(m.Mountpoint)
		done = append(done, m.Mountpoint)
	}
	return done, errors.Join(errs...)
}

// detach unmounts dir lazily: umount2(MNT_DETACH) as root, else
// fusermount3 -u -z (or fusermount).
func detach(dir string) error {
	err := unix.Unmount(dir, unix.MNT_DETACH)
	if err == nil || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOENT) {
		return nil // done, or no longer a mount point
	}
	for _, tool := range []string{"fusermount3", "fusermount"} {
		if path, lerr := exec.LookPath(tool); lerr == nil {
			out, ferr := exec.Command(path, "-u", "-z", dir).CombinedOutput()
			if ferr == nil {
				return nil
			}
			err = fmt.Errorf("%w; %s -u -z: %v: %s", err, tool, ferr, bytes.TrimSpace(out))
			break
		}
	}
	return fmt.Errorf("fusefault: unmounting the stale mount %s: %w (unmount it by hand: fusermount3 -u -z %s, or umount -l as root)", dir, err, dir)
}

type key struct{ op, path string }

// node is a loopback node that fails the operations its faults name.
type node struct {
	*fs.LoopbackNode
	faults map[key]Fault
	counts *counts       // the write and fsync faults, shared by every node
	ops    *atomic.Int64 // the Mount's, shared by every node
}

var (
	_ fs.NodeWrapChilder    = (*node)(nil)
	_ fs.NodeLookuper       = (*node)(nil)
	_ fs.NodeGetattrer      = (*node)(nil)
	_ fs.NodeOpendirHandler = (*node)(nil)
	_ fs.NodeOpener         = (*node)(nil)
	_ fs.NodeCreater        = (*node)(nil)
	_ fs.NodeReadlinker     = (*node)(nil)
	_ fs.NodeRenamer        = (*node)(nil)
	_ fs.NodeLinker         = (*node)(nil)
)

// WrapChild makes every node of the tree a fault node.
func (n *node) WrapChild(_ context.Context, ops fs.InodeEmbedder) fs.InodeEmbedder {
	if lb, ok := ops.(*fs.LoopbackNode); ok {
		return &node{LoopbackNode: lb, faults: n.faults, counts: n.counts, ops: n.ops}
	}
	return ops
}

// rel is the node's path relative to the mount: "." for the root.
func rel(in fs.InodeEmbedder) string {
	p := in.EmbeddedInode().Path(nil)
	if p == "" {
		return "."
	}
	return p
}

func (n *node) child(name string) string { return path.Join(rel(n), name) }

// served counts one request that names a path.
func (n *node) served() { n.ops.Add(1) }

// fault returns the errno injected for the first of ops on p, or 0, at
// once: for the faults without a delay.
func (n *node) fault(p string, ops ...string) syscall.Errno {
	for _, op := range ops {
		if f, ok := n.faults[key{op, p}]; ok {
			return f.Errno
		}
	}
	return 0
}

// delayedFault returns the errno injected for op on p after the fault's
// delay (Fault.fail), or 0 at once.
func (n *node) delayedFault(ctx context.Context, p, op string) syscall.Errno {
	if f, ok := n.faults[key{op, p}]; ok {
		return f.fail(ctx)
	}
	return 0
}

// writes reports whether open flags write, create, truncate or append.
func writes(flags uint32) bool {
	return flags&syscall.O_ACCMODE != syscall.O_RDONLY ||
		flags&(syscall.O_CREAT|syscall.O_TRUNC|syscall.O_APPEND) != 0
}

func (n *node) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	n.served()
	if e := n.fault(n.child(name), OpLstat, OpStat); e != 0 {
		return nil, e
	}
	return n.LoopbackNode.Lookup(ctx, name, out)
}

func (n *node) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	n.served()
	if e := n.fault(rel(n), OpLstat, OpStat); e != 0 {
		return e
	}
	return n.LoopbackNode.Getattr(ctx, f, out)
}

func (n *node) OpendirHandle(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	n.served()
	p := rel(n)
	if e := n.delayedFault(ctx, p, OpOpen); e != 0 {
		return nil, 0, e
	}
	if f, ok := n.faults[key{OpReaddir, p}]; ok {
		if f.Errno != 0 {
			return failingDir{f, n.ops}, 0, 0
		}
		fh, fuseFlags, errno := n.LoopbackNode.OpendirHandle(ctx, flags)
		if errno != 0 {
			return nil, 0, errno
		}
		return &slowDir{FileHandle: fh, fault: f, ops: n.ops}, fuseFlags, 0
	}
	return n.LoopbackNode.OpendirHandle(ctx, flags)
}

func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	n.served()
	p := rel(n)
	if e := n.delayedFault(ctx, p, OpOpen); e != 0 {
		return nil, 0, e
	}
	if writes(flags) {
		if e := n.fault(p, OpOpenWrite); e != 0 {
			return nil, 0, e
		}
	}
	fh, fuseFlags, errno := n.LoopbackNode.Open(ctx, flags)
	return n.counts.served(p, fh), fuseFlags, errno
}

func (n *node) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	n.served()
	if e := n.delayedFault(ctx, n.child(name), OpOpen); e != 0 {
		return nil, nil, 0, e
	}
	if e := n.fault(n.child(name), OpOpenWrite); e != 0 {
		return nil, nil, 0, e
	}
	in, fh, fuseFlags, errno := n.LoopbackNode.Create(ctx, name, flags, mode, out)
	return in, n.counts.served(n.child(name), fh), fuseFlags, errno
}

func (n *node) Readlink(ctx context.Context) ([]byte, syscall.Errno) {
	n.served()
	if e := n.fault(rel(n), OpReadlink); e != 0 {
		return nil, e
	}
	return n.LoopbackNode.Readlink(ctx)
}

func (n *node) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	n.served()
	for _, p := range []string{n.child(name), path.Join(rel(newParent), newName)} {
		if e := n.fault(p, OpRename); e != 0 {
			return e
		}
	}
	return n.LoopbackNode.Rename(ctx, name, newParent, newName, flags)
}

func (n *node) Link(ctx context.Context, target fs.InodeEmbedder, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	n.served()
	for _, p := range []string{rel(target), n.child(name)} {
		if e := n.fault(p, OpLink); e != 0 {
			return nil, e
		}
	}
	return n.LoopbackNode.Link(ctx, target, name, out)
}

// failingDir is an opened directory whose listing fails after the fault's
// delay.
type failingDir struct {
	fault Fault
	ops   *atomic.Int64
}

var _ fs.FileReaddirenter = failingDir{}

func (d failingDir) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	d.ops.Add(1)
	return nil, d.fault.fail(ctx)
}

// slowDir is an opened directory (the loopback's) whose first READDIR
// waits the fault's delay (or until the caller is interrupted); then its
// listing is served. The first READDIR counts, as one operation.
type slowDir struct {
	fs.FileHandle // the loopback's directory stream
	fault         Fault
	ops           *atomic.Int64
	waited        sync.Once
}

var (
	_ fs.FileReaddirenter = (*slowDir)(nil)
	_ fs.FileSeekdirer    = (*slowDir)(nil)
	_ fs.FileReleasedirer = (*slowDir)(nil)
)

func (d *slowDir) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	d.waited.Do(func() {
		d.ops.Add(1)
		d.fault.fail(ctx)
	})
	return d.FileHandle.(fs.FileReaddirenter).Readdirent(ctx)
}

func (d *slowDir) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	if s, ok := d.FileHandle.(fs.FileSeekdirer); ok {
		return s.Seekdir(ctx, off)
	}
	return 0
}

func (d *slowDir) Releasedir(ctx context.Context, flags uint32) {
	if r, ok := d.FileHandle.(fs.FileReleasedirer); ok {
		r.Releasedir(ctx, flags)
	}
}
