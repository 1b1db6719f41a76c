package fcpclient

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// proc is one running implementation: its process group, the pipes, and
// the goroutines that read stdout and stderr and watch for the exit.
type proc struct {
	o      Options
	cmd    *exec.Cmd
	pid    int // also the process group id (Setpgid)
	tree   *tree
	obs    *observer // what the runner watches of it (observe.go)
	stdin  *os.File
	stdout *os.File
	errR   *os.File
	stderr *tail

	lines      chan lineMsg  // stdout lines, then one error (io.EOF, errFlood, ...)
	quit       chan struct{} // closed by finish: stop delivering lines
	exited     chan struct{} // closed when the leader has exited (not yet reaped on Linux)
	stderrDone chan struct{} // closed when the stderr reader has returned
	readers    sync.WaitGroup

	finishOnce  sync.Once
	exitedOnOwn bool             // the leader exited before finish had to kill it
	state       *os.ProcessState // set by finish; nil if the process could not be reaped
	waitErr     error
}

type lineMsg struct {
	line []byte
	err  error
}

// errFlood ends the stdout stream when a line exceeds MaxLineBytes.
var errFlood = errors.New("line too long")

// killWait bounds the wait for a process to die after SIGKILL.
const killWait = 10 * time.Second

// stderrDrain bounds the wait for the stderr of a dead process group.
const stderrDrain = 250 * time.Millisecond

func startProc(o Options) (*proc, error) {
	startErr := func(format string, args ...any) error {
		return &ProtocolError{Kind: KindStart, Seq: -1, Detail: fmt.Sprintf(format, args...)}
	}
	if len(o.Command) == 0 || o.Command[0] == "" {
		return nil, startErr("no command given; set Options.Command to the implementation's argv")
	}
	path, err := exec.LookPath(o.Command[0])
	if err != nil {
		return nil, startErr("cannot find %q: %v; give a path to an executable or a command on PATH", o.Command[0], err)
	}
	if !filepath.IsAbs(path) {
		if path, err = filepath.Abs(path); err != nil {
			return nil, startErr("cannot resolve %q: %v", o.Command[0], err)
		}
	}

	var files []*os.File // everything to close if starting fails
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err1 := pipe()
	outR, outW, err2 := pipe()
	errR, errW, err3 := pipe()
	if err := errors.Join(err1, err2, err3); err != nil {
		closeAll()
		return nil, startErr("cannot create pipes: %v", err)
	}

	newCmd := func(tr *tree) *exec.Cmd {
		cmd := &exec.Cmd{
			Path:        path,
			Args:        append([]string(nil), o.Command...),
			Dir:         o.Dir,
			Env:         o.Env,
			Stdin:       inR,
			Stdout:      outW,
			Stderr:      errW,
			SysProcAttr: sysProcAttr(o.Credential),
		}
		tr.apply(cmd)
		return cmd
	}
	tr := newTree(o.NoCgroup)
	obs := newObserver(tr, o.Unobserved)
	cmd := newCmd(tr)
	err = obs.start(cmd)
	if err != nil && tr.mode() == "cgroup" {
		// Starting into the cgroup can be refused (a cgroup the runner
		// may create but not move processes into): fall back.
		obs.release()
		tr.release()
		tr = newTree(true)
		obs = newObserver(tr, o.Unobserved)
		cmd = newCmd(tr)
		err = obs.start(cmd)
	}
	if err != nil {
		obs.release()
		tr.release()
		closeAll()
		detail := fmt.Sprintf("cannot start %s: %v", path, err)
		if o.Credential != nil {
			detail += fmt.Sprintf("; running as uid %d gid %d, the binary, every directory above it and Options.Dir "+
				"must be readable and searchable by that user (for example mode 0755 in a world-searchable temp dir)",
				o.Credential.Uid, o.Credential.Gid)
		}
		return nil, startErr("%s", detail)
	}
	// The child has its ends; keep only ours.
	inR.Close()
	outW.Close()
	errW.Close()

	p := &proc{
		o: o, cmd: cmd, pid: cmd.Process.Pid, tree: tr, obs: obs,
		stdin: inW, stdout: outR, errR: errR,
		stderr:     newTail(o.StderrBytes),
		lines:      make(chan lineMsg, 1),
		quit:       make(chan struct{}),
		exited:     make(chan struct{}),
		stderrDone: make(chan struct{}),
	}
	p.readers.Add(2)
	go p.readStdout()
	go p.readStderr()
	go p.watchExit()
	return p, nil
}

// readStdout delivers stdout line by line until EOF, a read error, or the
// first line longer than MaxLineBytes; then it delivers the error and
// stops reading. A final line without a newline is delivered as a line.
func (p *proc) readStdout() {
	defer p.readers.Done()
	br := bufio.NewReaderSize(p.stdout, min(64<<10, p.o.MaxLineBytes+1))
	for {
		line, err := readLine(br, p.o.MaxLineBytes)
		if err == nil {
			if !p.deliver(lineMsg{line: line}) {
				return
			}
			continue
		}
		if len(line) > 0 && !errors.Is(err, errFlood) {
			if !p.deliver(lineMsg{line: line}) {
				return
			}
		}
		p.deliver(lineMsg{err: err})
		return
	}
}

