// Command fakeimpl is an FCP/1 implementation that misbehaves on purpose,
// for the fcpclient tests. The first argument picks the behaviour:
//
//	echo-good               answer everything correctly; call echoes its args as content; exit 0 at EOF or after bye
//	hang                    read requests, never answer, never exit (ignores EOF)
//	crash-after-hello       answer hello, then print to stderr and exit 3 on the next request
//	garbage                 answer every request with a line that is not JSON
//	flood                   answer the first request with endless bytes and no newline
//	wrong-seq               answer with seq+1
//	slow DURATION           sleep before each answer
//	spawn-grandchild-and-hang [setsid]  start a child in the same process group (or, with setsid,
//	                        in a session of its own), name its pid in hello, then hang
//	exit-nonzero-after-eof  answer correctly, exit 2 at EOF
//	invalid-utf8            answer with a line holding the byte 0xff
//	schema-invalid          answer call with ok:true and no content
//	extra-line              answer every request twice
//	no-newline-exit         answer the first request without a newline, then exit 0
//	whoami                  answer hello with implementation.name "uid=N gid=N"
//	close-stdout            close stdout at the first request and hang
//	stderr-spam N           write N bytes to stderr, then behave like echo-good
//	ignore-stdin            never read stdin, never exit
//	seq-minus-one           answer every request with seq -1
//	linger                  like echo-good, but stay running after bye and EOF
//	bye-exit-1              like echo-good, but exit 1 after answering bye
//	spin DURATION           like echo-good, but each call first uses DURATION of CPU time itself
//	                        and waits for a child that uses as much (spin-child DURATION)
//	net-on-call             like echo-good, but each call first sends a UDP datagram to 192.0.2.1
//	                        and one to 2001:db8::1 (TEST-NET addresses: a namespace without a route keeps them)
//	loopback-on-call        like echo-good, but each call first sends a UDP datagram to 127.0.0.1:53
//	                        and ::1 port 53, where nobody listens (a local resolver outside the namespace)
//	ipc-on-call             like echo-good, but each call first talks to a TCP listener of its own over loopback
//	grow-on-call N          like echo-good, but each call first allocates N MiB more and keeps them
//	sleep-forever           (the grandchild) sleep
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type request struct {
	Seq  int64  `json:"seq"`
	Op   string `json:"op"`
	Call *struct {
		Args json.RawMessage `json:"args"`
	} `json:"call"`
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: fakeimpl MODE [ARG]")
		os.Exit(64)
	}
	mode, arg := os.Args[1], ""
	if len(os.Args) > 2 {
		arg = os.Args[2]
	}
	out := bufio.NewWriter(os.Stdout)
	send := func(v any) {
		b, _ := json.Marshal(v)
		out.Write(append(b, '\n'))
		out.Flush()
	}
	raw := func(s string) { out.WriteString(s); out.Flush() }

	switch mode {
	case "sleep-forever":
		time.Sleep(time.Hour)
		return
	case "spin-child":
		burn(arg)
		return
	case "ignore-stdin":
		sleepForever()
	case "stderr-spam":
		n, _ := strconv.Atoi(arg)
		os.Stderr.WriteString(strings.Repeat("e", n-4) + "END\n")
		mode = "echo-good"
	}

	grandchild := 0
	if mode == "spawn-grandchild-and-hang" || mode == "grandchild-then-sigkill" || mode == "sigkill-after-hello" {
		c := exec.Command(os.Args[0], "sleep-forever")
		c.Stderr = os.Stderr // holds the stderr pipe open too
		if mode != "spawn-grandchild-and-hang" {
			c.Stdout = os.Stdout // and stdout, past the leader's death
		}
		if mode == "sigkill-after-hello" {
			c.Stdin = os.Stdin // and stdin, which it never reads
		}
		if arg == "setsid" {
			c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		}
		if err := c.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		grandchild = c.Process.Pid
	}

	var kept [][]byte // grow-on-call's allocations
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	n := 0
	for in.Scan() {
		n++
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			send(map[string]any{"seq": -1, "ok": false, "error": map[string]any{"kind": "BadArgs", "message": err.Error()}})
			continue
		}
		hello := map[string]any{"seq": req.Seq, "fcp": 1,
			"implementation": map[string]any{"name": "fake", "version": "1", "language": "go"},
			"tools":          []string{"echo"}, "ops": []string{"hello", "call", "reset", "bye", "definitions"}}
		good := func() {
			switch req.Op {
			case "hello":
				send(hello)
			case "call":
				content := ""
				if req.Call != nil {
					content = string(req.Call.Args)
				}
				send(map[string]any{"seq": req.Seq, "ok": true, "content": content, "allow_truncation": true})
			case "reset", "bye":
				send(map[string]any{"seq": req.Seq, "ok": true})
				switch {
				case req.Op != "bye", mode == "linger":
				case mode == "bye-exit-1":
					os.Exit(1)
				default:
					os.Exit(0)
				}
			default:
				send(map[string]any{"seq": req.Seq, "ok": false, "error": map[string]any{"kind": "BadArgs", "message": "unknown op " + req.Op}})
			}
		}
		switch mode {
		case "echo-good", "exit-nonzero-after-eof", "linger", "bye-exit-1":
			good()
		case "spin":
			if req.Op == "call" {
				burn(arg)
				if err := exec.Command(os.Args[0], "spin-child", arg).Run(); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
			}
			good()
		case "net-on-call", "grow-on-call", "loopback-on-call", "ipc-on-call":
			if req.Op == "call" && mode == "ipc-on-call" {
				ipc()
			}
			if req.Op == "call" && (mode == "net-on-call" || mode == "loopback-on-call") {
				addrs := []string{"192.0.2.1:9", "[2001:db8::1]:9"}
				if mode == "loopback-on-call" {
					addrs = []string{"127.0.0.1:53", "[::1]:53"}
				}
				for _, addr := range addrs {
					if c, err := net.Dial("udp", addr); err == nil {
						c.Write([]byte("x"))
						c.Close()
					}
				}
			}
			if req.Op == "call" && mode == "grow-on-call" {
				mib, _ := strconv.Atoi(arg)
				b := make([]byte, mib<<20)
				for i := range b {
					b[i] = 1
				}
				kept = append(kept, b)
			}
			good()
		case "hang":
		case "crash-after-hello":
			if req.Op == "hello" {
				good()
				continue
			}
			fmt.Fprintln(os.Stderr, "fatal: boom")
			os.Exit(3)
		case "garbage":
			raw("this is not json\n")
		case "flood":
			chunk := strings.Repeat("x", 64<<10)
			for {
				if _, err := out.WriteString(chunk); err != nil {
					os.Exit(1)
				}
			}
		case "wrong-seq":
			req.Seq++
			good()
		case "slow":
			d, _ := time.ParseDuration(arg)
			time.Sleep(d)
			good()
		case "spawn-grandchild-and-hang":
			if req.Op == "hello" {
				hello["implementation"] = map[string]any{"name": "fake", "version": strconv.Itoa(grandchild), "language": "go"}
				send(hello)
			}
		case "grandchild-then-sigkill":
			if req.Op == "hello" {
				hello["implementation"] = map[string]any{"name": "fake", "version": strconv.Itoa(grandchild), "language": "go"}
				send(hello)
				continue
			}
			fmt.Fprintln(os.Stderr, "fatal: killing myself")
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			sleepForever()
		case "sigkill-after-hello":
			hello["implementation"] = map[string]any{"name": "fake", "version": strconv.Itoa(grandchild), "language": "go"}
			send(hello)
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			sleepForever()
		case "invalid-utf8":
			raw(`{"seq":` + strconv.FormatInt(req.Seq, 10) + `,"ok":true,"content":"` + "\xff" + `","allow_truncation":true}` + "\n")
		case "schema-invalid":
			if req.Op == "call" {
				send(map[string]any{"seq": req.Seq, "ok": true})
			} else {
				good()
			}
		case "extra-line":
			good()
			good()
		case "no-newline-exit":
			b, _ := json.Marshal(map[string]any{"seq": req.Seq, "ok": true, "content": "x", "allow_truncation": true})
			raw(string(b))
			os.Exit(0)
		case "whoami":
			hello["implementation"] = map[string]any{"name": fmt.Sprintf("uid=%d gid=%d", os.Getuid(), os.Getgid()),
				"version": "1", "language": "go"}
			if req.Op == "hello" {
				send(hello)
			} else {
				good()
			}
		case "close-stdout":
			os.Stdout.Close()
			sleepForever()
		case "seq-minus-one":
			send(map[string]any{"seq": -1, "ok": false, "error": map[string]any{"kind": "BadArgs", "message": "cannot parse"}})
		default:
			fmt.Fprintln(os.Stderr, "unknown mode", mode)
			os.Exit(64)
		}
	}
	switch mode {
	case "hang", "spawn-grandchild-and-hang", "linger":
		sleepForever()
	case "exit-nonzero-after-eof":
		os.Exit(2)
	}
}

// sleepForever blocks without tripping the runtime's deadlock detector.
func sleepForever() {
	for {
		time.Sleep(time.Hour)
	}
}

// burn uses the CPU until the process has used the duration d more of it.
func burn(d string) {
	want, _ := time.ParseDuration(d)
	used := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := used()
	for x := 0; used()-start < want; x++ {
		for i := 0; i < 1e5; i++ {
			x ^= i
		}
	}
}

// ipc has a TCP listener of its own answer one connect over loopback.
func ipc() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "ipc:", err)
		return
	}
	defer l.Close()
	go func() {
		if c, err := l.Accept(); err == nil {
			c.Write([]byte("pong"))
			c.Close()
		}
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		fmt.Fprintln(os.Stderr, "ipc:", err)
		return
	}
	buf := make([]byte, 4)
	c.Read(buf)
	c.Close()
}
