package runner

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/forge-conform/forge-conform/conformance/fcpclient"
	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/conformance/turnlog"
	"github.com/forge-conform/forge-conform/spec/fcp"
	"github.com/forge-conform/forge-conform/spec/fcp/fcpschema"
)

// binary talks FCP/1 to an external process: a pool of long-lived sessions
// (one per worker), or one process per request in one-shot mode.
type binary struct {
	opts    fcpclient.Options
	oneshot bool
	caps    Caps
	// runAs names the user of opts.Credential, for messages.
	runAs string

	mu   sync.Mutex
	idle []*fcpclient.Session
	all  map[*fcpclient.Session]bool
	// greeted are the sessions that got hello with test_tools.
	greeted map[*fcpclient.Session]bool
}

// newBinary prepares the FCP/1 target for argv. When the runner is root and
// runAs is not "root", the implementation runs as runAs, and every path of
// its command line must be reachable by that user (checkCommand).
func newBinary(argv []string, mode, runAs string) (*binary, error) {
	co := fcpclient.Options{Command: append([]string(nil), argv...), Env: append(os.Environ(), SecretEnv()...)}
	path, err := exec.LookPath(co.Command[0])
	if err != nil {
		return nil, fmt.Errorf("--binary: %w", err)
	}
	co.Command[0] = path
	b := &binary{oneshot: mode == ModeOneShot, all: map[*fcpclient.Session]bool{}, greeted: map[*fcpclient.Session]bool{}}
	// One process per request: no case observes it (they need a session).
	co.Unobserved = b.oneshot
	b.caps = Caps{Stateful: !b.oneshot, Unprivileged: os.Geteuid() != 0, CPUTime: !b.oneshot && fcpclient.CPUTimeAvailable() == nil}
	if os.Geteuid() == 0 && runAs != "root" {
		cred, u, err := credentialFor(runAs)
		if err != nil {
			return nil, err
		}
		if err := checkCommand(co.Command, argv[0], u); err != nil {
			return nil, err
		}
		co.Credential = cred
		b.runAs = runAs
		b.caps.Owner = &fixture.Owner{UID: u.uid, GID: u.gid}
		b.caps.Unprivileged = true
		b.caps.Notes = append(b.caps.Notes, fmt.Sprintf("running as root: the implementation runs as %s (uid %d) so permission cases apply", runAs, u.uid))
	} else if os.Geteuid() == 0 {
		b.caps.Notes = append(b.caps.Notes, "the implementation runs as root (--run-as root): cases on permission-restricted fixtures are skipped")
	}
	v, err := fcpschema.NewValidator()
	if err != nil {
		return nil, err
	}
	co.Validator = v
	b.opts = co
	return b, nil
}

func (b *binary) Caps() Caps { return b.caps }

// Hello asks hello. When the implementation runs as the --run-as user and
// hello fails, Hello asks again with the implementation running as the
// runner (root): if that succeeds, the user is the cause, and the error is
// a *helloAsUserError.
func (b *binary) Hello(ctx context.Context) (fcp.Response, error) {
	resp, err := b.hello(ctx)
	if err == nil || b.runAs == "" || ctx.Err() != nil {
		return resp, err
	}
	asRunner := b.opts
	asRunner.Credential = nil
	if _, _, _, perr := fcpclient.OneShot(ctx, asRunner, fcp.Request{Op: fcp.OpHello}); perr == nil {
		u := runUser{name: b.runAs, uid: int(b.opts.Credential.Uid), gid: int(b.opts.Credential.Gid)}
		return resp, &helloAsUserError{user: u, err: err}
	}
	return resp, err
}

func (b *binary) hello(ctx context.Context) (fcp.Response, error) {
	if b.oneshot {
		resp, _, stderr, err := fcpclient.OneShot(ctx, b.opts, fcp.Request{Op: fcp.OpHello})
		if err != nil && stderr != "" {
			err = fmt.Errorf("%w; stderr: %s", err, tail(stderr, 500))
		}
		return resp, err
	}
	s, err := fcpclient.Start(ctx, b.opts)
	if err != nil {
		return fcp.Response{}, err
	}
	resp, err := helloTestTools(ctx, s)
	b.mu.Lock()
	b.all[s] = true
	b.greeted[s] = true
	b.mu.Unlock()
	b.give(s, err)
	return resp, err
}

// helloTestTools sends hello with test_tools (PROTOCOL.md §9.5), which
// registers the fcp_* test tools for the rest of that process: every
// session of the pool is greeted so before its first turn.
func helloTestTools(ctx context.Context, s *fcpclient.Session) (fcp.Response, error) {
	resp, _, err := s.Do(ctx, fcp.Request{Op: fcp.OpHello, TestTools: true})
	return resp, err
}