func (p *proc) deliver(m lineMsg) bool {
	select {
	case p.lines <- m:
		return true
	case <-p.quit:
		return false
	}
}

// readLine reads one line without its "\n", holding at most max bytes of
// it: a longer line returns errFlood without reading further.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	line := []byte{}
	for {
		chunk, err := r.ReadSlice('\n')
		n := len(chunk)
		if err == nil {
			n-- // the newline
		}
		if len(line)+n > max {
			return nil, errFlood
		}
		line = append(line, chunk[:n]...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, err
	}
}

func (p *proc) readStderr() {
	defer p.readers.Done()
	defer close(p.stderrDone)
	io.Copy(p.stderr, p.errR)
}

// finish ends the process for good, once: it closes stdin, waits up to
// grace for the leader to exit on its own, kills the whole process tree
// (always, so that no descendant outlives the leader: its process group,
// then its cgroup or the subreaper's sweep, see tree), reaps the leader,
// removes its cgroup, lets stderr drain briefly and releases the reader
// goroutines. It reports
// whether the leader exited on its own (before the kill).
func (p *proc) finish(grace time.Duration) bool {
	p.finishOnce.Do(func() {
		p.stdin.Close()
		select {
		case <-p.exited:
			p.exitedOnOwn = true
		default:
			if grace > 0 {
				t := time.NewTimer(grace)
				select {
				case <-p.exited:
					p.exitedOnOwn = true
				case <-t.C:
				}
				t.Stop()
			}
		}
		// On Linux the exited leader is a zombie until reaped, which keeps
		// its pid and so the group id reserved: the kill cannot hit a
		// stranger.
		p.tree.kill(p.pid)
		t := time.NewTimer(killWait)
		select {
		case <-p.exited:
			p.reap()
		case <-t.C:
			p.waitErr = fmt.Errorf("process %d did not die within %s of SIGKILL", p.pid, killWait)
		}
		t.Stop()
		p.tree.release()
		p.obs.release()
		t = time.NewTimer(stderrDrain)
		select {
		case <-p.stderrDone:
		case <-t.C:
		}
		t.Stop()
		close(p.quit)
		p.stdout.Close() // unblocks a pending Read
		p.errR.Close()
		p.readers.Wait()
	})
	return p.exitedOnOwn
}

// killGroup sends SIGKILL to every process of the group. Its error is
// ignored: ESRCH means the group is already empty, and otherwise the leader
// is reaped regardless.
func killGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) }

// exitedZero reports whether the leader was reaped with exit status 0.
func (p *proc) exitedZero() bool { return p.state != nil && p.state.Success() }

// status describes how the leader ended, for messages: "exited with
// status N" or "killed by signal 9 (SIGKILL)".
func (p *proc) status() string {
	switch {
	case p.state != nil:
		return describeExit(p.state)
	case p.waitErr != nil:
		return p.waitErr.Error()
	default:
		return "still running"
	}
}

// describeExit says how a reaped process ended, in the words of the
// runner's reports.
func describeExit(st *os.ProcessState) string {
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		sig := ws.Signal()
		name := unix.SignalName(sig)
		if name == "" {
			name = sig.String()
		}
		return fmt.Sprintf("killed by signal %d (%s)", int(sig), name)
	}
	return fmt.Sprintf("exited with status %d", st.ExitCode())
}

// errExited is returned by next when the leader has exited and its stdout
// brought nothing more within stderrDrain: a descendant holds the pipe
// open, or the last bytes were not a line.
var errExited = errors.New("the implementation exited")

// next returns the next stdout message. It does not wait for a pipe that
// outlives the process: once the leader has exited (seen on the process
// itself, by waitid, whoever holds its pipes), stdout gets stderrDrain to
// deliver what the leader wrote before it died, then next returns
// errExited. It returns ctx's error when ctx is done first.
func (p *proc) next(ctx context.Context) (lineMsg, error) {
	exited := p.exited
	var drain <-chan time.Time
	for {
		select {
		case m := <-p.lines:
			return m, nil
		case <-exited:
			exited = nil // a closed channel; select on it once
			t := time.NewTimer(stderrDrain)
			defer t.Stop()
			drain = t.C
		case <-drain:
			return lineMsg{}, errExited
		case <-ctx.Done():
			return lineMsg{}, ctx.Err()
		}
	}
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	dropped int64
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(b)
	if len(b) >= t.max {
		t.dropped += int64(len(t.buf) + len(b) - t.max)
		t.buf = append(t.buf[:0], b[len(b)-t.max:]...)
		return n, nil
	}
	if over := len(t.buf) + len(b) - t.max; over > 0 {
		t.dropped += int64(over)
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, b...)
	return n, nil
}

// String returns the tail, marked when earlier output was dropped.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dropped > 0 {
		return fmt.Sprintf("[%d earlier bytes dropped]\n%s", t.dropped, t.buf)
	}
	return string(t.buf)
}
