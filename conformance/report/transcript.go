package report

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/forge-conform/forge-conform/conformance/turnlog"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// TurnEvent is one line of a turn's transcript as the reports show it: an
// event the implementation wrote, a request the runner sent while the turn
// ran (Sent: decide, cancel, tool_result, screen), an answer to one that
// was an error, or the final response (Event "final"). Only the fields that
// say what happened are kept; texts are cut in the middle (clipMiddle).
type TurnEvent struct {
	Event string `json:"event"`
	// Sent marks a request the runner sent (Event is its op).
	Sent bool `json:"sent,omitempty"`
	// Type is a message event's message type (user, assistant, tool_use,
	// tool_result).
	Type      string   `json:"type,omitempty"`
	ID        string   `json:"id,omitempty"`
	IDs       []string `json:"ids,omitempty"`
	Name      string   `json:"name,omitempty"`
	Iteration *int     `json:"iteration,omitempty"`
	Decision  string   `json:"decision,omitempty"`
	// Text is a chunk, a message's text, a call's arguments, a result's
	// content, or a summary of the rest (clipped).
	Text string `json:"text,omitempty"`
	// Chunks counts the consecutive chunks of one stream merged into Text.
	Chunks  int    `json:"chunks,omitempty"`
	IsError *bool  `json:"is_error,omitempty"`
	OK      *bool  `json:"ok,omitempty"`
	End     string `json:"end,omitempty"`
	Error   string `json:"error,omitempty"`
}

// clipEvent bounds an event's text.
const clipEvent = 120

// turnEvents renders a turn's record, consecutive chunks of one call's
// stream merged into one event (nil for no record).
func turnEvents(l *turnlog.Log) []TurnEvent {
	if l == nil {
		return nil
	}
	var out []TurnEvent
	var stream strings.Builder // the text of the last event, when a stream
	for _, e := range l.Entries {
		switch {
		case e.Kind == turnlog.Event && e.Line != nil:
			ev := e.Line
			if last := len(out) - 1; (ev.Event == fcp.EventStdout || ev.Event == fcp.EventStderr) && last >= 0 &&
				out[last].Event == ev.Event && out[last].ID == ev.ID && !out[last].Sent {
				stream.WriteString(ev.Chunk)
				out[last].Chunks++
				out[last].Text = clipMiddle(fmt.Sprintf("%q", stream.String()), clipEvent)
				continue
			}
			stream.Reset()
			stream.WriteString(ev.Chunk)
			out = append(out, eventOf(ev))
		case e.Kind == turnlog.Sent && e.Req != nil:
			out = append(out, sentOf(e.Req))
		case e.Kind == turnlog.Answer && e.Resp != nil && e.Resp.Error != nil:
			op := ""
			if e.Req != nil {
				op = e.Req.Op
			}
			out = append(out, TurnEvent{Event: "answer", Name: op, Error: errorText(e.Resp.Error)})
		case e.Kind == turnlog.Final && e.Line != nil:
			f := e.Line
			te := TurnEvent{Event: "final", OK: f.OK, End: f.End}
			if f.Error != nil {
				te.Error = errorText(f.Error)
			}
			if len(f.History) > 0 {
				te.Text = fmt.Sprintf("%d history messages", len(f.History))
			}
			out = append(out, te)
		}
	}
	return out
}

