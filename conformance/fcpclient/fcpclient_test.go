package fcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/forge-conform/forge-conform/spec/fcp"
	"github.com/forge-conform/forge-conform/spec/fcp/fcpschema"
)

// fakeimpl and forgeConform are the paths of testdata/fakeimpl and of
// cmd/forge-conform (whose `ref` command serves the reference over FCP/1),
// built by TestMain into a directory every user can reach (mode 0755), for
// the run-as-nobody test.
var fakeimpl, forgeConform string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fcpclient-test-")
	if err == nil {
		err = os.Chmod(dir, 0o755)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fcpclient tests:", err)
		os.Exit(1)
	}
	fakeimpl = filepath.Join(dir, "fakeimpl")
	forgeConform = filepath.Join(dir, "forge-conform")
	build := exec.Command("go", "build", "-o", dir, "./testdata/fakeimpl", "../../cmd/forge-conform")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "fcpclient tests: building testdata/fakeimpl and cmd/forge-conform:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// opts runs fakeimpl in mode with short grace periods.
func opts(mode string, args ...string) Options {
	return Options{Command: append([]string{fakeimpl, mode}, args...), ExitGrace: 300 * time.Millisecond}
}

// noLeaks fails the test if goroutines started during it are still running
// at its end. Tests in this package do not run in parallel.
func noLeaks(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(3 * time.Second)
		for {
			n := runtime.NumGoroutine()
			if n <= before {
				return
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				t.Errorf("goroutine leak: %d before, %d after\n%s", before, n, buf)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// gone reports whether pid has exited (no such process, or a zombie that
// nobody here is responsible for reaping).
func gone(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ESRCH)
	}
	// pid (comm) S ...: the state follows the last ')'.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}

func waitGone(t *testing.T, what string, pid int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for !gone(pid) {
		if time.Now().After(deadline) {
			t.Errorf("%s (pid %d) is still running", what, pid)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func ctxTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func protocolError(t *testing.T, err error) *ProtocolError {
	t.Helper()
	var pe *ProtocolError
	if !errors.As(err, &pe) {
		t.Fatalf("got %v (%T), want a *ProtocolError", err, err)
	}
	return pe
}

func call(args string) fcp.Request {
	return fcp.Request{Op: fcp.OpCall, Call: &fcp.Call{ID: "c", Name: "echo", Args: json.RawMessage(args)},
		Ctx: &fcp.Ctx{WorkingDir: "/"}}
}

func TestSessionGood(t *testing.T) {
	noLeaks(t)
	v, err := fcpschema.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	o := opts("echo-good")
	o.Validator = v
	s, err := Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	hello, err := s.Hello(ctxTimeout(t, 5*time.Second))
	if err != nil || hello.Seq != 0 || hello.Implementation.Name != "fake" {
		t.Fatalf("hello: %+v, %v", hello, err)
	}
	for i := 1; i <= 3; i++ {
		args := fmt.Sprintf(`{"n":%d,"s":"<&>"}`, i)
		resp, raw, err := s.Do(ctxTimeout(t, 5*time.Second), call(args))
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if resp.Seq != int64(i) || *resp.Content != args || !strings.Contains(string(raw), `"seq":`+strconv.Itoa(i)) {
			t.Errorf("call %d: %+v %s", i, resp, raw)
		}
	}
	if resp, _, err := s.Do(ctxTimeout(t, 5*time.Second), fcp.Request{Op: "frobnicate"}); err != nil || *resp.OK {
		t.Errorf("unknown op: %+v %v", resp, err)
	}
	// A request that cannot be encoded is the caller's fault: the session lives on.
	if _, _, err := s.Do(ctxTimeout(t, 5*time.Second), call(`{"broken"`)); err == nil || errors.As(err, new(*ProtocolError)) {
		t.Errorf("unencodable request: got %v, want a plain error", err)
	}
	if _, _, err := s.Do(ctxTimeout(t, 5*time.Second), call(`{}`)); err != nil {
		t.Errorf("after an unencodable request: %v", err)
	}
	pid := s.Pid()
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	waitGone(t, "implementation", pid)
	if _, _, err := s.Do(context.Background(), call(`{}`)); !errors.Is(err, ErrDead) {
		t.Errorf("Do after Close: %v, want ErrDead", err)
	}
}

func TestSessionProtocolErrors(t *testing.T) {
	v, err := fcpschema.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	big := `{"x":"` + strings.Repeat("y", 4<<20) + `"}`
	tests := []struct {
		name      string
		o         Options
		timeout   time.Duration
		req       fcp.Request
		okBefore  int // requests answered correctly first (hello, then calls)
		kind      string
		detail    string
		stderr    string
		maxTaking time.Duration
	}{
		{name: "hang", o: opts("hang"), timeout: 300 * time.Millisecond, req: call(`{}`),
			kind: KindTimeout, detail: "waiting for the response to seq 0 (op call)", maxTaking: 2 * time.Second},
		{name: "crash after hello", o: opts("crash-after-hello"), timeout: 5 * time.Second, req: call(`{}`), okBefore: 1,
			kind: KindCrash, detail: "crashed: exited with status 3 before answering seq 1", stderr: "fatal: boom"},
		// The leader dies by SIGKILL while its child holds stdout open: the
		// exit is seen on the process itself, well before the timeout.
		{name: "sigkill with grandchild holding stdout", o: opts("grandchild-then-sigkill"), timeout: 60 * time.Second,
			req: call(`{}`), okBefore: 1,
			kind: KindCrash, detail: "crashed: killed by signal 9 (SIGKILL) before answering seq 1", stderr: "fatal: killing myself"},
		// The same while the request is being written: the child holds
		// stdin open and never reads it, so a large write would block.
		{name: "sigkill with grandchild holding stdin", o: opts("sigkill-after-hello"), timeout: 60 * time.Second,
			req: call(big), okBefore: 1,
			kind: KindCrash, detail: "crashed: killed by signal 9 (SIGKILL) before answering seq 1"},
		{name: "garbage", o: opts("garbage"), timeout: 5 * time.Second, req: call(`{}`),
			kind: KindGarbage, detail: `response to seq 0 is not a JSON object: "this is not json"`},
		{name: "flood", o: func() Options { o := opts("flood"); o.MaxLineBytes = 100 << 10; return o }(),
			timeout: 5 * time.Second, req: call(`{}`), kind: KindFlood, detail: "response line exceeds 102400 bytes"},
		{name: "wrong seq", o: opts("wrong-seq"), timeout: 5 * time.Second, req: call(`{}`),
			kind: KindWrongSeq, detail: "got a response with seq 1 while waiting for seq 0"},
		{name: "seq -1", o: opts("seq-minus-one"), timeout: 5 * time.Second, req: call(`{}`),
			kind: KindWrongSeq, detail: "could not read the request: cannot parse"},
		{name: "invalid utf-8", o: opts("invalid-utf8"), timeout: 5 * time.Second, req: call(`{}`),
			kind: KindGarbage, detail: "not valid UTF-8 (byte offset 30)"},
		{name: "schema-invalid", o: func() Options { o := opts("schema-invalid"); o.Validator = v; return o }(),
			timeout: 5 * time.Second, req: call(`{}`), okBefore: 1,
			kind: KindInvalid, detail: `seq 1: response to "call" does not match call-response.json: at /: missing properties: 'content', 'allow_truncation'`},
		{name: "extra line", o: opts("extra-line"), timeout: 5 * time.Second, req: call(`{}`), okBefore: 1,
			kind: KindWrongSeq, detail: "got a response with seq 0 while waiting for seq 1"},
		{name: "close stdout", o: opts("close-stdout"), timeout: 5 * time.Second, req: call(`{}`),
			kind: KindCrash, detail: "closed its stdout or stdin but kept running"},
		{name: "not reading stdin", o: opts("ignore-stdin"), timeout: 300 * time.Millisecond, req: call(big),
			kind: KindTimeout, detail: "writing request seq 0 (the implementation is not reading its stdin)", maxTaking: 2 * time.Second},
		{name: "grandchild", o: opts("spawn-grandchild-and-hang"), timeout: 300 * time.Millisecond, req: call(`{}`), okBefore: 1,
			kind: KindTimeout, detail: "waiting for the response to seq 1 (op call)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			noLeaks(t)
			s, err := Start(context.Background(), tt.o)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			grandchild := 0
			for i := range tt.okBefore {
				req := call(`{}`)
				if i == 0 {
					req = fcp.Request{Op: fcp.OpHello}
				}
				resp, _, err := s.Do(ctxTimeout(t, 5*time.Second), req)
				if err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				if i == 0 && (tt.name == "grandchild" || strings.Contains(tt.name, "grandchild holding")) {
					grandchild, _ = strconv.Atoi(resp.Implementation.Version)
				}
			}
			start := time.Now()
			_, _, err = s.Do(ctxTimeout(t, tt.timeout), tt.req)
			took := time.Since(start)
			pe := protocolError(t, err)
			if pe.Kind != tt.kind || !strings.Contains(pe.Detail, tt.detail) || pe.Seq != int64(tt.okBefore) {
				t.Errorf("got %s error for seq %d: %s\nwant %s containing %q for seq %d", pe.Kind, pe.Seq, pe.Detail, tt.kind, tt.detail, tt.okBefore)
			}
			if !strings.Contains(pe.Stderr, tt.stderr) || !strings.Contains(err.Error(), tt.stderr) {
				t.Errorf("stderr %q (error %q) lacks %q", pe.Stderr, err, tt.stderr)
			}
			if tt.maxTaking > 0 && took > tt.maxTaking {
				t.Errorf("took %v, want at most %v", took, tt.maxTaking)
			}
			// The session is dead and its processes are gone.
			waitGone(t, "implementation", s.Pid())
			if grandchild > 0 {
				waitGone(t, "grandchild", grandchild)
			}
			if _, _, err := s.Do(context.Background(), call(`{}`)); !errors.Is(err, ErrDead) {
				t.Errorf("Do on a dead session: %v, want ErrDead", err)
			}
			if err := s.Close(); err != nil {
				t.Errorf("Close of a dead session: %v", err)
			}
		})
	}
}

func TestSessionSlowWithinDeadline(t *testing.T) {
	noLeaks(t)
	s, err := Start(context.Background(), opts("slow", "100ms"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for range 2 {
		if _, _, err := s.Do(ctxTimeout(t, 3*time.Second), call(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

func TestCloseProblems(t *testing.T) {
	tests := []struct {
		mode   string
		hello  bool // say hello first
		kind   string
		detail string
	}{
		{"hang", false, KindTimeout, "waiting for the response to seq 0 (op bye)"},
		{"spawn-grandchild-and-hang", false, KindTimeout, "waiting for the response to seq 0 (op bye)"},
		{"linger", true, KindTimeout, "did not exit within 300ms after answering bye and EOF on stdin"},
		{"bye-exit-1", true, KindCrash, "exited with status 1 after bye and EOF on stdin"},
		{"crash-after-hello", true, KindCrash, "crashed: exited with status 3 before answering seq 1"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			noLeaks(t)
			s, err := Start(context.Background(), opts(tt.mode))
			if err != nil {
				t.Fatal(err)
			}
			if tt.hello {
				if _, err := s.Hello(ctxTimeout(t, 5*time.Second)); err != nil {
					t.Fatal(err)
				}
			}
			start := time.Now()
			err = s.Close()
			pe := protocolError(t, err)
			if pe.Kind != tt.kind || !strings.Contains(pe.Detail, tt.detail) {
				t.Errorf("Close: %v\nwant %s containing %q", err, tt.kind, tt.detail)
			}
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("Close took %v", took)
			}
			waitGone(t, "implementation", s.Pid())
			if err := s.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
		})
	}
}

func TestCloseAbortsWaitingDo(t *testing.T) {
	noLeaks(t)
	s, err := Start(context.Background(), opts("hang"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := s.Do(context.Background(), call(`{}`)) // no deadline
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrDead) || !strings.Contains(err.Error(), "closed while waiting for the response to seq 0") {
			t.Errorf("aborted Do: %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("Close did not abort the waiting Do")
	}
	if err := <-closed; err != nil {
		t.Errorf("Close: %v", err)
	}
	waitGone(t, "implementation", s.Pid())
}

func TestStderrTail(t *testing.T) {
	noLeaks(t)
	o := opts("stderr-spam", "200000")
	o.StderrBytes = 1000
	s, err := Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Hello(ctxTimeout(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	got := s.Stderr()
	if !strings.HasPrefix(got, "[199000 earlier bytes dropped]\n") || !strings.HasSuffix(got, "eeeEND\n") ||
		len(got) != len("[199000 earlier bytes dropped]\n")+1000 {
		t.Errorf("stderr tail: %d bytes, %.60q...%q", len(got), got, got[max(0, len(got)-10):])
	}
}

func TestTail(t *testing.T) {
	tests := []struct {
		writes []string
		want   string
	}{
		{[]string{"ab", "cd"}, "abcd"},
		{[]string{"abc", "de"}, "[1 earlier bytes dropped]\nbcde"},
		{[]string{"a", "bcdefg"}, "[3 earlier bytes dropped]\ndefg"},
		{[]string{"abcd", "e", "f", "ghijkl"}, "[8 earlier bytes dropped]\nijkl"},
	}
	for _, tt := range tests {
		tl := newTail(4)
		for _, w := range tt.writes {
			tl.Write([]byte(w))
		}
		if got := tl.String(); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.writes, got, tt.want)
		}
	}
}

func TestOneShot(t *testing.T) {
	tests := []struct {
		name    string
		o       Options
		timeout time.Duration
		resp    bool   // a response is returned
		kind    string // "" = no error
		detail  string
	}{
		{name: "good", o: opts("echo-good"), timeout: 5 * time.Second, resp: true},
		{name: "final line without newline", o: opts("no-newline-exit"), timeout: 5 * time.Second, resp: true},
		{name: "exit 2 after EOF", o: opts("exit-nonzero-after-eof"), timeout: 5 * time.Second, resp: true,
			kind: KindCrash, detail: "exited with status 2 after answering seq 7 and EOF on stdin"},
		{name: "extra output", o: opts("extra-line"), timeout: 5 * time.Second, resp: true,
			kind: KindGarbage, detail: "printed another line after the response to seq 7"},
		{name: "hang", o: opts("hang"), timeout: 300 * time.Millisecond,
			kind: KindTimeout, detail: "timed out after"},
		{name: "answers but never exits", o: opts("linger"), timeout: 5 * time.Second, resp: true,
			kind: KindTimeout, detail: "did not exit within 300ms after answering seq 7 and EOF on stdin"},
		{name: "crash", o: opts("crash-after-hello"), timeout: 5 * time.Second,
			kind: KindCrash, detail: "crashed: exited with status 3 before answering seq 7"},
		{name: "flood", o: func() Options { o := opts("flood"); o.MaxLineBytes = 1000; return o }(), timeout: 5 * time.Second,
			kind: KindFlood, detail: "response line exceeds 1000 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			noLeaks(t)
			req := call(`{"a":1}`)
			req.Seq = 7
			start := time.Now()
			resp, raw, stderr, err := OneShot(ctxTimeout(t, tt.timeout), tt.o, req)
			if took := time.Since(start); took > tt.timeout+2*time.Second {
				t.Errorf("took %v", took)
			}
			if tt.resp && (resp.Seq != 7 || resp.Content == nil || len(raw) == 0) {
				t.Errorf("response: %+v %q", resp, raw)
			}
			if tt.kind == "" {
				if err != nil {
					t.Errorf("error: %v (stderr %q)", err, stderr)
				}
				return
			}
			pe := protocolError(t, err)
			if pe.Kind != tt.kind || !strings.Contains(pe.Detail, tt.detail) {
				t.Errorf("got %s: %s\nwant %s containing %q", pe.Kind, pe.Detail, tt.kind, tt.detail)
			}
			if tt.name == "crash" && !strings.Contains(stderr, "boom") {
				t.Errorf("stderr = %q", stderr)
			}
		})
	}
}

func TestOneShotKillsGrandchild(t *testing.T) {
	noLeaks(t)
	// hello makes spawn-grandchild-and-hang answer with the grandchild's pid.
	resp, _, _, err := OneShot(ctxTimeout(t, 5*time.Second), opts("spawn-grandchild-and-hang"), fcp.Request{Op: fcp.OpHello})
	if pe := protocolError(t, err); pe.Kind != KindTimeout {
		t.Errorf("got %v, want a timeout waiting for the exit", err)
	}
	pid, _ := strconv.Atoi(resp.Implementation.Version)
	if pid <= 0 {
		t.Fatalf("no grandchild pid in %+v", resp)
	}
	waitGone(t, "grandchild", pid)
}

func TestStartErrors(t *testing.T) {
	noLeaks(t)
	notExec := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(notExec, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cmd    []string
		detail string
	}{
		{nil, "no command given"},
		{[]string{"/nonexistent/impl"}, `cannot find "/nonexistent/impl"`},
		{[]string{"no-such-command-fcpclient"}, "cannot find"},
		{[]string{notExec}, "cannot find"},
	}
	for _, tt := range tests {
		_, err := Start(context.Background(), Options{Command: tt.cmd})
		pe := protocolError(t, err)
		if pe.Kind != KindStart || !strings.Contains(pe.Detail, tt.detail) {
			t.Errorf("%q: %v, want start error containing %q", tt.cmd, err, tt.detail)
		}
		_, _, _, err = OneShot(context.Background(), Options{Command: tt.cmd}, fcp.Request{Op: "hello"})
		if pe := protocolError(t, err); pe.Kind != KindStart {
			t.Errorf("OneShot %q: %v", tt.cmd, err)
		}
	}
	o := opts("echo-good")
	o.Dir = "/nonexistent-dir"
	_, err := Start(context.Background(), o)
	if pe := protocolError(t, err); pe.Kind != KindStart || !strings.Contains(pe.Detail, "cannot start") {
		t.Errorf("bad Dir: %v", err)
	}
}

// nobody is the unprivileged user a root runner runs implementations as.
var nobody = &syscall.Credential{Uid: 65534, Gid: 65534}

func TestRunAsNobody(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to switch users")
	}
	if !reachableByOthers(fakeimpl) {
		t.Skipf("%s is not reachable by other users (TMPDIR under a private directory?); set TMPDIR=/tmp", fakeimpl)
	}
	noLeaks(t)
	o := opts("whoami")
	o.Credential = nobody
	o.Dir = "/"
	s, err := Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	hello, err := s.Hello(ctxTimeout(t, 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if got := hello.Implementation.Name; got != "uid=65534 gid=65534" {
		t.Errorf("implementation runs as %q, want uid=65534 gid=65534", got)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}

	// A binary the user cannot reach fails with a hint.
	private := t.TempDir()
	if err := os.Chmod(private, 0o700); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(fakeimpl)
	if err != nil {
		t.Fatal(err)
	}
	hidden := filepath.Join(private, "fakeimpl")
	if err := os.WriteFile(hidden, data, 0o755); err != nil {
		t.Fatal(err)
	}
	o.Command = []string{hidden, "whoami"}
	_, err = Start(context.Background(), o)
	if pe := protocolError(t, err); pe.Kind != KindStart || !strings.Contains(pe.Detail, "readable and searchable by that user") {
		t.Errorf("unreachable binary: %v", err)
	}
}

// reachableByOthers reports whether every directory above path is
// searchable and path itself executable by any user.
func reachableByOthers(path string) bool {
	for p := path; ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm()&0o001 == 0 {
			return false
		}
		if p == filepath.Dir(p) {
			return true
		}
	}
}

// TestReferenceEndToEnd runs the reference implementation as a process
// through package fcpserver and checks every response against the schemas.
func TestReferenceEndToEnd(t *testing.T) {
	noLeaks(t)
	v, err := fcpschema.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a<&>.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Start(context.Background(), Options{Command: []string{forgeConform, "ref"}, Validator: v})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := ctxTimeout(t, 10*time.Second)
	hello, err := s.Hello(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if hello.Implementation.Name != "forge-conform-reference" {
		t.Errorf("hello: %+v", hello)
	}
	requests := []fcp.Request{
		{Op: fcp.OpDefinitions},
		{Op: fcp.OpCall, Call: &fcp.Call{ID: "1", Name: "list_directory", Args: json.RawMessage(`{"path":"."}`)},
			Ctx: &fcp.Ctx{WorkingDir: root}},
		{Op: fcp.OpCall, Call: &fcp.Call{ID: "2", Name: "list_directory", Args: json.RawMessage(`{"path":"../.."}`)},
			Ctx: &fcp.Ctx{WorkingDir: root}},
		{Op: fcp.OpCall, Call: &fcp.Call{ID: "3", Name: "list_dir", Args: json.RawMessage(`{"dir_path":"` + root + `"}`)},
			Ctx: &fcp.Ctx{WorkingDir: root}},
		{Op: fcp.OpReset},
		{Op: "batch"},
	}
	for _, req := range requests {
		resp, raw, err := s.Do(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", req.Op, err)
		}
		if req.Call != nil && req.Call.ID == "1" && !strings.Contains(string(raw), `a<&>.txt`) {
			t.Errorf("content is HTML-escaped or lacks the entry: %s", raw)
		}
		if req.Call != nil && req.Call.ID == "2" && (resp.Error == nil || resp.Error.Denial == nil) {
			t.Errorf("escape attempt: %s", raw)
		}
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v (stderr %q)", err, s.Stderr())
	}
}
