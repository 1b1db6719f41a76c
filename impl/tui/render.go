package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/forge-conform/forge-conform/spec/fcp"
)

// SpinnerFrames are the frames of the executing spinner.
var SpinnerFrames = [...]string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// Look is how the renderer draws the parts whose form the SRD leaves to
// the implementation (I-TUI-01..06): each nil or zero field is the
// reference's. The suite's mutants (impl/mutants) draw with other parts.
type Look struct {
	// Clean makes a string of a tool or the model one safe line
	// (FR-OUT-02, NFR-SEC-05); nil is Line.
	Clean func(string) string
	// Risk is the risk level's visual indicator (FR-TUI-01, I-TUI-02),
	// drawn in the level's colour; nil is a shape and the level's name
	// (riskLabel). An empty indicator is not drawn.
	Risk func(level string) string
	// Banner is run_command's warning banner (FR-APR-06, I-TUI-04); nil
	// is WarningText. An empty banner is not drawn.
	Banner func() string
	// NotRun is the state text of a denied or pre-resolved call, from its
	// reason (FR-TUI-02, I-TUI-05); nil is "not run: <reason>".
	NotRun func(reason string) string
	// SummaryClass is the span class of an approval summary's rows, from
	// the summary as the confirmation carries it; nil draws it plain.
	SummaryClass func(summary string) string
	// OutputLines is the output region's limit in lines (FR-TUI-03:
	// "last 50"); 0 is MaxOutputLines.
	OutputLines int
	// OutputRows are the lines the output region shows, from the complete
	// lines kept and the line still being written ("" when none), before
	// the limit and the scroll apply (FR-TUI-03); nil is all of them, the
	// one being written last.
	OutputRows func(complete []string, partial string) []string
}

// View is how a state is rendered: the screen's size, the clock the
// timings are read against, the spinner frame, and the parse-only input
// line the user is typing.
type View struct {
	Width, Height int
	Now           time.Time
	Frame         int
	Input         string
	Look          Look
}

// seg is a run of text on a row, with its class ("" for plain text).
type seg struct{ text, class string }

type row []seg

func plain(s string) row { return row{{s, ""}} }

// WarningText is run_command's banner (FR-APR-06).
const WarningText = "⚠ WARNING: run_command runs a shell command with your privileges. Read the whole command before approving."

// PromptKeys are the approval prompt's actions (FR-TUI-01).
const PromptKeys = "a approve all · d deny all · ↑↓ move · space select · enter approve selected"

// Guidance is parse-only mode's manual submission hint (FR-TUI-04).
const Guidance = "Submit each result with: /tool <id> <result>"

// Render draws s at v's size: exactly v.Height rows of at most v.Width
// cells, no control characters, and the classed spans.
func Render(s *State, v View) fcp.Screen {
	r := renderer{s: s, v: v}
	return r.screen()
}

type renderer struct {
	s *State
	v View
}

func (r *renderer) clean(x string) string {
	if r.v.Look.Clean != nil {
		return r.v.Look.Clean(x)
	}
	return Line(x)
}

func (r *renderer) top() []row {
	s := r.s
	status := "running"
	switch {
	case s.End != "":
		status = "ended: " + s.End
	case s.Confirm != nil:
		status = "awaiting your approval"
	case len(s.Waiting()) > 0:
		status = "awaiting your results"
	}
	rows := []row{plain(fmt.Sprintf("Forge · turn %d · iteration %d · %s", s.Seq, s.Iteration, status))}
	if s.User != "" {
		rows = append(rows, plain("you: "+r.clean(s.User)))
	}
	if s.Assistant != "" {
		rows = append(rows, plain("assistant: "+r.clean(s.Assistant)))
	}
	return rows
}

func (r *renderer) calls() []row {
	if len(r.s.Calls) == 0 {
		return nil
	}
	rows := []row{plain(rule(fmt.Sprintf("Tool calls (%d)", len(r.s.Calls)), r.v.Width))}
	for _, c := range r.s.Calls {
		name := fmt.Sprintf(" %s [%s]  ", r.clean(c.Name), r.clean(c.ID))
		switch c.State {
		case Pending:
			what := "pending"
			if c.Answered {
				what = "pending · result submitted"
			}
			rows = append(rows, row{{"  ·", ""}, {name + what, ""}})
		case Executing:
			frame := SpinnerFrames[(r.v.Frame%len(SpinnerFrames)+len(SpinnerFrames))%len(SpinnerFrames)]
			end := r.v.Now
			if !c.Ended.IsZero() {
				end = c.Ended
			}
			el := max(0, end.Sub(c.Started))
			rows = append(rows, row{{"  ", ""}, {frame, fcp.ClassSpinner}, {name + "executing ", ""},
				{fmt.Sprintf("%.1fs", el.Seconds()), fcp.ClassTiming}})
		case Succeeded:
			rows = append(rows, row{{"  ", ""}, {"✓", fcp.ClassOK}, {name + "completed", ""}})
		case Failed:
			rows = append(rows, row{{"  ", ""}, {"✗", fcp.ClassError}, {name + "failed: " + r.clean(c.Reason), ""}})
		case Denied:
			reason := "not run: " + r.clean(c.Reason)
			if r.v.Look.NotRun != nil {
				reason = r.v.Look.NotRun(r.clean(c.Reason))
			}
			rows = append(rows, row{{"  ", ""}, {"⊘", fcp.ClassDenied}, {name + reason, ""}})
		}
	}
	return rows
}

