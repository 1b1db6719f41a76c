// Package fcpclient is the runner's side of the Forge Conformance Protocol,
// version 1 (spec/PROTOCOL.md): it starts an implementation under test,
// writes requests to its stdin and reads one response line per request from
// its stdout, and never trusts it.
//
// Whatever the implementation does (hang, crash, print garbage, flood its
// stdout, answer out of order, spawn children that outlive it), the client
// returns within the caller's deadline with a *ProtocolError saying what
// happened, and leaves no process or goroutine behind:
//
//   - the implementation runs in its own process group and, on Linux, in a
//     cgroup v2 of its own when the hierarchy is writable (else the runner
//     is a child subreaper and marks the implementation's environment);
//     the whole tree is killed with SIGKILL when the client is done with
//     it, so grandchildren die too, those that left the process group
//     with setsid included (elsewhere than Linux only the group is killed);
//   - stdout is read by a goroutine that delivers lines over a channel, so
//     a wait can always be abandoned; a line is at most Options.MaxLineBytes
//     and reading stops at the first longer one;
//   - every response is checked: UTF-8, one JSON object, the request's seq,
//     and the FCP/1 JSON Schema when Options.Validator is set.
//
// A Session is one long-lived process for many requests; after a protocol
// error it is dead (its process is killed) and the caller starts a new one.
// OneShot runs one process for one request.
//
// # Running as another user
//
// A runner running as root sets Options.Credential to run the implementation
// as an unprivileged user (so that permission bits in fixtures mean
// something). That user must be able to reach everything it is given: the
// binary and every directory above it need read and search permission for it
// (mode 0755 on a binary in a world-searchable temp dir, not under /root),
// and so do Options.Dir and the fixture trees. Start reports an exec failure
// with that hint.
package fcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/forge-conform/forge-conform/spec/fcp"
	"github.com/forge-conform/forge-conform/spec/fcp/fcpschema"
)

// Defaults for Options.
const (
	DefaultMaxLineBytes = 16 << 20
	DefaultStderrBytes  = 64 << 10
	DefaultExitGrace    = 2 * time.Second
)

// Options say how to run the implementation.
type Options struct {
	// Command is the argv; Command[0] is resolved with exec.LookPath, a
	// relative path against the runner's working directory (not Dir).
	Command []string
	// Dir is the implementation's working directory; "" is the runner's.
	Dir string
	// Env is the implementation's environment; nil inherits the runner's.
	Env []string
	// Credential runs the implementation as another user (a root runner
	// uses an unprivileged one); nil runs it as the runner's user. See the
	// package documentation for what that user must be able to reach.
	Credential *syscall.Credential
	// MaxLineBytes bounds a response line, newline excluded (default
	// DefaultMaxLineBytes); a longer line is a "flood" protocol error.
	MaxLineBytes int
	// StderrBytes is how much of the end of stderr is kept for reports
	// (default DefaultStderrBytes).
	StderrBytes int
	// Validator, when set, checks every response against the FCP/1
	// schemas; a mismatch is an "invalid" protocol error.
	Validator *fcpschema.Validator
	// ExitGrace is how long Close waits for the process to exit after EOF
	// on its stdin (half of it for the answer to bye first), and how long
	// OneShot and a crashed session wait for the exit status, before
	// killing (default DefaultExitGrace).
	ExitGrace time.Duration
	// NoCgroup confines the implementation's processes by the subreaper
	// fallback even where a cgroup of its own could be created (see the
	// package documentation on process trees).
	NoCgroup bool
	// Unobserved starts the implementation without a network namespace
	// and a memory cgroup of its own, so Session.Network and
	// Session.WatchMemory report it unobserved (see observe.go); a
	// one-shot run, whose cases observe neither, saves their cost.
	Unobserved bool
}

func (o Options) withDefaults() Options {
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = DefaultMaxLineBytes
	}
	if o.StderrBytes <= 0 {
		o.StderrBytes = DefaultStderrBytes
	}
	if o.ExitGrace <= 0 {
		o.ExitGrace = DefaultExitGrace
	}
	return o
}

