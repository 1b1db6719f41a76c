// Package program is the reference terminal UI as a Bubble Tea program
// (cmd/forge-tui): Model draws a turn's tui.State with Lip
// Gloss styles and takes the user's keys, UI carries the engine's events
// in and the user's decisions and manual results out, and Run runs a turn
// in a terminal. It is apart from package tui, whose state and rendering
// serve the screen op, so that a program serving FCP/1 (cmd/forge-ref)
// links no terminal library.
package program

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/tui"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// Styles maps a span class to its look; the risk colours are the ones
// FR-TUI-01's "visual indicator" adds to the label's text.
var Styles = map[string]lipgloss.Style{
	fcp.ClassRiskLow:    lipgloss.NewStyle().Foreground(lipgloss.Color("2")).Bold(true),
	fcp.ClassRiskMedium: lipgloss.NewStyle().Foreground(lipgloss.Color("3")).Bold(true),
	fcp.ClassRiskHigh:   lipgloss.NewStyle().Foreground(lipgloss.Color("15")).Background(lipgloss.Color("1")).Bold(true),
	fcp.ClassWarning:    lipgloss.NewStyle().Foreground(lipgloss.Color("1")).Bold(true),
	fcp.ClassSpinner:    lipgloss.NewStyle().Foreground(lipgloss.Color("6")),
	fcp.ClassTiming:     lipgloss.NewStyle().Faint(true),
	fcp.ClassOK:         lipgloss.NewStyle().Foreground(lipgloss.Color("2")),
	fcp.ClassError:      lipgloss.NewStyle().Foreground(lipgloss.Color("1")),
	fcp.ClassDenied:     lipgloss.NewStyle().Foreground(lipgloss.Color("3")),
	fcp.ClassSelected:   lipgloss.NewStyle().Reverse(true),
	fcp.ClassOutput:     lipgloss.NewStyle(),
}

// Model is the Bubble Tea model of one turn: the tui.State the engine's events
// build, the prompt's keys, the parse-only input line, and the channels
// that carry the user's answers back to the engine (through UI).
type Model struct {
	st     *tui.State
	w, h   int
	frame  int
	input  textinput.Model
	ui     *UI
	cancel context.CancelFunc
	now    func() time.Time
	look   tui.Look
	// manual collects parse-only results until every pending call has one.
	manual map[string]executor.ManualResult
	err    string
	quit   bool
}

// eventMsg carries one line of the turn into the model.
type eventMsg fcp.TurnLine

type tickMsg struct{}

// NewModel returns the model of the turn seq; cancel cancels the turn (the
// user's cancel, FR-EXE-04). now may be nil (time.Now).
func NewModel(seq int64, ui *UI, cancel context.CancelFunc, now func() time.Time, look tui.Look) *Model {
	if now == nil {
		now = time.Now
	}
	in := textinput.New()
	in.Prompt = ""
	in.Placeholder = "/tool <id> <result>"
	in.CharLimit = 1 << 16
	st := tui.NewState(seq)
	st.Keep = look.OutputLines
	return &Model{st: st, w: 80, h: 24, input: in, ui: ui, cancel: cancel, now: now, look: look,
		manual: map[string]executor.ManualResult{}}
}

// State returns the model's state (for tests).
func (m *Model) State() *tui.State { return m.st }

// Init starts the spinner's clock.
func (m *Model) Init() tea.Cmd { return tick() }

func tick() tea.Cmd {
	return tea.Tick(tui.TickInterval, func(time.Time) tea.Msg { return tickMsg{} })
}

// Update applies one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
	case tickMsg:
		m.frame++
		return m, tick()
	case eventMsg:
		m.st.Apply(fcp.TurnLine(msg), m.now())
		if msg.Event == fcp.EventPending {
			m.manual = map[string]executor.ManualResult{}
			m.input.Reset()
			return m, m.input.Focus()
		}
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