// prompt is the approval prompt (FR-TUI-01). Summaries wrap rather than
// being cut: the user approves what they read.
func (r *renderer) prompt() []row {
	s, w := r.s, r.v.Width
	rows := []row{plain(rule(fmt.Sprintf("Approval required: %d call(s)", len(s.Confirm)), w))}
	banner := false
	for _, q := range s.Confirm {
		banner = banner || q.Name == "run_command"
	}
	text := WarningText
	if r.v.Look.Banner != nil {
		text = r.v.Look.Banner()
	}
	if banner && text != "" {
		for _, l := range wrap(text, w) {
			rows = append(rows, row{{l, fcp.ClassWarning}})
		}
	}
	for i, q := range s.Confirm {
		cursor, cls := "  ", ""
		if i == s.Cursor {
			cursor, cls = "▸ ", fcp.ClassSelected
		}
		box := "[ ] "
		if s.Selected[q.ID] {
			box = "[x] "
		}
		line := row{{cursor + box, cls}}
		risk := riskLabel(q.RiskLevel)
		if r.v.Look.Risk != nil {
			risk = r.v.Look.Risk(q.RiskLevel)
		}
		if risk != "" {
			line = append(line, seg{risk, fcp.RiskClass(q.RiskLevel)}, seg{" ", ""})
		}
		line = append(line, seg{fmt.Sprintf("%s [%s]", r.clean(q.Name), r.clean(q.ID)), cls})
		rows = append(rows, line)
		class := ""
		if r.v.Look.SummaryClass != nil {
			class = r.v.Look.SummaryClass(q.Summary)
		}
		for _, l := range wrap(r.clean(q.Summary), w-6) {
			if class != "" {
				rows = append(rows, row{{"      ", ""}, {l, class}})
				continue
			}
			rows = append(rows, plain("      "+l))
		}
	}
	for _, l := range wrap(PromptKeys, w) {
		rows = append(rows, plain(l))
	}
	return rows
}

// riskLabel is the risk indicator: a shape and the level's name, so that it
// is visible without colour too.
func riskLabel(level string) string {
	switch level {
	case "High":
		return "▲ HIGH"
	case "Medium":
		return "◆ MEDIUM"
	case "Low":
		return "● LOW"
	}
	return "? " + strings.ToUpper(Line(level))
}

// pending is the parse-only panel (FR-TUI-04).
func (r *renderer) pending() []row {
	s := r.s
	waiting := s.Waiting()
	rows := []row{plain(rule(fmt.Sprintf("Parse-only mode: %d call(s) wait for your result", len(waiting)), r.v.Width))}
	for _, p := range s.Pending {
		args := argsText(p)
		state := "waiting"
		if s.answered[p.ID] {
			state = "submitted"
		}
		rows = append(rows, plain(fmt.Sprintf("  %s  id %s  %s  %s", r.clean(p.Name), r.clean(p.ID), state, r.clean(args))))
	}
	rows = append(rows, plain(Guidance), plain("> "+r.clean(r.v.Input)))
	return rows
}

// output is the streamed output region (FR-TUI-03): the tail of at most
// MaxOutputLines lines, fitted into room rows, following the output unless
// the user scrolled up.
func (r *renderer) output(room int) []row {
	s := r.s
	if s.OutputID == "" || room < 2 || (len(s.Output) == 0 && s.Partial == "") {
		return nil
	}
	limit := MaxOutputLines
	if r.v.Look.OutputLines > 0 {
		limit = r.v.Look.OutputLines
	}
	lines := append([]string{}, s.Output...)
	if s.Partial != "" {
		lines = append(lines, s.Partial)
	}
	if r.v.Look.OutputRows != nil {
		lines = r.v.Look.OutputRows(s.Output, s.Partial)
	}
	end := len(lines) - min(s.Scroll, len(lines))
	lines = lines[:end]
	if len(lines) > limit {
		lines = lines[len(lines)-limit:]
	}
	if len(lines) > room-1 {
		lines = lines[len(lines)-(room-1):]
	}
	title := fmt.Sprintf("Output of %s · %d line(s)", r.clean(s.OutputName), s.OutputSeen)
	if s.Scroll > 0 {
		title += fmt.Sprintf(" · scrolled up %d", s.Scroll)
	}
	rows := []row{plain(rule(title, r.v.Width))}
	for _, l := range lines {
		rows = append(rows, row{{"│ ", ""}, {r.clean(l), fcp.ClassOutput}})
	}
	return rows
}

