package report

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/conformance/turnlog"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// Seen is what the runner saw last before a case errored: read from the
// error the runner reported (fcpclient's ProtocolError, "fcp protocol
// error (KIND): ...") and the turn's record.
type Seen struct {
	// Kind is the ProtocolError's kind (timeout, crash, garbage, flood,
	// wrong-seq, invalid, start); "" for an error of the runner's own.
	Kind string
	// Op is the op whose answer was awaited ("hello", "call", "turn", ...).
	Op string
	// Writing is set when the runner was still writing the request.
	Writing bool
	// Event is the last event of the turn read ("" when none), Tool the
	// tool of the last call started and not completed.
	Event, Tool string
	// Exit is how the process ended ("exit status 2", "signal: killed"),
	// when it did.
	Exit string
}

var (
	kindRe = regexp.MustCompile(`fcp protocol error \(([a-z-]+)\)`)
	opRe   = regexp.MustCompile(`\(op ([a-z_]+)\)`)
	exitRe = regexp.MustCompile(`exited (?:with )?\(?((?:exit status -?[0-9]+)|(?:signal: [a-z ]+))\)?`)
	lastRe = regexp.MustCompile(`last event read: ([a-z_]+)`)
)

// seenOf reads the facts of an errored case's message and turn record.
func seenOf(msg string, l *turnlog.Log) Seen {
	var s Seen
	if m := kindRe.FindStringSubmatch(msg); m != nil {
		s.Kind = m[1]
	}
	if m := opRe.FindStringSubmatch(msg); m != nil {
		s.Op = m[1]
	}
	if strings.Contains(msg, " turn seq ") {
		s.Op = fcp.OpTurn
	}
	s.Writing = strings.Contains(msg, "writing request")
	if m := exitRe.FindStringSubmatch(msg); m != nil {
		s.Exit = m[1]
	}
	if m := lastRe.FindStringSubmatch(msg); m != nil && m[1] != "none" {
		s.Event = m[1]
	}
	if l != nil {
		running := map[string]string{} // call id -> tool
		var order []string
		for _, e := range l.Entries {
			if e.Kind != turnlog.Event || e.Line == nil {
				continue
			}
			s.Event = e.Line.Event
			switch e.Line.Event {
			case fcp.EventStarted:
				running[e.Line.ID] = e.Line.Name
				order = append(order, e.Line.ID)
			case fcp.EventCompleted:
				delete(running, e.Line.ID)
			}
		}
		for i := len(order) - 1; i >= 0; i-- {
			if tool, ok := running[order[i]]; ok {
				s.Tool = tool
				break
			}
		}
	}
	return s
}

// seenResult is seenOf an errored result.
func seenResult(r *runner.Result) Seen { return seenOf(r.Message, r.Turn) }

// Hint says what the runner's last-seen facts usually mean, for an errored
// case ("" when there is nothing to add to the error itself).
func Hint(s Seen) string {
	for _, h := range hints {
		if h.kind != "" && h.kind != s.Kind || h.op != "" && h.op != s.Op || h.event != "" && h.event != s.Event {
			continue
		}
		if h.when != nil && !h.when(s) {
			continue
		}
		return h.say(s)
	}
	return ""
}

// hints is the table Hint reads, most specific first: the first row whose
// kind, op and event (each "" for any) match and whose when (nil: always)
// holds.
var hints = []struct {
	kind, op, event string
	when            func(Seen) bool
	say             func(Seen) string
}{
	{kind: "timeout", when: func(s Seen) bool { return s.Writing },
		say: fixed("timed out writing the request: the implementation is not reading its stdin (it may be blocked writing to a full stdout or stderr pipe)")},
	{kind: "timeout", op: "hello",
		say: fixed("no answer to hello: the implementation may print to stdout before hello or buffer its output (write each response as one line and flush it)")},
	{kind: "timeout", op: fcp.OpTurn, when: func(s Seen) bool { return s.Tool == "run_command" },
		say: fixed("timed out after the `started` event of a run_command: the command may be waiting on stdin left open, or ignoring its timeout")},
	{kind: "timeout", op: fcp.OpTurn, when: func(s Seen) bool { return s.Tool != "" },
		say: func(s Seen) string {
			return fmt.Sprintf("timed out after the `started` event of %s: the call never completed (a tool that hangs, or a `completed` event never written)", orDash(s.Tool))
		}},
	{kind: "timeout", op: fcp.OpTurn, event: fcp.EventConfirmation,
		say: fixed("timed out after a `confirmation` event: the implementation may not read the decide request the runner sent, or wait for another answer")},
	{kind: "timeout", op: fcp.OpTurn, when: func(s Seen) bool { return s.Event == "" },
		say: fixed("timed out before the turn's first event: the implementation may not run op turn, or buffer its output (flush after each line)")},
	{kind: "timeout", op: fcp.OpTurn,
		say: func(s Seen) string {
			return fmt.Sprintf("timed out after a `%s` event: the turn never wrote its final response (a line with ok and end), or waits for a request the runner does not send", s.Event)
		}},
	{kind: "timeout",
		say: func(s Seen) string {
			return fmt.Sprintf("no answer to op %s within the timeout: the implementation may hang on this case, or buffer its output (flush after each line)", orDash(s.Op))
		}},
	{kind: "crash", when: func(s Seen) bool { return strings.HasPrefix(s.Exit, "signal") },
		say: func(s Seen) string {
			return fmt.Sprintf("killed by a signal (%s): a crash (see stderr), or an out-of-memory kill", strings.TrimPrefix(s.Exit, "signal: "))
		}},
	{kind: "crash", when: func(s Seen) bool { return s.Exit != "" },
		say: func(s Seen) string {
			return "exited with status " + strings.TrimPrefix(s.Exit, "exit status ") + ": it ended on its own before answering (a panic or fatal error: see stderr)"
		}},
	{kind: "crash",
		say: fixed("closed its stdout before answering: the implementation may have ended its read loop on this request")},
	{kind: "garbage",
		say: fixed("a line that is not one JSON object: the implementation may print logs, prompts or banners to stdout (they belong on stderr)")},
	{kind: "flood",
		say: fixed("a line too long to read: output the spec bounds was not bounded, or lines are not ended with \\n")},
	{kind: "wrong-seq",
		say: fixed("an answer with another seq: each response must echo its request's seq, one response per request, in order")},
	{kind: "invalid",
		say: fixed("a JSON object that is not a valid FCP/1 response: see spec/PROTOCOL.md and spec/fcp/schema for the response's members")},
	{kind: "start",
		say: fixed("the command could not be started: check --binary's path, its permissions and its interpreter line")},
}

func fixed(s string) func(Seen) string { return func(Seen) string { return s } }
