package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// A fakeImpl is an FCP/1 implementation that breaks the protocol in one way,
// run by the scripts as `--binary fcp-NAME`. It reads JSON Lines from stdin;
// hello gets a valid answer unless hello says otherwise, bye gets {"ok":true}
// and an exit 0, EOF an exit 0, and every other op goes to call. The good
// implementation is `forge-conform ref`.
type fakeImpl struct {
	// start runs once before the first request.
	start func()
	// hello answers op hello; nil gives a valid hello declaring both tools.
	hello func(w io.Writer, seq int64)
	// call answers (or fails to answer) every op but hello and bye.
	call func(w io.Writer, seq int64)
}

// fakeImpls are the broken implementations, by command name.
var fakeImpls = map[string]fakeImpl{
	// Answers hello, then never answers a call (and never reads again).
	"fcp-hang": {call: func(io.Writer, int64) { sleepForever() }},
	// Answers hello, then complains on stderr and exits 3 at the first call.
	"fcp-crash": {call: func(_ io.Writer, seq int64) {
		fmt.Fprintf(os.Stderr, "fcp-crash: simulated crash while handling seq %d\n", seq)
		os.Exit(3)
	}},
	// Never answers anything, hello included.
	"fcp-mute": {hello: func(io.Writer, int64) { sleepForever() }, call: func(io.Writer, int64) { sleepForever() }},
	// Answers hello, then a line that is not JSON for every call.
	"fcp-garbage": {call: func(w io.Writer, _ int64) { writeLine(w, "this is not json") }},
	// Answers hello, then more than 64 MiB without a newline for a call.
	"fcp-flood": {call: func(w io.Writer, _ int64) { flood(w, 65<<20) }},
	// Answers hello, then every call with the wrong seq (seq+1).
	"fcp-wrongseq": {call: func(w io.Writer, seq int64) {
		writeLine(w, fmt.Sprintf(`{"seq":%d,"ok":false,"error":{"kind":"BadArgs","message":"fcp-wrongseq"}}`, seq+1))
	}},
	// Answers hello, then every call with content holding invalid UTF-8.
	"fcp-badutf8": {call: func(w io.Writer, seq int64) {
		writeLine(w, fmt.Sprintf(`{"seq":%d,"ok":true,"content":"bad `+"\xff\xfe"+` bytes","allow_truncation":false}`, seq))
	}},
	// Answers hello with an error, and every call with a valid BadArgs error.
	"fcp-nohello": {
		hello: func(w io.Writer, seq int64) {
			writeLine(w, fmt.Sprintf(`{"seq":%d,"ok":false,"error":{"kind":"BadArgs","message":"fcp-nohello does not say hello"}}`, seq))
		},
		call: func(w io.Writer, seq int64) {
			writeLine(w, fmt.Sprintf(`{"seq":%d,"ok":false,"error":{"kind":"BadArgs","message":"fcp-nohello rejects every call"}}`, seq))
		},
	},
	// Starts `sleep 300` as a child in its process group (the one the
	// runner made for it), answers hello, then hangs on calls: the runner
	// must kill the whole group. The grandchild's pid is appended to $FCP_GRANDCHILD_PIDFILE
	// for no-sleep-left.
	"fcp-grandchild": {start: func() { startGrandchild(false, nil) }, call: func(io.Writer, int64) { sleepForever() }},
	// Like fcp-grandchild, but the child calls setsid: it leaves the
	// process group (and the session), so only the implementation's cgroup
	// or the runner's subreaper sweep can find it.
	"fcp-grandchild-setsid": {start: func() { startGrandchild(true, nil) }, call: func(io.Writer, int64) { sleepForever() }},
	// Starts `sleep 300` as a child that holds its stdout (and stderr),
	// answers hello, then at the first call says so on stderr and kills
	// itself with SIGKILL: the runner must see the death on the process
	// itself, not wait for the pipe its child keeps open.
	"fcp-grandchild-sigkill": {start: func() { startGrandchild(false, os.Stdout) }, call: func(_ io.Writer, seq int64) {
		fmt.Fprintf(os.Stderr, "fcp-grandchild-sigkill: killing myself while handling seq %d\n", seq)
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		sleepForever()
	}},
	// Declares the turn ops and the fcp_* test tools, starts `sleep 300`
	// in its process group like fcp-grandchild, and answers a turn with
	// one event, then never again: it neither ends the turn nor answers
	// the runner's decide or cancel.
	"fcp-turn-hang": {
		start: func() { startGrandchild(false, nil) },
		hello: func(w io.Writer, seq int64) {
			writeLine(w, fmt.Sprintf(`{"seq":%d,"fcp":1,"implementation":{"name":"fcp-turn-hang","version":"0.0.1","language":"go"},`+
				`"tools":["read_file","fcp_echo","fcp_fail","fcp_guarded","fcp_panic","fcp_sleep","fcp_touch"],`+
				`"ops":["hello","call","bye","turn","decide","cancel","tool_result"]}`, seq))
		},
		call: func(w io.Writer, seq int64) {
			writeLine(w, fmt.Sprintf(`{"seq":%d,"event":"message","message":{"type":"user","text":"do it"}}`, seq))
			sleepForever()
		},
	},
}