func (r *renderer) footer() row {
	s := r.s
	var keys string
	switch {
	case s.End != "":
		keys = "turn ended (" + s.End + ") · q quit"
		if s.EndError != "" {
			keys += " · error: " + r.clean(s.EndError)
		}
	case s.Confirm != nil:
		keys = "decide above · ctrl+c cancel the turn"
	case len(s.Pending) > 0:
		keys = "type /tool <id> <result> and enter · ctrl+c cancel the turn"
	default:
		keys = "pgup/pgdn scroll output · ctrl+c cancel the turn"
	}
	if s.Notice != "" {
		keys = s.Notice + " · " + keys
	}
	return plain(keys)
}

func (r *renderer) screen() fcp.Screen {
	w, h := max(r.v.Width, 1), max(r.v.Height, 1)
	top, calls, foot := r.top(), r.calls(), r.footer()
	var panel []row
	switch {
	case r.s.Confirm != nil:
		panel = r.prompt()
	case len(r.s.Pending) > 0:
		panel = r.pending()
	}
	avail := h - len(top) - 1
	var rows []row
	if panel != nil { // the panel must be seen whole: the calls give way
		if len(calls)+len(panel) > avail {
			calls = shrink(calls, max(0, avail-len(panel)))
		}
		rows = append(append(append(rows, top...), calls...), panel...)
	} else {
		if len(calls) > avail-3 {
			calls = shrink(calls, max(0, avail-3))
		}
		out := r.output(avail - len(calls))
		rows = append(append(append(rows, top...), calls...), out...)
	}
	if len(rows) > h-1 {
		rows = rows[:h-1]
	}
	for len(rows) < h-1 {
		rows = append(rows, nil)
	}
	rows = append(rows, foot)
	return draw(rows, w, h)
}

// shrink keeps n rows of a calls section: its title, the first calls and a
// line saying how many are hidden.
func shrink(rows []row, n int) []row {
	if n <= 0 {
		return nil
	}
	if len(rows) <= n {
		return rows
	}
	if n == 1 {
		return rows[:1]
	}
	out := append([]row{}, rows[:n-1]...)
	return append(out, plain(fmt.Sprintf("  … %d more call(s)", len(rows)-(n-1))))
}

// draw lays the rows out at width w: each cut to w cells, trailing spaces
// removed, spans measured in cells.
func draw(rows []row, w, h int) fcp.Screen {
	sc := fcp.Screen{Width: w, Height: h, Rows: make([]string, 0, h), Styles: []fcp.ScreenStyle{}}
	for i, rw := range rows {
		var b strings.Builder
		col := 0
		for _, sg := range rw {
			if col >= w {
				break
			}
			t := sg.text
			if n := ansi.StringWidth(t); col+n > w {
				t = ansi.Truncate(t, w-col, "…")
			}
			n := ansi.StringWidth(t)
			b.WriteString(t)
			if sg.class != "" && n > 0 {
				sc.Styles = append(sc.Styles, fcp.ScreenStyle{Row: i, Col: col, Len: n, Class: sg.class})
			}
			col += n
		}
		text := strings.TrimRight(b.String(), " ")
		tw := ansi.StringWidth(text)
		// clip spans to the trimmed text
		kept := sc.Styles[:0]
		for _, st := range sc.Styles {
			if st.Row == i {
				if st.Col >= tw {
					continue
				}
				st.Len = min(st.Len, tw-st.Col)
			}
			kept = append(kept, st)
		}
		sc.Styles = kept
		sc.Rows = append(sc.Rows, text)
	}
	return sc
}

// rule is a section title drawn as a horizontal rule.
func rule(title string, w int) string {
	s := "── " + title + " "
	if n := w - ansi.StringWidth(s); n > 0 {
		s += strings.Repeat("─", n)
	}
	return s
}

// wrap breaks s into rows of at most w cells (at spaces where it can).
func wrap(s string, w int) []string {
	if w < 1 {
		w = 1
	}
	return strings.Split(ansi.Wrap(s, w, ""), "\n")
}

// argsText renders a pending call's arguments on one line.
func argsText(p fcp.PendingCall) string {
	if p.RawArgs != nil {
		return *p.RawArgs
	}
	var v any
	if json.Unmarshal(p.Args, &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			return string(b)
		}
	}
	return string(p.Args)
}
