package tui

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/forge-conform/forge-conform/spec/fcp"
)

// MaxOutputLines is how many lines of streamed output the output region
// renders at most: FR-TUI-03's "last 50".
const MaxOutputLines = 50

// TickInterval is how often the spinner moves and the timings refresh.
const TickInterval = 100 * time.Millisecond

// CallState is a call's state as FR-TUI-02 lists them.
type CallState int

// The states of a call.
const (
	Pending   CallState = iota // planned, not run yet
	Executing                  // started, not completed
	Succeeded                  // completed with a result that is not an error (✓)
	Failed                     // completed with an error result (✗)
	Denied                     // never ran: denied or pre-resolved (⊘), with its reason
)

// Call is one tool call of the current batch as the TUI shows it.
type Call struct {
	ID, Name string
	// Summary and Risk come from the batch's confirmation, when it had one.
	Summary, Risk string
	State         CallState
	// Reason is why a Denied call did not run (its result's first line);
	// Result the first line of a Failed call's result.
	Reason  string
	Started time.Time
	// Ended is when Executing ended (completed).
	Ended time.Time
	// Answered is set in parse-only mode once the user submitted its
	// result.
	Answered bool
	ran      bool
}

// State is the TUI's view of one turn, built from the turn's events alone
// (spec/PROTOCOL.md §9.2) and the user's requests. It is plain data; the
// Bubble Tea model and the screen op both render it with Render.
type State struct {
	Seq  int64
	User string
	// Assistant is the latest assistant text.
	Assistant string
	Iteration int
	Calls     []*Call
	// Confirm holds the confirmation that waits for the user's decision;
	// Cursor and Selected are the prompt's own state (select individual
	// tools).
	Confirm  []fcp.Confirmation
	Cursor   int
	Selected map[string]bool
	// Pending holds the calls of a parse-only batch that wait for the
	// user's results.
	Pending []fcp.PendingCall
	// Output is the streamed output of OutputID, the call that streamed
	// last: at most MaxOutputLines complete lines, then Partial, the line
	// still being written. Scroll is how many lines the user scrolled up
	// (0 follows the output).
	OutputID   string
	OutputName string
	Output     []string
	Partial    string
	OutputSeen int // lines streamed in all, kept ones included
	Scroll     int
	// Keep is how many complete lines Output keeps; 0 means
	// MaxOutputLines (the region scrolls within them).
	Keep int
	// Notice is the last thing the user did ("approved all", ...).
	Notice string
	// End is the turn's end state once its final response is out;
	// EndError the error of a turn that could not run.
	End      string
	EndError string

	fresh    bool            // a model request came: the next tool use starts a batch
	answered map[string]bool // pending ids the user submitted a result for
}

// NewState returns the state of a turn that has not written anything yet.
func NewState(seq int64) *State {
	return &State{Seq: seq, Selected: map[string]bool{}}
}