func (m *Model) key(k tea.KeyMsg) tea.Cmd {
	s := m.st
	if k.Type == tea.KeyCtrlC || (s.End != "" && k.String() == "q") {
		if s.End != "" || m.quit {
			return tea.Quit
		}
		m.quit = true // a second ctrl+c leaves even if the turn hangs
		m.cancelTurn()
		return nil
	}
	switch {
	case s.End != "":
		return nil
	case s.Confirm != nil:
		m.promptKey(k)
		return nil
	case len(s.Waiting()) > 0:
		if k.Type == tea.KeyEnter {
			m.submit()
			return nil
		}
		if k.Type == tea.KeyEsc {
			m.cancelTurn()
			return nil
		}
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(k)
		return cmd
	}
	switch k.String() {
	case "pgup", "up", "k":
		s.Scroll = min(s.Scroll+map[bool]int{true: 10, false: 1}[k.String() == "pgup"], max(0, len(s.Output)-1))
	case "pgdown", "down", "j":
		s.Scroll = max(0, s.Scroll-map[bool]int{true: 10, false: 1}[k.String() == "pgdown"])
	case "end", "G":
		s.Scroll = 0
	case "esc":
		m.cancelTurn()
	}
	return nil
}

func (m *Model) cancelTurn() {
	m.st.UserRequest(fcp.TurnRequest{Op: fcp.OpCancel})
	if m.cancel != nil {
		m.cancel()
	}
}

// promptKey handles the approval prompt's keys (FR-TUI-01's actions).
func (m *Model) promptKey(k tea.KeyMsg) {
	s := m.st
	decide := func(d executor.Decision) {
		s.UserRequest(fcp.TurnRequest{Op: fcp.OpDecide, Decision: d.Kind, IDs: d.IDs})
		if m.ui != nil {
			m.ui.decisions <- d
		}
	}
	switch k.String() {
	case "a", "A":
		decide(executor.Decision{Kind: fcp.DecisionApproveAll})
	case "d", "D":
		decide(executor.Decision{Kind: fcp.DecisionDenyAll})
	case "up", "k", "shift+tab":
		s.Cursor = max(0, s.Cursor-1)
	case "down", "j", "tab":
		s.Cursor = min(len(s.Confirm)-1, s.Cursor+1)
	case " ", "x":
		id := s.Confirm[s.Cursor].ID
		s.Selected[id] = !s.Selected[id]
	case "enter":
		ids := []string{}
		for _, q := range s.Confirm {
			if s.Selected[q.ID] {
				ids = append(ids, q.ID)
			}
		}
		decide(executor.Decision{Kind: fcp.DecisionApproveSelected, IDs: ids})
	case "esc":
		m.cancelTurn()
	}
}

// submit reads "/tool <id> <result>" (or "/tool! <id> <error>") from the
// input line (FR-TUI-04).
func (m *Model) submit() {
	line := strings.TrimSpace(m.input.Value())
	cmd, rest, _ := strings.Cut(line, " ")
	id, content, _ := strings.Cut(strings.TrimLeft(rest, " "), " ")
	isErr := cmd == "/tool!"
	waiting := m.st.Waiting()
	switch {
	case cmd != "/tool" && cmd != "/tool!":
		m.st.Notice = "type /tool <id> <result> (or /tool! <id> <error>)"
		return
	case !slices.Contains(waiting, id):
		m.st.Notice = fmt.Sprintf("no pending call %q; waiting for %s", tui.Line(id), strings.Join(waiting, ", "))
		return
	}
	m.manual[id] = executor.ManualResult{Content: content, IsError: isErr}
	m.st.UserRequest(fcp.TurnRequest{Op: fcp.OpToolResult, ID: id, Content: content, IsError: isErr})
	m.input.Reset()
	if len(m.st.Waiting()) == 0 && m.ui != nil {
		m.ui.manual <- m.manual
		m.manual = map[string]executor.ManualResult{}
	}
}

// Screen renders the model's current screen as plain rows and spans.
func (m *Model) Screen() fcp.Screen {
	return tui.Render(m.st, tui.View{Width: m.w, Height: m.h, Now: m.now(), Frame: m.frame, Input: m.input.Value(),
		Look: m.look})
}