func (b *binary) Open(ctx context.Context) (Conversation, error) {
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

func (c *sessionConversation) Do(ctx context.Context, req fcp.Request, _ []fixture.Fault) (Reply, error) {
	resp, _, err := c.s.Do(ctx, req)
	rep := Reply{Response: resp, ContentBytes: contentBytes(resp)}
	if err != nil {
		rep.Stderr = c.s.Stderr()
	}
	return rep, err
}

func (c *sessionConversation) Release(err error) { c.b.give(c.s, err) }

// CPUTime is the CPU time the session's process tree has used so far.
func (c *sessionConversation) CPUTime() (time.Duration, error) { return c.s.CPUTime() }

// Greet sends hello with test_tools to the session's process, once.
func (c *sessionConversation) Greet(ctx context.Context) error {
	c.b.mu.Lock()
	greeted := c.b.greeted[c.s]
	c.b.mu.Unlock()
	if greeted {
		return nil
	}
	if _, err := helloTestTools(ctx, c.s); err != nil {
		return err
	}
	c.b.mu.Lock()
	c.b.greeted[c.s] = true
	c.b.mu.Unlock()
	return nil
}

// Turn runs one turn on the session's process (PROTOCOL.md §9).
func (c *sessionConversation) Turn(ctx context.Context, req fcp.TurnRequest, user turnlog.User) (*turnlog.Log, string, error) {
	c.b.mu.Lock()
	greeted := c.b.greeted[c.s]
	c.b.mu.Unlock()
	if !greeted {
		if _, err := helloTestTools(ctx, c.s); err != nil {
			return &turnlog.Log{}, c.s.Stderr(), fmt.Errorf("hello (test_tools) before the turn: %w", err)
		}
		c.b.mu.Lock()
		c.b.greeted[c.s] = true
		c.b.mu.Unlock()
	}
	log, err := c.s.Turn(ctx, req, user)
	if err != nil {
		return log, c.s.Stderr(), err
	}
	return log, "", nil
}

// KillTree crashes the session's process from outside (PROTOCOL.md §10.2).
func (c *sessionConversation) KillTree() { c.s.KillTree() }

// KilledBySIGKILL reports whether the session's process died by SIGKILL.
func (c *sessionConversation) KilledBySIGKILL() bool {
	sig, ok := c.s.Signal()
	return ok && sig == syscall.SIGKILL
}

// OpenFresh starts a conversation on a new process, greeted with hello
// test_tools, that no earlier case has used: a recover after a crash must
// run in a fresh process (PROTOCOL.md §10.3).
func (b *binary) OpenFresh(ctx context.Context) (Conversation, error) {
	if b.oneshot {
		return nil, fmt.Errorf("a fresh process per step needs --mode session")
	}
	s, err := fcpclient.Start(ctx, b.opts)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.all[s] = true
	b.mu.Unlock()
	return &sessionConversation{b: b, s: s}, nil
}

// oneShotConversation starts a process per request.
type oneShotConversation struct{ b *binary }

func (c oneShotConversation) Do(ctx context.Context, req fcp.Request, _ []fixture.Fault) (Reply, error) {
	resp, _, stderr, err := fcpclient.OneShot(ctx, c.b.opts, req)
	return Reply{Response: resp, ContentBytes: contentBytes(resp), Stderr: stderr}, err
}

func (oneShotConversation) Release(error) {}

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
		delete(b.greeted, s)
		b.mu.Unlock()
		return
	}
	b.mu.Lock()
	b.idle = append(b.idle, s)
	b.mu.Unlock()
}

func (b *binary) Close() {
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
func contentBytes(r fcp.Response) int64 {
	if r.Content == nil {
		return 0
	}
	return int64(len(*r.Content))
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

// Network returns the IP counters of the session's network namespace
// (ProcessConversation).
func (c *sessionConversation) Network() (fcpclient.NetCounters, error) { return c.s.Network() }

// WatchMemory samples the memory of the session's process tree
// (ProcessConversation).
func (c *sessionConversation) WatchMemory() (*fcpclient.MemoryWatch, error) { return c.s.WatchMemory() }

// TurnInto is Turn recording into log (ProcessConversation).
func (c *sessionConversation) TurnInto(ctx context.Context, req fcp.TurnRequest, user turnlog.User, log *turnlog.Log) (*turnlog.Log, string, error) {
	c.b.mu.Lock()
	greeted := c.b.greeted[c.s]
	c.b.mu.Unlock()
	if !greeted {
		if err := c.Greet(ctx); err != nil {
			return log, c.s.Stderr(), fmt.Errorf("hello (test_tools) before the turn: %w", err)
		}
	}
	log, err := c.s.TurnInto(ctx, req, user, log)
	if err != nil {
		return log, c.s.Stderr(), err
	}
	return log, "", nil
}
