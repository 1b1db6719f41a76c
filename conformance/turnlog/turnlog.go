// Package turnlog is the record of one turn (spec/PROTOCOL.md §9) as the
// runner saw it: every line the implementation wrote for the turn and every
// request the runner sent while it ran, in the order they happened. The
// FCP/1 client and the in-process target write it; the turn checks read it.
package turnlog

import "github.com/forge-conform/forge-conform/spec/fcp"

// The kinds of Entry.
const (
	// Event is a line of the turn with an event member.
	Event = "event"
	// Sent is a decide, cancel, tool_result or screen request the runner
	// wrote.
	Sent = "sent"
	// Answer is the implementation's answer to a Sent request.
	Answer = "answer"
	// Final is the turn's final response (the turn's seq, no event).
	Final = "final"
)

// Entry is one thing that happened during a turn. Line is set for Event and
// Final, Req for Sent, Resp (with Req, the request it answers) for Answer.
type Entry struct {
	Kind string
	Line *fcp.TurnLine
	Req  *fcp.TurnRequest
	Resp *fcp.Response
}

// Log is a turn's record.
type Log struct {
	Entries []Entry
	// CountChunks makes Add count stdout and stderr events (in Chunks and
	// ChunkBytes) instead of keeping them: the record of a turn that
	// streams a gigabyte (corpus.ProcessSpec).
	CountChunks bool
	// Chunks and ChunkBytes count the chunk events, and their bytes, that
	// CountChunks left out.
	Chunks, ChunkBytes int64
}

// User plays the user: it is shown every event as it is read, then the
// final response (a line with no event), and returns the requests (decide,
// cancel, tool_result, screen) to send at once. The writer of the log sets
// their fcp, seq and, when nil, turn members; the turn ends once the
// requests sent after the final response are answered.
type User func(ev fcp.TurnLine) []fcp.TurnRequest

// Events returns the turn's events in order.
func (l *Log) Events() []fcp.TurnLine {
	var out []fcp.TurnLine
	for _, e := range l.Entries {
		if e.Kind == Event {
			out = append(out, *e.Line)
		}
	}
	return out
}

// Final returns the final response, or nil when the turn did not end.
func (l *Log) Final() *fcp.TurnLine {
	for i := len(l.Entries) - 1; i >= 0; i-- {
		if l.Entries[i].Kind == Final {
			return l.Entries[i].Line
		}
	}
	return nil
}

// Add appends an entry (or, with CountChunks, counts a chunk event).
func (l *Log) Add(e Entry) {
	if l.CountChunks && e.Kind == Event && e.Line != nil && (e.Line.Event == fcp.EventStdout || e.Line.Event == fcp.EventStderr) {
		l.Chunks++
		l.ChunkBytes += int64(len(e.Line.Chunk))
		return
	}
	l.Entries = append(l.Entries, e)
}