func (s *State) call(id string) *Call {
	for _, c := range s.Calls {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// Apply updates the state with one line the turn wrote, at time now.
func (s *State) Apply(l fcp.TurnLine, now time.Time) {
	switch l.Event {
	case fcp.EventModelRequest:
		if l.Iteration != nil {
			s.Iteration = *l.Iteration
		}
		s.fresh = true
	case fcp.EventMessage:
		if l.Message != nil {
			s.message(*l.Message)
		}
	case fcp.EventConfirmation:
		s.Confirm, s.Cursor, s.Selected = l.Requests, 0, map[string]bool{}
		for _, q := range l.Requests {
			s.Selected[q.ID] = true // the prompt starts with every call selected
			if c := s.call(q.ID); c != nil {
				c.Summary, c.Risk = q.Summary, q.RiskLevel
			}
		}
	case fcp.EventPending:
		s.Pending, s.answered = l.Calls, map[string]bool{}
	case fcp.EventStarted:
		s.Confirm = nil // the decision was taken
		if c := s.call(l.ID); c != nil {
			c.State, c.Started, c.ran = Executing, now, true
		}
		s.OutputID, s.OutputName, s.Output, s.Partial, s.OutputSeen, s.Scroll = l.ID, l.Name+" ["+l.ID+"]", nil, "", 0, 0
	case fcp.EventStdout, fcp.EventStderr:
		s.stream(l.ID, l.Chunk)
	case fcp.EventCompleted:
		if c := s.call(l.ID); c != nil {
			c.Ended = now
		}
	}
	if l.OK != nil {
		s.Confirm, s.Pending = nil, nil
		if *l.OK {
			s.End = l.End
		} else {
			s.End = "error"
			if l.Error != nil {
				s.EndError = l.Error.Message
			}
		}
	}
}

func (s *State) message(m fcp.Message) {
	switch m.Type {
	case fcp.MessageUser:
		s.User = m.Text
	case fcp.MessageAssistant:
		s.Assistant = m.Text
	case fcp.MessageToolUse:
		if s.fresh {
			s.Calls, s.Confirm, s.Pending, s.fresh = nil, nil, nil, false
		}
		s.Calls = append(s.Calls, &Call{ID: m.ID, Name: m.Name})
	case fcp.MessageToolResult:
		c := s.call(m.ID)
		if c == nil {
			return
		}
		content := ""
		if m.Content != nil {
			content = *m.Content
		}
		isErr := m.IsError != nil && *m.IsError
		switch {
		case c.ran || c.Answered:
			c.State = Succeeded
			if isErr {
				c.State, c.Reason = Failed, firstLine(content)
			}
		default:
			s.Confirm = nil // a denial is an effect of the decision
			c.State, c.Reason = Denied, firstLine(content)
		}
	}
}

// stream appends an output chunk of call id.
func (s *State) stream(id, chunk string) {
	if id != s.OutputID {
		s.OutputID, s.OutputName, s.Output, s.Partial, s.OutputSeen, s.Scroll = id, "["+id+"]", nil, "", 0, 0
		if c := s.call(id); c != nil {
			s.OutputName = c.Name + " [" + id + "]"
		}
	}
	for {
		i := strings.IndexByte(chunk, '\n')
		if i < 0 {
			s.Partial = appendLine(s.Partial, chunk)
			break
		}
		s.Output = append(s.Output, appendLine(s.Partial, chunk[:i]))
		s.Partial, chunk = "", chunk[i+1:]
		s.OutputSeen++
		if s.Scroll > 0 {
			s.Scroll++ // the user scrolled up: keep their place
		}
	}
	keep := MaxOutputLines
	if s.Keep > 0 {
		keep = s.Keep
	}
	if over := len(s.Output) - keep; over > 0 {
		s.Output = append(s.Output[:0:0], s.Output[over:]...)
	}
	s.Scroll = min(s.Scroll, max(0, len(s.Output)-1))
}

// User applies a request the user made (decide, cancel, tool_result)
// before its effects arrive as events.
func (s *State) UserRequest(r fcp.TurnRequest) {
	switch r.Op {
	case fcp.OpDecide:
		s.Confirm = nil
		switch r.Decision {
		case fcp.DecisionApproveAll:
			s.Notice = "approved all"
		case fcp.DecisionDenyAll:
			s.Notice = "denied all"
		default:
			s.Notice = "approved " + strings.Join(r.IDs, ", ")
			if len(r.IDs) == 0 {
				s.Notice = "approved none"
			}
		}
	case fcp.OpCancel:
		s.Notice = "cancelling"
	case fcp.OpToolResult:
		if s.answered == nil {
			s.answered = map[string]bool{}
		}
		s.answered[r.ID] = true
		if c := s.call(r.ID); c != nil {
			c.Answered = true
		}
		s.Notice = "result submitted for " + r.ID
	}
}

// Waiting reports the ids of the pending calls that have no result yet.
func (s *State) Waiting() []string {
	var out []string
	for _, p := range s.Pending {
		if !s.answered[p.ID] {
			out = append(out, p.ID)
		}
	}
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// TurnScreen is the screen of one turn served by the screen op (package
// fcpserver): the state its lines build, rendered on demand. It is not safe
// for concurrent use; the server serializes it with its output.
type TurnScreen struct {
	st    *State
	look  Look
	start time.Time
	now   func() time.Time
}

// NewTurnScreen returns the screen of the turn seq; now may be nil
// (time.Now).
func NewTurnScreen(seq int64, look Look, now func() time.Time) *TurnScreen {
	if now == nil {
		now = time.Now
	}
	st := NewState(seq)
	st.Keep = look.OutputLines
	return &TurnScreen{st: st, look: look, start: now(), now: now}
}

// Seq is the turn's seq.
func (t *TurnScreen) Seq() int64 { return t.st.Seq }

// Apply takes one line the turn writes, before it is written.
func (t *TurnScreen) Apply(l fcp.TurnLine) { t.st.Apply(l, t.now()) }

// UserRequest takes a decide, cancel or tool_result the server accepted.
func (t *TurnScreen) UserRequest(r fcp.TurnRequest) { t.st.UserRequest(r) }

// Render draws the current screen at width x height; the spinner turns
// with the clock as in the terminal.
func (t *TurnScreen) Render(width, height int) fcp.Screen {
	now := t.now()
	return Render(t.st, View{Width: width, Height: height, Now: now,
		Frame: int(now.Sub(t.start) / TickInterval), Look: t.look})
}

// maxLineBytes bounds a stored output line: a screen is at most 400 cells
// wide, so a longer line's tail is never shown, and a command that prints
// megabytes without a newline must cost the screen state O(chunk), not
// O(line) per chunk.
const maxLineBytes = 64 << 10

// appendLine appends text to line, keeping at most maxLineBytes bytes and
// cutting at a character boundary.
func appendLine(line, text string) string {
	room := maxLineBytes - len(line)
	if room <= 0 {
		return line
	}
	if len(text) > room {
		for room > 0 && !utf8.RuneStart(text[room]) {
			room--
		}
		text = text[:room]
	}
	return line + text
}
