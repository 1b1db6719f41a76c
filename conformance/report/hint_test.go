package report

import (
	"testing"

	"github.com/forge-conform/forge-conform/conformance/turnlog"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// The runner's errors, as fcpclient writes them, and the turn's record
// give the facts; the hint table turns them into advice.
func TestHint(t *testing.T) {
	started := func(id, name string) turnlog.Entry {
		return turnlog.Entry{Kind: turnlog.Event, Line: &fcp.TurnLine{Event: fcp.EventStarted, ID: id, Name: name}}
	}
	completed := func(id, name string) turnlog.Entry {
		return turnlog.Entry{Kind: turnlog.Event, Line: &fcp.TurnLine{Event: fcp.EventCompleted, ID: id, Name: name}}
	}
	stdout := turnlog.Entry{Kind: turnlog.Event, Line: &fcp.TurnLine{Event: fcp.EventStdout, ID: "c2", Chunk: "x"}}
	confirm := turnlog.Entry{Kind: turnlog.Event, Line: &fcp.TurnLine{Event: fcp.EventConfirmation}}
	const turnTimeout = "fcp protocol error (timeout): timed out after 10s waiting for the end of turn seq 1 (last event read: started; 0 requests unanswered)"
	tests := []struct {
		name, msg string
		log       []turnlog.Entry
		want      string
	}{
		{"hello unanswered", "fcp protocol error (timeout): timed out after 5s waiting for the response to seq 0 (op hello)", nil,
			"no answer to hello: the implementation may print to stdout before hello or buffer its output (write each response as one line and flush it)"},
		{"run_command hangs", turnTimeout, []turnlog.Entry{started("c1", "fcp_echo"), completed("c1", "fcp_echo"), started("c2", "run_command"), stdout},
			"timed out after the `started` event of a run_command: the command may be waiting on stdin left open, or ignoring its timeout"},
		{"another tool hangs", turnTimeout, []turnlog.Entry{started("c1", "fcp_sleep")},
			"timed out after the `started` event of fcp_sleep: the call never completed (a tool that hangs, or a `completed` event never written)"},
		{"confirmation unanswered", turnTimeout, []turnlog.Entry{confirm},
			"timed out after a `confirmation` event: the implementation may not read the decide request the runner sent, or wait for another answer"},
		{"turn never starts", "fcp protocol error (timeout): timed out after 10s waiting for the end of turn seq 1 (last event read: none; 0 requests unanswered)", nil,
			"timed out before the turn's first event: the implementation may not run op turn, or buffer its output (flush after each line)"},
		{"call unanswered", "fcp protocol error (timeout): timed out after 10s waiting for the response to seq 3 (op call)", nil,
			"no answer to op call within the timeout: the implementation may hang on this case, or buffer its output (flush after each line)"},
		{"stdin not read", "fcp protocol error (timeout): timed out after 10s writing request seq 3 (the implementation is not reading its stdin)", nil,
			"timed out writing the request: the implementation is not reading its stdin (it may be blocked writing to a full stdout or stderr pipe)"},
		{"exit status", "fcp protocol error (crash): implementation exited (exit status 2) before answering seq 4", nil,
			"exited with status 2: it ended on its own before answering (a panic or fatal error: see stderr)"},
		{"signal", "fcp protocol error (crash): implementation exited (signal: killed) before answering seq 4", nil,
			"killed by a signal (killed): a crash (see stderr), or an out-of-memory kill"},
		{"garbage", "fcp protocol error (garbage): response to seq 1 is not a JSON object: \"hello\"", nil,
			"a line that is not one JSON object: the implementation may print logs, prompts or banners to stdout (they belong on stderr)"},
		{"the runner's own error", "materializing fixture \"x\": disk full", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l *turnlog.Log
			if tt.log != nil {
				l = &turnlog.Log{Entries: tt.log}
			}
			if got := Hint(seenOf(tt.msg, l)); got != tt.want {
				t.Errorf("Hint = %q\nwant   %q", got, tt.want)
			}
		})
	}
}

func TestClipMiddle(t *testing.T) {
	long := "abc" + string(make([]byte, 8117)) + "xyz" // 8123 bytes
	tests := []struct {
		name, in string
		n        int
		want     string
	}{
		{"short stays", "hello", 10, "hello"},
		{"no limit", "hello", 0, "hello"},
		{"middle cut with the byte count", long, 30, "abc\x00\x00\x00… [8123 bytes] …\x00xyz"},
		{"rune boundaries", "ééééééééééééééééééééééééééééééé", 24, "éé… [62 bytes] …é"},
	}
	for _, tt := range tests {
		if got := clipMiddle(tt.in, tt.n); got != tt.want {
			t.Errorf("%s: clipMiddle = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// A long diff keeps the region around its first change, not the context
// before it.
func TestShortDiff(t *testing.T) {
	d := "--- want\n+++ got\n@@ -1,40 +1,40 @@\n"
	for i := range 30 {
		d += " same " + string(rune('a'+i%26)) + "\n"
	}
	d += "-old\n+new\n same\n"
	got := shortDiff(d, 100, 10)
	want := "--- want\n+++ got\n@@ -1,40 +1,40 @@\n … 27 lines …\n same b\n same c\n same d\n-old\n+new\n same\n"
	if got != want {
		t.Errorf("shortDiff =\n%s\nwant\n%s", got, want)
	}
}

func TestUnescapeHTML(t *testing.T) {
	for in, want := range map[string]string{
		`{"c":"a \u003e b \u0026\u0026 c \u003c d"}`: `{"c":"a > b && c < d"}`,
		`{"c":"\\u003e is text"}`:                    `{"c":"\\u003e is text"}`,
		`{"c":"\n\u00e9"}`:                           `{"c":"\n\u00e9"}`,
	} {
		if got := unescapeHTML(in); got != want {
			t.Errorf("unescapeHTML(%s) = %s, want %s", in, got, want)
		}
	}
}
