//go:build linux

package fusefault

import (
	"context"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
)

// counts numbers the file handles the write and fsync faults see, in the
// order of their first WRITE (or FSYNC), whatever the files are called: a
// temp file renamed into place and a target written in place meet the
// fault alike. A handle keeps its number until the mount goes away.
type counts struct {
	faults []Fault
	mu     sync.Mutex
	seen   []int                   // per fault: handles numbered so far
	number []map[fs.FileHandle]int // per fault: each handle's number
}

func newCounts(faults []Fault) *counts {
	c := &counts{faults: faults, seen: make([]int, len(faults)), number: make([]map[fs.FileHandle]int, len(faults))}
	for i := range c.number {
		c.number[i] = map[fs.FileHandle]int{}
	}
	return c
}

// strike returns the fault of op that fails handle f of the file at p
// (relative to the mount), numbering the handle for each fault of op that
// covers p at its first request; ok is false when none fails.
func (c *counts) strike(op, p string, f fs.FileHandle) (hit Fault, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, flt := range c.faults {
		if flt.Op != op || !(flt.Path == "." || p == flt.Path || strings.HasPrefix(p, flt.Path+"/")) {
			continue
		}
		n, seen := c.number[i][f]
		if !seen {
			c.seen[i]++
			n = c.seen[i]
			c.number[i][f] = n
		}
		if n == max(flt.Nth, 1) && !ok {
			hit, ok = flt, true
		}
	}
	return hit, ok
}

// covers reports whether a write or fsync fault counts the file at p.
func (c *counts) covers(p string) bool {
	for _, flt := range c.faults {
		if flt.Path == "." || p == flt.Path || strings.HasPrefix(p, flt.Path+"/") {
			return true
		}
	}
	return false
}

// served makes the handle f of the file at p one whose writes reach the
// server when a fault counts that file: the loopback file otherwise asks
// the kernel for passthrough (root, Linux 6.9+), and its reads and writes
// then go straight to the backing file, past every fault.
func (c *counts) served(p string, f fs.FileHandle) fs.FileHandle {
	if lf, ok := f.(*fs.LoopbackFile); ok && c.covers(p) {
		return servedFile{lf}
	}
	return f
}

// servedFile is a loopback file that declines passthrough.
type servedFile struct{ *fs.LoopbackFile }

// PassthroughFd implements fs.FilePassthroughFder: never.
func (servedFile) PassthroughFd() (int, bool) { return -1, false }

// fail answers a request the fault hit: after its delay, or at once when
// the request is interrupted (the caller was killed).
func (hit Fault) fail(ctx context.Context) syscall.Errno {
	if hit.Delay > 0 {
		t := time.NewTimer(hit.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
	}
	return hit.Errno
}

var (
	_ fs.NodeWriter   = (*node)(nil)
	_ fs.NodeWritever = (*node)(nil)
	_ fs.NodeFsyncer  = (*node)(nil)
)

// Write fails a WRITE the write faults hit; others reach the file.
func (n *node) Write(ctx context.Context, f fs.FileHandle, data []byte, off int64) (uint32, syscall.Errno) {
	if len(data) > 0 {
		if hit, ok := n.counts.strike(OpWrite, rel(n), f); ok {
			return 0, hit.fail(ctx)
		}
	}
	if w, ok := f.(fs.FileWriter); ok {
		return w.Write(ctx, data, off)
	}
	return 0, syscall.ENOTSUP
}

// Writev is Write for data in several slices.
func (n *node) Writev(ctx context.Context, f fs.FileHandle, data [][]byte, off int64) (uint32, syscall.Errno) {
	size := 0
	for _, d := range data {
		size += len(d)
	}
	if size > 0 {
		if hit, ok := n.counts.strike(OpWrite, rel(n), f); ok {
			return 0, hit.fail(ctx)
		}
	}
	if w, ok := f.(fs.FileWritever); ok {
		return w.Writev(ctx, data, off)
	}
	if w, ok := f.(fs.FileWriter); ok {
		var all []byte
		for _, d := range data {
			all = append(all, d...)
		}
		return w.Write(ctx, all, off)
	}
	return 0, syscall.ENOTSUP
}

// Fsync fails an FSYNC the fsync faults hit; others reach the file. The
// bridge also sends here an FSYNCDIR whose handle cannot sync itself:
// directories are never counted.
func (n *node) Fsync(ctx context.Context, f fs.FileHandle, flags uint32) syscall.Errno {
	if n.EmbeddedInode().IsDir() {
		if d, ok := f.(fs.FileFsyncdirer); ok {
			return d.Fsyncdir(ctx, flags)
		}
		if s, ok := f.(fs.FileFsyncer); ok {
			return s.Fsync(ctx, flags)
		}
		return syscall.ENOTSUP
	}
	if hit, ok := n.counts.strike(OpFsync, rel(n), f); ok {
		return hit.fail(ctx)
	}
	if s, ok := f.(fs.FileFsyncer); ok {
		return s.Fsync(ctx, flags)
	}
	return syscall.ENOTSUP
}