// The kinds of ProtocolError.
const (
	KindStart    = "start"     // the process could not be started
	KindTimeout  = "timeout"   // no response (or no exit) within the deadline
	KindCrash    = "crash"     // exited or closed stdout early, or exited non-zero after EOF
	KindGarbage  = "garbage"   // a line that is not one UTF-8 JSON object, or unexpected output
	KindFlood    = "flood"     // a line longer than MaxLineBytes
	KindWrongSeq = "wrong-seq" // a response whose seq is not the request's
	KindInvalid  = "invalid"   // a JSON object that is not a valid FCP/1 response
)

// ProtocolError is a failure of the implementation to follow FCP/1. After a
// Session returns one, the session is dead.
type ProtocolError struct {
	Kind   string // one of the Kind constants
	Seq    int64  // the request being answered; -1 when none
	Detail string // what happened, in one sentence
	Stderr string // the tail of the implementation's stderr
}

// stderrInError bounds the stderr quoted by Error; the full tail is in Stderr.
const stderrInError = 2048

func (e *ProtocolError) Error() string {
	s := "fcp protocol error (" + e.Kind + "): " + e.Detail
	if tail := strings.TrimSpace(e.Stderr); tail != "" {
		if len(tail) > stderrInError {
			tail = "..." + strings.ToValidUTF8(tail[len(tail)-stderrInError:], "")
		}
		s += "; stderr tail: " + tail
	}
	return s
}

// ErrDead is returned (wrapped, with the reason) by Do on a session that
// has failed or been closed. Start a new session.
var ErrDead = errors.New("fcpclient: the session is dead; start a new one")

// Session is one long-lived implementation process. Do, Hello and Close
// must not be called concurrently with each other, except that Close may be
// called while a Do is waiting, which aborts it.
type Session struct {
	o Options
	p *proc

	life       context.Context // cancelled by Close, aborting a waiting Do
	cancelLife context.CancelFunc

	mu     sync.Mutex // held by Do and Close
	seq    int64
	dead   error // why the session is dead; nil while alive
	closed bool
}

// Start starts the implementation. ctx only bounds the start; the session
// lives until Close, which the caller must always call (a dead session
// has already killed its process, but Close is still cheap and safe).
func Start(ctx context.Context, o Options) (*Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, &ProtocolError{Kind: KindStart, Seq: -1, Detail: "not started: " + err.Error()}
	}
	o = o.withDefaults()
	p, err := startProc(o)
	if err != nil {
		return nil, err
	}
	life, cancel := context.WithCancel(context.Background())
	return &Session{o: o, p: p, life: life, cancelLife: cancel}, nil
}

// Pid is the implementation's process id (and process group id).
func (s *Session) Pid() int { return s.p.pid }

// Stderr returns the captured tail of the implementation's stderr.
func (s *Session) Stderr() string { return s.p.stderr.String() }

// Hello sends op hello.
func (s *Session) Hello(ctx context.Context) (fcp.Response, error) {
	resp, _, err := s.Do(ctx, fcp.Request{Op: fcp.OpHello})
	return resp, err
}

// Do sends req with "fcp":1 and the session's next seq (0, 1, 2, ...) and
// waits for its response until ctx is done. It returns the decoded response
// and the raw line (without its newline). On a protocol error the process
// is killed and the session is dead: Do returns a *ProtocolError once, then
// errors wrapping ErrDead.
func (s *Session) Do(ctx context.Context, req fcp.Request) (fcp.Response, []byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead != nil {
		return fcp.Response{}, nil, fmt.Errorf("%w (%v)", ErrDead, s.dead)
	}
	req.FCP = fcp.Version
	req.Seq = s.seq
	s.seq++

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.life, cancel)
	defer stop()

	resp, raw, err := s.p.exchange(ctx, req, false)
	if errors.Is(err, errEncode) {
		return fcp.Response{}, nil, err // the caller's request, not the implementation, is at fault
	}
	if err != nil {
		if s.life.Err() != nil {
			err = fmt.Errorf("%w (closed while waiting for the response to seq %d)", ErrDead, req.Seq)
		}
		s.dead = err
		s.p.finish(0)
		return fcp.Response{}, raw, s.p.withStderr(err)
	}
	return resp, raw, nil
}

