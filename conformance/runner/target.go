package runner

import (
	"context"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/conformance/fcpclient"
	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/impl/session"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// target is the implementation under test.
type target interface {
	hello(ctx context.Context) (fcp.Response, error)
	// open starts one conversation: every exchange of one case goes
	// through it, to the same process in session mode.
	open(ctx context.Context) (conversation, error)
	close()
}

// conversation carries the exchanges of one case.
type conversation interface {
	// do sends one request. faults, when set, are injected in-process; a
	// target that cannot inject faults never receives such a request.
	do(ctx context.Context, req fcp.Request, faults []fsys.Fault) (resp fcp.Response, contentBytes int64, stderr string, err error)
	// release ends the conversation; after a protocol error the process
	// is killed so the next case starts a fresh one.
	release(err error)
	// stateful reports whether calls share conversation state (one-shot
	// processes do not).
	stateful() bool
}

// inProcess calls the reference implementation directly.
type inProcess struct {
	ref *reference.Reference
	fs  afero.Fs
}

func newInProcess(opts reference.Options, emulate bool) (*inProcess, error) {
	base := fsys.OS()
	if emulate {
		base = fsys.NewPermFs(base)
	}
	opts.FS = base
	ref, err := reference.New(opts)
	if err != nil {
		return nil, err
	}
	return &inProcess{ref: ref, fs: base}, nil
}

func (t *inProcess) hello(context.Context) (fcp.Response, error) { return t.ref.Hello(), nil }

func (t *inProcess) open(context.Context) (conversation, error) {
	return &inConversation{t: t, state: session.New()}, nil
}

func (t *inProcess) close() {}

// inConversation is one case against the in-process reference, with a
// conversation state of its own.
type inConversation struct {
	t     *inProcess
	state *session.State
}

func (c *inConversation) do(ctx context.Context, req fcp.Request, faults []fsys.Fault) (fcp.Response, int64, string, error) {
	fs := c.t.fs
	if len(faults) > 0 {
		fs = fsys.NewFaultFs(fs, faults)
	}
	resp := c.t.ref.HandleIn(ctx, req, fs, c.state)
	var n int64
	if resp.Content != nil {
		n = int64(len(*resp.Content))
	}
	return resp, n, "", nil
}

func (c *inConversation) release(error)  {}
func (c *inConversation) stateful() bool { return true }

// binary talks FCP/1 to an external process: a pool of long-lived sessions
// (one per worker), or one process per request in one-shot mode.
type binary struct {
	opts    fcpclient.Options
	oneshot bool

	mu   sync.Mutex
	idle []*fcpclient.Session
	all  map[*fcpclient.Session]bool
}

func newBinary(o fcpclient.Options, oneshot bool) *binary {
	return &binary{opts: o, oneshot: oneshot, all: map[*fcpclient.Session]bool{}}
}

func (b *binary) hello(ctx context.Context) (fcp.Response, error) {
	if b.oneshot {
		resp, _, stderr, err := fcpclient.OneShot(ctx, b.opts, fcp.Request{Op: fcp.OpHello})
		if err != nil && stderr != "" {
			err = fmt.Errorf("%w; stderr: %s", err, tail(stderr, 500))
		}
		return resp, err
	}
	s, err := b.take(ctx)
	if err != nil {
		return fcp.Response{}, err
	}
	resp, err := s.Hello(ctx)
	b.give(s, err)
	return resp, err
}

func (b *binary) open(ctx context.Context) (conversation, error) {
	if b.oneshot {
		return oneShotConversation{b: b}, nil
	}
	s, err := b.take(ctx)
	if err != nil {
		return nil, err
	}
	return &sessionConversation{b: b, s: s}, nil
}

// sessionConversation pins one case to one process of the pool.
type sessionConversation struct {
	b *binary
	s *fcpclient.Session
}

func (c *sessionConversation) do(ctx context.Context, req fcp.Request, _ []fsys.Fault) (fcp.Response, int64, string, error) {
	resp, raw, err := c.s.Do(ctx, req)
	stderr := ""
	if err != nil {
		stderr = c.s.Stderr()
	}
	return resp, contentBytes(resp, raw), stderr, err
}

func (c *sessionConversation) release(err error) { c.b.give(c.s, err) }
func (c *sessionConversation) stateful() bool    { return true }

// oneShotConversation starts a process per request.
type oneShotConversation struct{ b *binary }

func (c oneShotConversation) do(ctx context.Context, req fcp.Request, _ []fsys.Fault) (fcp.Response, int64, string, error) {
	resp, raw, stderr, err := fcpclient.OneShot(ctx, c.b.opts, req)
	return resp, contentBytes(resp, raw), stderr, err
}

func (oneShotConversation) release(error)  {}
func (oneShotConversation) stateful() bool { return false }

// take returns an idle session or starts one.
func (b *binary) take(ctx context.Context) (*fcpclient.Session, error) {
	b.mu.Lock()
	if n := len(b.idle); n > 0 {
		s := b.idle[n-1]
		b.idle = b.idle[:n-1]
		b.mu.Unlock()
		return s, nil
	}
	b.mu.Unlock()
	s, err := fcpclient.Start(ctx, b.opts)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.all[s] = true
	b.mu.Unlock()
	return s, nil
}

// give returns a session to the pool, or kills it after a protocol error
// so the next case starts a fresh process.
func (b *binary) give(s *fcpclient.Session, err error) {
	if err != nil {
		_ = s.Close()
		b.mu.Lock()
		delete(b.all, s)
		b.mu.Unlock()
		return
	}
	b.mu.Lock()
	b.idle = append(b.idle, s)
	b.mu.Unlock()
}

func (b *binary) close() {
	b.mu.Lock()
	all := b.all
	b.all, b.idle = map[*fcpclient.Session]bool{}, nil
	b.mu.Unlock()
	for s := range all {
		_ = s.Close()
	}
}

// contentBytes is the byte length of the content string as sent. Decoding
// the JSON line and measuring the Go string gives the same UTF-8 length.
func contentBytes(r fcp.Response, _ []byte) int64 {
	if r.Content == nil {
		return 0
	}
	return int64(len(*r.Content))
}

// credentialFor resolves --run-as to a credential, and checks that the
// user can reach the implementation's executable.
func credentialFor(name string, argv0 string) (*syscall.Credential, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("--run-as %s: %w (name an existing unprivileged user, or --run-as root to run the implementation as root, which skips permission cases)", name, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := reachable(argv0, uid, gid); err != nil {
		return nil, fmt.Errorf("--run-as %s cannot execute the implementation: %w; put it where every user can read and execute it (for example under /tmp or /usr/local/bin), or pass --run-as root (permission cases are then skipped)", name, err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}, nil
}

// reachable approximates the kernel's permission check for uid/gid on the
// path's directories (search) and the file (execute).
func reachable(path string, uid, gid int) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	allowed := func(fi os.FileInfo, bit os.FileMode) bool {
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return true
		}
		m := fi.Mode().Perm()
		switch {
		case int(st.Uid) == uid:
			return m&(bit<<6) != 0
		case int(st.Gid) == gid:
			return m&(bit<<3) != 0
		}
		return m&bit != 0
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		fi, err := os.Stat(dir)
		if err != nil {
			return err
		}
		if !allowed(fi, 1) {
			return fmt.Errorf("directory %s is not searchable by uid %d", dir, uid)
		}
		if dir == "/" || dir == "." {
			break
		}
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return err
	}
	if !allowed(fi, 1) {
		return fmt.Errorf("%s is not executable by uid %d", abs, uid)
	}
	return nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