// View draws the screen with the span classes' styles.
func (m *Model) View() string {
	return Styled(m.Screen())
}

// Styled renders sc's rows with Styles applied to its spans.
func Styled(sc fcp.Screen) string {
	byRow := map[int][]fcp.ScreenStyle{}
	for _, st := range sc.Styles {
		byRow[st.Row] = append(byRow[st.Row], st)
	}
	out := make([]string, len(sc.Rows))
	for i, r := range sc.Rows {
		spans := byRow[i]
		sort.Slice(spans, func(a, b int) bool { return spans[a].Col < spans[b].Col })
		var b strings.Builder
		col, w := 0, ansi.StringWidth(r)
		for _, st := range spans {
			if st.Col < col {
				continue
			}
			b.WriteString(ansi.Cut(r, col, st.Col))
			b.WriteString(Styles[st.Class].Render(ansi.Cut(r, st.Col, st.Col+st.Len)))
			col = st.Col + st.Len
		}
		b.WriteString(ansi.Cut(r, col, w))
		out[i] = b.String()
	}
	return strings.Join(out, "\n")
}

// UI is executor.UI for a Bubble Tea program: events go to the program as
// messages, in order (Send blocks until the model takes them); the
// decisions and manual results come back from the model's keys.
type UI struct {
	p         *tea.Program
	decisions chan executor.Decision
	manual    chan map[string]executor.ManualResult
}

// NewUI returns a UI; Attach gives it its program.
func NewUI() *UI {
	return &UI{decisions: make(chan executor.Decision, 1), manual: make(chan map[string]executor.ManualResult, 1)}
}

// Attach sets the program the events go to.
func (u *UI) Attach(p *tea.Program) { u.p = p }

// Event sends l to the program.
func (u *UI) Event(l fcp.TurnLine) error {
	u.p.Send(eventMsg(l))
	return nil
}

// Confirm waits for the user's decision.
func (u *UI) Confirm(ctx context.Context, _ []fcp.Confirmation) (executor.Decision, error) {
	select {
	case d := <-u.decisions:
		return d, nil
	case <-ctx.Done():
		return executor.Decision{}, ctx.Err()
	}
}

// Manual waits for the user's results of the pending calls.
func (u *UI) Manual(ctx context.Context, _ []fcp.PendingCall) (map[string]executor.ManualResult, error) {
	select {
	case r := <-u.manual:
		return r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// TurnFunc runs one turn with ui as its user; cancelling ctx is the user's
// cancel.
type TurnFunc func(ctx context.Context, ui executor.UI) (executor.Outcome, error)

// Options configure Run.
type Options struct {
	Seq  int64
	Look tui.Look
	// ProgramOptions are passed to tea.NewProgram (input, output, alt
	// screen).
	ProgramOptions []tea.ProgramOption
}

// Run runs a turn in a terminal program until the user quits after its end
// (q or ctrl+c), and returns the turn's outcome.
func Run(ctx context.Context, run TurnFunc, o Options) (executor.Outcome, error) {
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ui := NewUI()
	m := NewModel(o.Seq, ui, cancel, nil, o.Look)
	p := tea.NewProgram(m, o.ProgramOptions...)
	ui.Attach(p)
	type result struct {
		out executor.Outcome
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := run(tctx, ui)
		final := fcp.TurnLine{Seq: o.Seq, OK: fcp.Bool(err == nil), End: out.End, History: out.History}
		if err != nil {
			final.Error = &fcp.Error{Kind: "ExecutionFailed", Message: err.Error()}
		}
		p.Send(eventMsg(final))
		done <- result{out, err}
	}()
	if _, err := p.Run(); err != nil {
		cancel()
		<-done
		return executor.Outcome{}, fmt.Errorf("tui: running the terminal program: %w", err)
	}
	cancel() // the user left: a turn still running is cancelled
	r := <-done
	return r.out, r.err
}