// eventOf keeps what matters of one event line.
func eventOf(ev *fcp.TurnLine) TurnEvent {
	te := TurnEvent{Event: ev.Event, ID: ev.ID, Name: ev.Name, IDs: ev.IDs}
	switch ev.Event {
	case fcp.EventStdout, fcp.EventStderr:
		te.Text, te.Chunks = clipMiddle(fmt.Sprintf("%q", ev.Chunk), clipEvent), 1
	case fcp.EventModelRequest:
		te.Iteration = ev.Iteration
		tools, msgs := 0, 0
		if ev.Tools != nil {
			tools = len(*ev.Tools)
		}
		if ev.Messages != nil {
			msgs = len(*ev.Messages)
		}
		te.Text = fmt.Sprintf("%d tools, %d messages", tools, msgs)
	case fcp.EventMessage:
		if m := ev.Message; m != nil {
			te.Type, te.ID, te.Name, te.IsError = m.Type, m.ID, m.Name, m.IsError
			switch {
			case m.Content != nil:
				te.Text = clipMiddle(fmt.Sprintf("%q", *m.Content), clipEvent)
			case m.RawArgs != nil:
				te.Text = clipMiddle(fmt.Sprintf("raw %q", *m.RawArgs), clipEvent)
			case len(m.Args) > 0:
				te.Text = clipMiddle(unescapeHTML(compact(m.Args)), clipEvent)
			case m.Text != "":
				te.Text = clipMiddle(fmt.Sprintf("%q", m.Text), clipEvent)
			}
			if m.Error != nil {
				te.Error = errorText(m.Error)
			}
		}
	case fcp.EventConfirmation:
		var names []string
		for _, r := range ev.Requests {
			te.IDs = append(te.IDs, r.ID)
			names = append(names, r.Name+" ("+r.RiskLevel+")")
		}
		te.Text = clipMiddle(strings.Join(names, ", "), clipEvent)
	case fcp.EventPending:
		var names []string
		for _, c := range ev.Calls {
			te.IDs = append(te.IDs, c.ID)
			names = append(names, c.Name)
		}
		te.Text = clipMiddle(strings.Join(names, ", "), clipEvent)
	case fcp.EventStarted, fcp.EventCompleted:
	default:
		// journaled, recovered and events this version does not know: the
		// line itself, less what is already shown.
		rest := *ev
		rest.Seq, rest.Event, rest.ID, rest.Name, rest.IDs = 0, "", "", "", nil
		raw, _ := json.Marshal(rest)
		if s := compact(raw); s != `{"seq":0}` {
			te.Text = clipMiddle(strings.Replace(s, `"seq":0,`, "", 1), clipEvent)
		}
	}
	return te
}

// sentOf keeps what matters of a request the runner sent during a turn.
func sentOf(r *fcp.TurnRequest) TurnEvent {
	te := TurnEvent{Event: r.Op, Sent: true, Decision: r.Decision, IDs: r.IDs, ID: r.ID}
	switch r.Op {
	case fcp.OpToolResult:
		te.Text = clipMiddle(fmt.Sprintf("%q", r.Content), clipEvent)
		te.IsError = fcp.Bool(r.IsError)
	case "screen":
		te.Text = fmt.Sprintf("%dx%d", r.Width, r.Height)
	}
	return te
}

func errorText(e *fcp.Error) string {
	return clipMiddle(e.Kind+": "+clean(e.Message), clipEvent)
}

// String is the event on one line: what was sent marked "→", then the
// event, its call id and the fields that matter.
func (e TurnEvent) String() string {
	parts := []string{e.Event}
	if e.Sent {
		parts[0] = "→ " + e.Event
	}
	if e.Iteration != nil {
		parts = append(parts, fmt.Sprintf("#%d", *e.Iteration))
	}
	for _, s := range []string{e.Type, e.Decision, e.ID} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if len(e.IDs) > 0 {
		parts = append(parts, "["+strings.Join(e.IDs, " ")+"]")
	}
	if e.Name != "" {
		parts = append(parts, e.Name)
	}
	if e.OK != nil {
		parts = append(parts, map[bool]string{true: "ok", false: "not ok"}[*e.OK])
	}
	if e.End != "" {
		parts = append(parts, "end="+e.End)
	}
	if e.IsError != nil {
		parts = append(parts, fmt.Sprintf("is_error=%t", *e.IsError))
	}
	if e.Chunks > 1 {
		parts = append(parts, fmt.Sprintf("(%d chunks)", e.Chunks))
	}
	if e.Text != "" {
		parts = append(parts, clean(e.Text))
	}
	if e.Error != "" {
		parts = append(parts, "error "+clean(e.Error))
	}
	return strings.Join(parts, " ")
}

// eventLines renders events one per line, numbered; past max lines (0: no
// limit) the middle ones are left out with a line saying how many.
func eventLines(evs []TurnEvent, max int) []string {
	var out []string
	for i, e := range evs {
		out = append(out, fmt.Sprintf("%3d %s", i+1, e))
	}
	return clipLines(out, max, "events")
}

// unescapeHTML undoes encoding/json's HTML escapes (\u003c, \u003e,
// \u0026) in JSON text, which say the same with less noise.
func unescapeHTML(s string) string {
	if !strings.Contains(s, `\u00`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		if s[i+1] == 'u' && i+6 <= len(s) {
			switch s[i+2 : i+6] {
			case "003c":
				b.WriteByte('<')
				i += 5
				continue
			case "003e":
				b.WriteByte('>')
				i += 5
				continue
			case "0026":
				b.WriteByte('&')
				i += 5
				continue
			}
		}
		b.WriteString(s[i : i+2]) // an escape pair, kept whole
		i++
	}
	return b.String()
}