// Close ends the session: it sends bye (waiting up to ExitGrace/2 for the
// answer), closes stdin, waits up to ExitGrace for the process to exit,
// then kills the whole process group with SIGKILL, and always reaps the
// process. It returns nil if the implementation answered bye and exited 0,
// or if the session was already dead; otherwise a *ProtocolError saying
// what went wrong (the process is gone either way). Close is idempotent and
// aborts a Do that is waiting.
func (s *Session) Close() error {
	s.cancelLife()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if s.dead != nil {
		s.p.finish(0)
		return nil
	}
	s.dead = errors.New("closed")

	seq := s.seq
	s.seq++
	ctx, cancel := context.WithTimeout(context.Background(), s.o.ExitGrace/2)
	_, _, byeErr := s.p.exchange(ctx, fcp.Request{FCP: fcp.Version, Seq: seq, Op: fcp.OpBye}, true)
	cancel()
	exited := s.p.finish(s.o.ExitGrace)
	switch {
	case byeErr != nil:
		return s.p.withStderr(byeErr)
	case !exited:
		return s.p.withStderr(&ProtocolError{Kind: KindTimeout, Seq: seq, Detail: fmt.Sprintf(
			"did not exit within %s after answering bye and EOF on stdin; killed its process group", s.o.ExitGrace)})
	case !s.p.exitedZero():
		return s.p.withStderr(&ProtocolError{Kind: KindCrash, Seq: seq, Detail: fmt.Sprintf(
			"%s after bye and EOF on stdin; FCP/1 requires exit status 0", s.p.status())})
	}
	return nil
}

// OneShot runs one process for one request: it starts the implementation,
// writes req (with "fcp":1 and req's own seq), closes stdin, reads the one
// response line, and waits for the process to exit, which it must do with
// status 0 within ExitGrace and ctx. The process group is killed in every
// case. It returns the response and raw line whenever one was read, the
// stderr tail, and a *ProtocolError for anything the implementation did
// wrong, including output after the response and a bad exit.
func OneShot(ctx context.Context, o Options, req fcp.Request) (fcp.Response, []byte, string, error) {
	if err := ctx.Err(); err != nil {
		return fcp.Response{}, nil, "", &ProtocolError{Kind: KindStart, Seq: req.Seq, Detail: "not started: " + err.Error()}
	}
	o = o.withDefaults()
	p, err := startProc(o)
	if err != nil {
		return fcp.Response{}, nil, "", err
	}
	defer p.finish(0)
	req.FCP = fcp.Version
	resp, raw, err := p.exchange(ctx, req, true)
	if err != nil {
		p.finish(0)
		return fcp.Response{}, raw, p.stderr.String(), p.withStderr(err)
	}
	err = p.awaitExit(ctx, req.Seq)
	p.finish(0)
	if err != nil {
		return resp, raw, p.stderr.String(), p.withStderr(err)
	}
	return resp, raw, p.stderr.String(), nil
}

// awaitExit waits, after the response to seq, for the process to exit on
// its own within ExitGrace and ctx, watching for further output.
func (p *proc) awaitExit(parent context.Context, seq int64) error {
	ctx, cancel := context.WithTimeout(parent, p.o.ExitGrace)
	defer cancel()
	start := time.Now()
	lines := p.lines
	for {
		select {
		case <-p.exited:
			if lines != nil {
				// The exit races the last lines: read stdout to its end
				// (briefly: a grandchild may hold it open) first.
				if m, ok := p.lastLine(lines); ok {
					return &ProtocolError{Kind: KindGarbage, Seq: seq, Detail: fmt.Sprintf(
						"printed another line after the response to seq %d (one response line per request): %s", seq, quote(m.line))}
				}
			}
			p.finish(0)
			if !p.exitedZero() {
				return &ProtocolError{Kind: KindCrash, Seq: seq, Detail: fmt.Sprintf(
					"%s after answering seq %d and EOF on stdin; FCP/1 requires exit status 0", p.status(), seq)}
			}
			return nil
		case m := <-lines:
			if m.err != nil {
				lines = nil // stdout closed; keep waiting for the exit
				continue
			}
			return &ProtocolError{Kind: KindGarbage, Seq: seq, Detail: fmt.Sprintf(
				"printed another line after the response to seq %d (one response line per request): %s", seq, quote(m.line))}
		case <-ctx.Done():
			waited := p.o.ExitGrace
			if parent.Err() != nil {
				waited = time.Since(start).Round(time.Millisecond)
			}
			return &ProtocolError{Kind: KindTimeout, Seq: seq, Detail: fmt.Sprintf(
				"did not exit within %s after answering seq %d and EOF on stdin; killed its process group", waited, seq)}
		}
	}
}

