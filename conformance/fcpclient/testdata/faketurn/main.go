// Command faketurn is an FCP/1 implementation of the turn op (spec/PROTOCOL.md
// §9) that behaves well or misbehaves on purpose, for the fcpclient turn
// tests. Whatever the scripted model says, a turn has one call, c1, that
// needs confirmation. The first argument picks the behaviour:
//
//	good            ask to confirm c1, wait for decide, answer it, run c1
//	                (started, stdout "hi\n", completed) when approved, persist
//	                its result and end the turn with its history
//	silent          write the turn's first event, then never answer again
//	                (keeps reading stdin, never exits at EOF)
//	garbage         write the first event, then a line that is not JSON
//	wrong-seq       answer decide with a seq 7 past its own
//	spawn-and-hang  start a grandchild in the same process group, name its
//	                pid in the first event's message text, then hang like
//	                silent
//	sleep-forever   (the grandchild) sleep
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/forge-conform/forge-conform/spec/fcp"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: faketurn MODE")
		os.Exit(64)
	}
	mode := os.Args[1]
	if mode == "sleep-forever" {
		time.Sleep(time.Hour)
		return
	}
	out := bufio.NewWriter(os.Stdout)
	send := func(v any) {
		b, _ := json.Marshal(v)
		out.Write(append(b, '\n'))
		out.Flush()
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	read := func() (fcp.TurnRequest, bool) {
		for in.Scan() {
			var r fcp.TurnRequest
			if json.Unmarshal(in.Bytes(), &r) == nil {
				return r, true
			}
		}
		return fcp.TurnRequest{}, false
	}
	hang := func() {
		for in.Scan() {
		}
		select {}
	}
	t := true
	for {
		req, ok := read()
		if !ok {
			if mode == "silent" || mode == "spawn-and-hang" {
				select {}
			}
			return
		}
		switch req.Op {
		case fcp.OpHello:
			send(map[string]any{"seq": req.Seq, "fcp": 1,
				"implementation": map[string]string{"name": "faketurn", "version": "0", "language": "go"},
				"tools":          []string{}, "ops": append([]string{fcp.OpHello}, fcp.TurnOps()...)})
			continue
		case fcp.OpTurn:
		default:
			send(map[string]any{"seq": req.Seq, "ok": false,
				"error": map[string]string{"kind": "BadArgs", "message": "no turn runs"}})
			continue
		}
		seq := req.Seq
		user := fcp.Message{Type: fcp.MessageUser, Text: req.User}
		switch mode {
		case "spawn-and-hang":
			child := exec.Command(os.Args[0], "sleep-forever")
			if err := child.Start(); err != nil {
				fmt.Fprintln(os.Stderr, "faketurn:", err)
				os.Exit(1)
			}
			user.Text = strconv.Itoa(child.Process.Pid)
		}
		send(fcp.TurnLine{Seq: seq, Event: fcp.EventMessage, Message: &user})
		switch mode {
		case "silent", "spawn-and-hang":
			hang()
		case "garbage":
			fmt.Fprintln(out, "this is not json")
			out.Flush()
			hang()
		}
		use := fcp.Message{Type: fcp.MessageToolUse, ID: "c1", Name: "fcp_guarded", Args: json.RawMessage(`{}`)}
		send(fcp.TurnLine{Seq: seq, Event: fcp.EventMessage, Message: &use})
		send(fcp.TurnLine{Seq: seq, Event: fcp.EventConfirmation,
			Requests: []fcp.Confirmation{{ID: "c1", Name: "fcp_guarded", Summary: "Guarded", RiskLevel: "Low"}}})
		d, ok := read()
		if !ok {
			return
		}
		answer := d.Seq
		if mode == "wrong-seq" {
			answer += 7
		}
		send(map[string]any{"seq": answer, "ok": true})
		content, isErr := "Tool call denied by user", true
		if d.Decision == fcp.DecisionApproveAll {
			send(fcp.TurnLine{Seq: seq, Event: fcp.EventStarted, ID: "c1", Name: "fcp_guarded"})
			send(fcp.TurnLine{Seq: seq, Event: fcp.EventStdout, ID: "c1", Chunk: "hi\n"})
			send(fcp.TurnLine{Seq: seq, Event: fcp.EventCompleted, ID: "c1"})
			content, isErr = "hi\n", false
		}
		res := fcp.Message{Type: fcp.MessageToolResult, ID: "c1", Content: &content, IsError: &isErr}
		send(fcp.TurnLine{Seq: seq, Event: fcp.EventMessage, Message: &res})
		send(fcp.TurnLine{Seq: seq, OK: &t, End: fcp.EndDone, History: []fcp.Message{user, use, res}})
	}
}
