package runner

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/forge-conform/forge-conform/conformance/check"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// freshLayout materializes a private copy of fx for a case that changes
// its fixture; cleanup removes it.
func (r *Runner) freshLayout(fx *fixture.Fixture) (fixture.Layout, func(), error) {
	n := atomic.AddInt64(&r.fresh, 1)
	dir := filepath.Join(r.base, fmt.Sprintf("%s.%d", fx.Name, n))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fixture.Layout{}, nil, err
	}
	cleanup := func() { _ = fixture.RemoveAll(dir) }
	l, err := fx.Materialize(dir, fixture.Options{Chown: r.caps.Owner})
	return l, cleanup, err
}

// before runs before-step i of c. It returns a message (and stderr) when the
// step failed, which errors the case: the step is setup, not the subject.
func (r *Runner) before(c *corpus.Case, i int, st corpus.Step, l fixture.Layout,
	exchange func(fcp.Request) (fcp.Response, int64, string, error)) (string, string) {
	where := fmt.Sprintf("before[%d]", i)
	disk := func(p string) (string, error) {
		clean := filepath.Clean(filepath.FromSlash(p))
		if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
			return "", fmt.Errorf("%s: path %q must be relative to the root and stay inside it", where, p)
		}
		return filepath.Join(l.Root, clean), nil
	}
	switch {
	case st.Call != nil:
		resp, _, stderr, err := exchange(beforeRequest(c, i, st.Call, l, r.config(c, l)))
		if err != nil {
			return fmt.Sprintf("%s %s: %v", where, st.Call.Tool, err), stderr
		}
		ok := resp.OK != nil && *resp.OK
		switch {
		case st.ExpectError == "" && !ok:
			return fmt.Sprintf("%s %s failed (%s): the case's setup must succeed", where, st.Call.Tool, errText(resp)), ""
		case st.ExpectError != "" && (ok || resp.Error == nil || resp.Error.Kind != st.ExpectError):
			return fmt.Sprintf("%s %s: want error %s, got %s", where, st.Call.Tool, st.ExpectError, errText(resp)), ""
		}
	case st.Write != nil:
		p, err := disk(st.Write.Path)
		if err == nil {
			err = os.WriteFile(p, []byte(st.Write.Content), 0o644)
		}
		if err == nil {
			err = r.own(p)
		}
		if err != nil {
			return fmt.Sprintf("%s write: %v", where, err), ""
		}
	case st.Remove != "":
		p, err := disk(st.Remove)
		if err == nil {
			err = os.Remove(p)
		}
		if err != nil {
			return fmt.Sprintf("%s remove: %v", where, err), ""
		}
	case st.Reset:
		resp, _, stderr, err := exchange(fcp.Request{FCP: fcp.Version, Op: fcp.OpReset, Case: c.FullName()})
		if err != nil {
			return fmt.Sprintf("%s reset: %v", where, err), stderr
		}
		if resp.OK == nil || !*resp.OK {
			return fmt.Sprintf("%s reset failed (%s): the case's setup must succeed", where, errText(resp)), ""
		}
	case st.Symlink != nil:
		p, err := disk(st.Symlink.Path)
		if err == nil {
			if err = os.Remove(p); errorsIsNotExist(err) {
				err = nil
			}
		}
		if err == nil {
			target := strings.NewReplacer("$ROOT", l.Root, "$OUTSIDE", l.Outside).Replace(st.Symlink.Target)
			err = os.Symlink(target, p)
		}
		if err == nil {
			err = r.own(p)
		}
		if err != nil {
			return fmt.Sprintf("%s symlink: %v", where, err), ""
		}
	}
	return "", ""
}

// beforeRequest is the request of before-step i, a call.
func beforeRequest(c *corpus.Case, i int, call *corpus.StepCall, l fixture.Layout, config json.RawMessage) fcp.Request {
	return fcp.Request{FCP: fcp.Version, Op: fcp.OpCall, Case: c.FullName(),
		Call: &fcp.Call{ID: fmt.Sprintf("%s_%d", strings.ReplaceAll(c.Name, "-", "_"), i), Name: call.Tool, Args: expand(call.Args, l)},
		Ctx:  &fcp.Ctx{WorkingDir: l.Root}, Config: config}
}

// own gives a path the runner created to the implementation's user.
func (r *Runner) own(p string) error {
	if r.caps.Owner == nil {
		return nil
	}
	return os.Lchown(p, r.caps.Owner.UID, r.caps.Owner.GID)
}

func errText(r fcp.Response) string {
	switch {
	case r.Error != nil:
		return r.Error.Kind + ": " + r.Error.Message
	case r.OK != nil && *r.OK:
		return "success"
	}
	b, _ := json.Marshal(r)
	return string(b)
}

func errorsIsNotExist(err error) bool { return err != nil && os.IsNotExist(err) }

// snapshotInline is the largest file a snapshot keeps verbatim.
const snapshotInline = 64 << 10

// snapshot records every entry under base (the fixture's root and outside
// dirs) with its type, permission bits, and content or link target. A
// runner that is not root meets the fixture's own unreadable entries (a
// directory of mode 0300, a file of mode 0000): it owns them, so it lends
// itself the read permission for the moment of reading (readable) and puts
// the mode back, and the snapshot shows the entry's own mode.
func snapshot(base string) (check.Snapshot, error) {
	snap := check.Snapshot{}
	var walk func(dir string) error
	walk = func(dir string) error {
		var entries []fs.DirEntry
		err := readable(dir, 0o500, func() (err error) {
			entries, err = os.ReadDir(dir)
			return err
		})
		if err != nil {
			return err
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			rel, _ := filepath.Rel(base, p)
			info, err := os.Lstat(p)
			if err != nil {
				return err
			}
			n := check.Node{Mode: fmt.Sprintf("%04o", info.Mode().Perm())}
			switch m := info.Mode(); {
			case m.IsRegular():
				n.Type = "file"
				var b []byte
				if err := readable(p, 0o400, func() (err error) {
					b, err = os.ReadFile(p)
					return err
				}); err != nil {
					return err
				}
				n.Content = string(b)
				if len(b) > snapshotInline {
					// Large files are compared by digest: a diff of megabytes
					// helps nobody, and the snapshot stays small.
					n.Content = fmt.Sprintf("<%d bytes, sha256 %x>", len(b), sha256.Sum256(b))
				}
			case m.IsDir():
				n.Type = "dir"
			case m&fs.ModeSymlink != 0:
				n.Type = "symlink"
				if n.Target, err = os.Readlink(p); err != nil {
					return err
				}
			default:
				n.Type = "other"
			}
			snap[filepath.ToSlash(rel)] = n
			if n.Type == "dir" {
				if err := walk(p); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return snap, walk(base)
}

// readable runs read on p; when that is denied and the runner owns p, it
// adds the permission bits need (0o400 for a file, 0o500 for a directory)
// for one more try, then restores p's mode.
func readable(p string, need fs.FileMode, read func() error) error {
	err := read()
	if !errors.Is(err, fs.ErrPermission) {
		return err
	}
	info, serr := os.Lstat(p)
	if serr != nil || ownerOf(info) != os.Geteuid() {
		return err
	}
	mode := info.Mode().Perm()
	if cerr := os.Chmod(p, mode|need); cerr != nil {
		return err
	}
	defer os.Chmod(p, mode)
	return read()
}