// lastLine waits up to stderrDrain for the end of stdout and returns a line
// that came before it, if any.
func (p *proc) lastLine(lines <-chan lineMsg) (lineMsg, bool) {
	t := time.NewTimer(stderrDrain)
	defer t.Stop()
	select {
	case m := <-lines:
		return m, m.err == nil
	case <-t.C:
		return lineMsg{}, false
	}
}

// errEncode marks a request that cannot be encoded (invalid raw JSON in
// it): nothing was sent, and the session stays alive.
var errEncode = errors.New("fcpclient: cannot encode request")

// exchange writes req and reads its response. With closeStdin, stdin is
// closed after the request (one-shot, bye). Errors are *ProtocolError
// (without stderr); the caller kills the process.
func (p *proc) exchange(ctx context.Context, req fcp.Request, closeStdin bool) (fcp.Response, []byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(req); err != nil { // appends "\n"
		return fcp.Response{}, nil, fmt.Errorf("%w seq %d: %v; fix the case's request", errEncode, req.Seq, err)
	}
	start := time.Now()
	if err := p.send(ctx, buf.Bytes()); err != nil {
		return fcp.Response{}, nil, p.sendError(ctx, err, req.Seq, start)
	}
	if closeStdin {
		p.stdin.Close()
	}
	return p.recv(ctx, req, start)
}

// send writes one line to stdin, giving up when ctx is done.
func (p *proc) send(ctx context.Context, line []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	dl, _ := ctx.Deadline() // zero: no deadline
	if err := p.stdin.SetWriteDeadline(dl); err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { p.stdin.SetWriteDeadline(time.Unix(1, 0)) })
	defer stop()
	// A dead leader whose stdin a descendant holds open would block a
	// large write until the deadline: give up when the leader exits.
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-p.exited:
			p.stdin.SetWriteDeadline(time.Unix(1, 0))
		case <-done:
		}
	}()
	_, err := p.stdin.Write(line)
	return err
}

func (p *proc) sendError(ctx context.Context, err error, seq int64, start time.Time) error {
	select {
	case <-p.exited:
		return p.crashError(seq, fmt.Sprintf("writing request seq %d failed (%v)", seq, err))
	default:
	}
	if ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded) {
		return &ProtocolError{Kind: KindTimeout, Seq: seq, Detail: fmt.Sprintf(
			"timed out after %s writing request seq %d (the implementation is not reading its stdin)",
			time.Since(start).Round(time.Millisecond), seq)}
	}
	// EPIPE and friends: the implementation is gone or closed its stdin.
	return p.crashError(seq, fmt.Sprintf("writing request seq %d failed (%v)", seq, err))
}

// recv waits for the response line to req and checks it.
func (p *proc) recv(ctx context.Context, req fcp.Request, start time.Time) (fcp.Response, []byte, error) {
	m, err := p.next(ctx)
	switch {
	case errors.Is(err, errExited):
		return fcp.Response{}, nil, p.crashError(req.Seq, "exited while a descendant holds its stdout open")
	case err != nil:
		verb := "timed out"
		if !errors.Is(err, context.DeadlineExceeded) {
			verb = "cancelled"
		}
		return fcp.Response{}, nil, &ProtocolError{Kind: KindTimeout, Seq: req.Seq, Detail: fmt.Sprintf(
			"%s after %s waiting for the response to seq %d (op %s)",
			verb, time.Since(start).Round(time.Millisecond), req.Seq, req.Op)}
	case errors.Is(m.err, errFlood):
		return fcp.Response{}, nil, &ProtocolError{Kind: KindFlood, Seq: req.Seq, Detail: fmt.Sprintf(
			"response line exceeds %d bytes while answering seq %d", p.o.MaxLineBytes, req.Seq)}
	case m.err != nil:
		return fcp.Response{}, nil, p.crashError(req.Seq, fmt.Sprintf("stdout ended (%v)", m.err))
	}
	resp, err := p.check(m.line, req)
	return resp, m.line, err
}