// main serves FCP/1 on stdin/stdout with f's behaviour.
func (f fakeImpl) main() {
	if f.start != nil {
		f.start()
	}
	in := bufio.NewReader(os.Stdin)
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			f.answer(os.Stdout, line)
		}
		if err != nil {
			os.Exit(0)
		}
	}
}

func (f fakeImpl) answer(w io.Writer, line []byte) {
	var req struct {
		Seq int64  `json:"seq"`
		Op  string `json:"op"`
	}
	if err := json.Unmarshal(line, &req); err != nil {
		writeLine(w, `{"seq":-1,"ok":false,"error":{"kind":"BadArgs","message":"not a request"}}`)
		return
	}
	switch req.Op {
	case "hello":
		if f.hello != nil {
			f.hello(w, req.Seq)
			return
		}
		name := filepath.Base(os.Args[0])
		writeLine(w, fmt.Sprintf(`{"seq":%d,"fcp":1,"implementation":{"name":%q,"version":"0.0.1","language":"go"},`+
			`"tools":["list_dir","list_directory"],"ops":["hello","call","bye"]}`, req.Seq, name))
	case "bye":
		writeLine(w, fmt.Sprintf(`{"seq":%d,"ok":true}`, req.Seq))
		os.Exit(0)
	default:
		f.call(w, req.Seq)
	}
}

// writeLine writes s and a newline in one write; a fake that cannot write
// has lost its runner and exits.
func writeLine(w io.Writer, s string) {
	if _, err := io.WriteString(w, s+"\n"); err != nil {
		os.Exit(1)
	}
}

// flood writes n bytes without a newline, stopping at the first write error
// (EPIPE once the reader has given up).
func flood(w io.Writer, n int) {
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for written := 0; written < n; written += len(chunk) {
		if _, err := w.Write(chunk); err != nil {
			os.Exit(1)
		}
	}
	sleepForever()
}

// sleepForever blocks without tripping the runtime's deadlock detector.
func sleepForever() {
	for {
		time.Sleep(time.Hour)
	}
}

// startGrandchild starts `sleep 300` as a child in the fake's process group,
// or with setsid in a session and process group of its own. It shares the
// fake's stderr, so it also holds a pipe of the runner open, and stdout
// when it is given (nil: none).
func startGrandchild(setsid bool, stdout *os.File) {
	c := exec.Command("sleep", "300")
	c.Stderr = os.Stderr
	if stdout != nil {
		c.Stdout = stdout
	}
	if setsid {
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	if err := c.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "fcp-grandchild: %v\n", err)
		os.Exit(1)
	}
	if name := os.Getenv("FCP_GRANDCHILD_PIDFILE"); name != "" {
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err == nil {
			_, err = fmt.Fprintln(f, c.Process.Pid)
			err = errors.Join(err, f.Close())
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "fcp-grandchild: %v\n", err)
			os.Exit(1)
		}
	}
}

// cmdNoSleepLeft checks that the runner killed fcp-grandchild's children:
//
//	no-sleep-left PIDFILE
//
// PIDFILE (the script's $FCP_GRANDCHILD_PIDFILE) must name at least one pid,
// so the grandchild was really started. No `sleep 300` may remain among
// those pids, nor anywhere in /proc with FCP_GRANDCHILD_PIDFILE=PIDFILE in
// its environment (the scan cannot mistake another test's sleep for ours).
// A process that is gone, or a zombie (empty cmdline) waiting to be reaped,
// counts as killed. The kill is synchronous; the wait is only a grace.
func cmdNoSleepLeft(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: no-sleep-left PIDFILE")
	}
	pidFile := ts.MkAbs(args[0])
	var pids []int
	for _, field := range strings.Fields(ts.ReadFile(args[0])) {
		pid, err := strconv.Atoi(field)
		if err != nil {
			ts.Fatalf("%s: bad pid %q", args[0], field)
		}
		pids = append(pids, pid)
	}
	if len(pids) == 0 {
		ts.Fatalf("%s names no pid: fcp-grandchild never started its child", args[0])
	}
	marker := []byte("FCP_GRANDCHILD_PIDFILE=" + pidFile + "\x00")
	deadline := time.Now().Add(5 * time.Second)
	for {
		alive := map[int]bool{}
		for _, pid := range pids {
			if isSleep300(pid) {
				alive[pid] = true
			}
		}
		procs, _ := filepath.Glob("/proc/[0-9]*")
		for _, dir := range procs {
			pid, err := strconv.Atoi(filepath.Base(dir))
			if err != nil || !isSleep300(pid) {
				continue
			}
			if env, err := os.ReadFile(filepath.Join(dir, "environ")); err == nil && bytes.Contains(env, marker) {
				alive[pid] = true
			}
		}
		if len(alive) == 0 {
			ts.Logf("grandchildren %v are gone", pids)
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("grandchild sleep 300 still running (pids %v): the runner did not kill the process group", sortedKeysInt(alive))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// isSleep300 reports whether pid is a live `sleep 300`.
func isSleep300(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	return err == nil && bytes.Equal(b, []byte("sleep\x00300\x00"))
}

func sortedKeysInt(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