// crashError describes an implementation that stopped talking: it waits up
// to ExitGrace for the exit status, then kills the group. An implementation
// that exited is reported as "crashed: " and how it ended.
func (p *proc) crashError(seq int64, what string) error {
	t := time.NewTimer(p.o.ExitGrace)
	select {
	case <-p.exited:
	case <-t.C:
	}
	t.Stop()
	if p.finish(0) {
		return &ProtocolError{Kind: KindCrash, Seq: seq, Detail: fmt.Sprintf(
			"crashed: %s before answering seq %d", p.status(), seq)}
	}
	return &ProtocolError{Kind: KindCrash, Seq: seq, Detail: fmt.Sprintf(
		"implementation closed its stdout or stdin but kept running (%s) before answering seq %d; killed its process group",
		what, seq)}
}

// check validates one response line against the request it answers.
func (p *proc) check(line []byte, req fcp.Request) (fcp.Response, error) {
	seq := req.Seq
	garbage := func(format string, args ...any) (fcp.Response, error) {
		return fcp.Response{}, &ProtocolError{Kind: KindGarbage, Seq: seq, Detail: fmt.Sprintf(format, args...)}
	}
	if !utf8.Valid(line) {
		return garbage("response to seq %d is not valid UTF-8 (byte offset %d): %s", seq, badUTF8(line), quote(line))
	}
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return garbage("response to seq %d is an empty line", seq)
	}
	if trimmed[0] != '{' || !json.Valid(trimmed) {
		return garbage("response to seq %d is not a JSON object: %s", seq, quote(line))
	}
	var head struct {
		Seq   *json.Number `json:"seq"`
		Error *fcp.Error   `json:"error"`
	}
	_ = json.Unmarshal(trimmed, &head) // a bad error object is left to the schema
	if head.Seq != nil {
		got, err := head.Seq.Int64()
		switch {
		case err == nil && got == -1 && seq != -1:
			msg := ""
			if head.Error != nil {
				msg = ": " + head.Error.Message
			}
			return fcp.Response{}, &ProtocolError{Kind: KindWrongSeq, Seq: seq, Detail: fmt.Sprintf(
				"answered seq -1 instead of %d: the implementation could not read the request%s", seq, msg)}
		case err == nil && got != seq:
			return fcp.Response{}, &ProtocolError{Kind: KindWrongSeq, Seq: seq, Detail: fmt.Sprintf(
				"got a response with seq %d while waiting for seq %d (responses come one per request, in order)", got, seq)}
		}
	}
	if p.o.Validator != nil {
		if err := p.o.Validator.ValidateResponse(req.Op, trimmed); err != nil {
			return fcp.Response{}, &ProtocolError{Kind: KindInvalid, Seq: seq, Detail: fmt.Sprintf("seq %d: %v", seq, err)}
		}
	}
	var resp fcp.Response
	if err := json.Unmarshal(trimmed, &resp); err != nil {
		return fcp.Response{}, &ProtocolError{Kind: KindInvalid, Seq: seq, Detail: fmt.Sprintf(
			"response to seq %d does not decode as an FCP/1 response: %v", seq, err)}
	}
	if head.Seq == nil {
		return fcp.Response{}, &ProtocolError{Kind: KindInvalid, Seq: seq, Detail: fmt.Sprintf(
			"response to seq %d has no seq", seq)}
	}
	return resp, nil
}

func (p *proc) withStderr(err error) error {
	var pe *ProtocolError
	if errors.As(err, &pe) && pe.Stderr == "" {
		pe.Stderr = p.stderr.String()
	}
	return err
}

// quote shows the start of a bad line in a report.
func quote(line []byte) string {
	const max = 200
	if len(line) > max {
		return fmt.Sprintf("%q... (%d bytes)", line[:max], len(line))
	}
	return fmt.Sprintf("%q", line)
}

func badUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}
