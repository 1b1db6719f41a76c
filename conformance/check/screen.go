package check

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/turnlog"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// KindScreen marks a failure of a screen check (FR-TUI-01..04 on the
// screen op, spec/PROTOCOL.md §11).
const KindScreen = "screen"

// The requirement IDs the screen checks are charged to
// (TOOL_EXECUTOR_SRD.md §3.9, §3.4.6, §3.7.2, §5.2).
const (
	idPrompt   = "FR-TUI-01"  // the approval prompt
	idProgress = "FR-TUI-02"  // per-call state
	idStream   = "FR-TUI-03"  // the streamed output region
	idParse    = "FR-TUI-04"  // the parse-only panel
	idBanner   = "FR-APR-06"  // run_command's warning banner
	idSecOut   = "NFR-SEC-05" // output sanitized before terminal rendering
)

// MaxScreenOutputLines is FR-TUI-03's "limit rendered lines to last 50".
const MaxScreenOutputLines = 50

// Shot is one screen the runner asked for during a turn: its moment, the
// index of its request in the turn's log, and the answer.
type Shot struct {
	Moment *corpus.ScreenMoment
	// At is the index in the log's entries of the screen request.
	At int
	// Turn is the seq of the turn the screen request named.
	Turn   int64
	Screen *fcp.Screen
	// Error says why there is no screen (an error answer, no answer).
	Error string
}

// Shots pairs the screen requests of a turn's log with the moments the
// runner fired, in order (fired holds indexes into the case's screens).
func Shots(c *corpus.Case, log *turnlog.Log, fired []int) []Shot {
	var out []Shot
	k := 0
	for i, e := range log.Entries {
		if e.Kind != turnlog.Sent || e.Req.Op != fcp.OpScreen || k >= len(fired) {
			continue
		}
		s := Shot{Moment: &c.Turn.Screens[fired[k]], At: i, Error: "no answer to the screen request"}
		if e.Req.Turn != nil {
			s.Turn = *e.Req.Turn
		}
		k++
		for _, a := range log.Entries[i+1:] {
			if a.Kind != turnlog.Answer || a.Req.Seq != e.Req.Seq {
				continue
			}
			switch {
			case a.Resp.OK == nil || !*a.Resp.OK:
				msg := "ok:false"
				if a.Resp.Error != nil {
					msg = a.Resp.Error.Kind + ": " + a.Resp.Error.Message
				}
				s.Error = "the screen request failed: " + msg
			case a.Resp.Screen == nil:
				s.Error = "the screen answer has no screen"
			default:
				s.Screen, s.Error = a.Resp.Screen, ""
			}
			break
		}
		out = append(out, s)
	}
	return out
}

// Screens checks the screens of a turn: every moment of the case came and
// was answered, every screen is well formed (ScreenWellFormed), and each
// shows what its moment expects.
func Screens(in TurnInput, fired []int) []Failure {
	c := in.Case
	var out []Failure
	shots := Shots(c, in.Log, fired)
	for i, m := range c.Turn.Screens {
		if !slices.Contains(fired, i) {
			out = append(out, Failure{IDs: momentIDs(m), Kind: KindScreen, Message: fmt.Sprintf(
				"screen %q: the moment never came (no %s); events: %s", m.Name, describeMoment(m), eventSummary(in.Log.Events()))})
		}
	}
	for _, s := range shots {
		if s.Screen == nil {
			out = append(out, Failure{IDs: momentIDs(*s.Moment), Kind: KindScreen, Message: fmt.Sprintf("screen %q: %s", s.Moment.Name, s.Error)})
			continue
		}
		fs := ScreenWellFormed(*s.Screen, s.Moment.Width, s.Moment.Height, momentIDs(*s.Moment))
		fs = append(fs, ScreenExpect(in.Log, s)...)
		for _, f := range fs {
			f.Message = fmt.Sprintf("screen %q (%dx%d, %s): %s", s.Moment.Name, s.Moment.Width, s.Moment.Height, describeMoment(*s.Moment), f.Message)
			if f.Diff == "" {
				f.Diff = "screen:\n" + plainScreen(*s.Screen)
			}
			out = append(out, f)
		}
	}
	return out
}

// momentIDs are the IDs a moment's expectation checks: the ones a failure
// of the screen's own shape is charged to.
func momentIDs(m corpus.ScreenMoment) []string {
	var ids []string
	e := m.Expect
	if e.Prompt {
		ids = append(ids, idPrompt)
	}
	if e.Banner {
		ids = append(ids, idBanner)
	}
	if len(e.States) > 0 {
		ids = append(ids, idProgress)
	}
	if e.Output != nil {
		ids = append(ids, idStream)
	}
	if e.Pending {
		ids = append(ids, idParse)
	}
	if len(ids) == 0 || len(e.Contained) > 0 || len(e.NoStyles) > 0 {
		ids = append(ids, idSanitize, idSecOut)
	}
	return ids
}

func describeMoment(m corpus.ScreenMoment) string {
	s := "after " + describeMatch(m.At)
	if m.At.Event == corpus.MomentEnd {
		s = "after the final response"
	}
	if m.Nth > 1 {
		s = fmt.Sprintf("%s (the %d-th)", s, m.Nth)
	}
	return s
}

func plainScreen(sc fcp.Screen) string {
	var b strings.Builder
	for _, r := range sc.Rows {
		fmt.Fprintf(&b, "|%s\n", r)
	}
	return b.String()
}

// forbiddenOnScreen reports whether r may not appear on a screen row:
// a C0 or C1 control, DEL, or a bidirectional formatting character
// (PROTOCOL.md §11; FR-OUT-02, NFR-SEC-05).
func forbiddenOnScreen(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x200e, r == 0x200f, r == 0x061c, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// ScreenWellFormed checks a screen's shape (PROTOCOL.md §11): exactly
// height rows of at most width cells, spans inside their rows (charged to
// ids), and no control or bidi character on any row (FR-OUT-02,
// NFR-SEC-05: tool output and model text reach the screen sanitized).
func ScreenWellFormed(sc fcp.Screen, width, height int, ids []string) []Failure {
	var out []Failure
	bad := func(format string, args ...any) {
		out = append(out, Failure{IDs: ids, Kind: KindScreen, Message: fmt.Sprintf(format, args...)})
	}
	if len(sc.Rows) != height {
		bad("%d rows; want exactly %d, the height asked for (PROTOCOL.md §11)", len(sc.Rows), height)
	}
	for i, r := range sc.Rows {
		for j, c := range r {
			if forbiddenOnScreen(c) {
				out = append(out, Failure{IDs: []string{idSanitize, idSecOut}, Kind: KindScreen, Message: fmt.Sprintf(
					"row %d holds %U at byte %d: a control or bidirectional formatting character reached the screen unsanitized: %q", i, c, j, r)})
				break
			}
		}
		if w := ansi.StringWidth(r); w > width {
			bad("row %d is %d cells wide; want at most %d: %q", i, w, width, r)
		}
	}
	for _, st := range sc.Styles {
		if st.Row < 0 || st.Row >= len(sc.Rows) || st.Col < 0 || st.Len < 1 || st.Col+st.Len > max(width, ansi.StringWidth(sc.Rows[st.Row])) {
			bad("span %+v lies outside its row", st)
		}
	}
	return out
}

// ScreenExpect checks what a shot's moment expects of its screen; the
// log up to the shot tells what waits (the confirmation, the pending
// calls) and the final history the calls' results.
func ScreenExpect(log *turnlog.Log, s Shot) []Failure {
	sc, e := *s.Screen, s.Moment.Expect
	var out []Failure
	bad := func(id string, format string, args ...any) {
		out = append(out, Failure{IDs: []string{id}, Kind: KindScreen, Message: fmt.Sprintf(format, args...)})
	}
	var confirm []fcp.Confirmation
	var pending []fcp.PendingCall
	var calls []fcp.TurnLine // the tool_use messages and started events seen
	for _, en := range log.Entries[:s.At] {
		if en.Kind != turnlog.Event {
			continue
		}
		switch ev := en.Line; ev.Event {
		case fcp.EventConfirmation:
			confirm = ev.Requests
		case fcp.EventPending:
			pending = ev.Calls
		case fcp.EventMessage, fcp.EventStarted:
			calls = append(calls, *ev)
		}
	}
	joined := normSpace(strings.Join(sc.Rows, " "))
	lower := strings.ToLower(joined)

	if e.Prompt {
		if confirm == nil {
			bad(idPrompt, "the case asks for the prompt, but no confirmation came before the screen")
		}
		for _, q := range confirm {
			if len(rowsWith(sc, q.Name)) == 0 {
				bad(idPrompt, "call %s: no row shows its tool name %q", q.ID, q.Name)
			}
			if sum := shownText(q.Summary); sum != "" && !strings.Contains(joined, sum) {
				bad(idPrompt, "call %s: the screen does not show its approval summary %q", q.ID, sum)
			}
			if !showsRisk(sc, q) {
				bad(idPrompt, "call %s: no row that shows the call holds its risk level %q, as a word (%s) or a %s span (I-TUI-02)",
					q.ID, q.RiskLevel, strings.ToUpper(q.RiskLevel), fcp.RiskClass(q.RiskLevel))
			}
		}
		for _, a := range []struct{ what, re string }{
			{"Approve All", `approve[ _-]all`}, {"Deny All", `deny[ _-]all`}, {"Select individual tools", `\b(select|toggle|choose)`},
		} {
			if !regexp.MustCompile(a.re).MatchString(lower) {
				bad(idPrompt, "the prompt does not show the action %s (I-TUI-03: %s, any case)", a.what, a.re)
			}
		}
	}
	if e.Banner {
		if !strings.Contains(lower, "warning") && !hasSpan(sc, fcp.ClassWarning, -1) {
			bad(idBanner, "run_command waits for approval but no row shows a warning banner (the word \"warning\" or a warning span, I-TUI-04)")
			out[len(out)-1].IDs = []string{idBanner, idPrompt}
		}
	}
	if len(e.States) > 0 {
		final := log.Final()
		for _, id := range sortedMapKeys(e.States) {
			if msg := callState(sc, id, e.States[id], calls, final); msg != "" {
				bad(idProgress, "call %s: %s (I-TUI-05)", id, msg)
			}
		}
	}
	if o := e.Output; o != nil {
		out = append(out, outputLines(sc, *o)...)
	}
	if e.Pending {
		if pending == nil {
			bad(idParse, "the case asks for the parse-only panel, but no pending event came before the screen")
		}
		for _, p := range pending {
			if len(rowsWith(sc, p.Name)) == 0 {
				bad(idParse, "pending call %s: no row shows its name %q", p.ID, p.Name)
			}
			if len(rowsWithID(sc, p.ID)) == 0 {
				bad(idParse, "pending call %s: no row shows its id", p.ID)
			}
		}
		if !strings.Contains(lower, "/tool") && !(strings.Contains(lower, "result") && strings.Contains(lower, "submit")) {
			bad(idParse, "no guidance on submitting a result manually (I-TUI-07: `/tool`, or the words result and submit)")
		}
	}
	for _, c := range e.Contained {
		for _, i := range rowsWith(sc, c.Text) {
			if !strings.Contains(strings.ToLower(sc.Rows[i]), strings.ToLower(c.With)) {
				out = append(out, Failure{IDs: []string{idSanitize, idSecOut}, Kind: KindScreen, Message: fmt.Sprintf(
					"row %d shows %q outside the text it came in (%q): a hostile string made a row of its own (I-TUI-09): %q", i, c.Text, c.With, sc.Rows[i])})
			}
		}
	}
	for _, cls := range e.NoStyles {
		if hasSpan(sc, cls, -1) {
			out = append(out, Failure{IDs: []string{idSanitize, idSecOut}, Kind: KindScreen, Message: fmt.Sprintf(
				"a %s span is on the screen; want none at this moment (I-TUI-09: tool output cannot style the screen)", cls)})
		}
	}
	return out
}

// normSpace collapses runs of white space to one space.
func normSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// shownText is what a string from a tool or the model must show on a
// screen at least: its first line, without control and bidi characters,
// white space collapsed.
func shownText(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if i := strings.IndexByte(s, 0x1b); i >= 0 {
		s = s[:i]
	}
	s = strings.Map(func(r rune) rune {
		if forbiddenOnScreen(r) {
			return -1
		}
		return r
	}, s)
	return normSpace(s)
}

// rowsWith returns the rows holding sub, in any case.
func rowsWith(sc fcp.Screen, sub string) []int {
	var out []int
	sub = strings.ToLower(sub)
	for i, r := range sc.Rows {
		if strings.Contains(strings.ToLower(r), sub) {
			out = append(out, i)
		}
	}
	return out
}

// rowsWithID returns the rows holding id as a token (not inside a longer
// id: c1 is not on a row that holds only c10).
func rowsWithID(sc fcp.Screen, id string) []int {
	re := regexp.MustCompile(`(^|[^\pL\pN_-])` + regexp.QuoteMeta(id) + `($|[^\pL\pN_-])`)
	var out []int
	for i, r := range sc.Rows {
		if re.MatchString(r) {
			out = append(out, i)
		}
	}
	return out
}

// callRows are the rows showing a call: those holding its id, or, when no
// row does, those holding its name where no other call of the batch has
// that name.
func callRows(sc fcp.Screen, id, name string, names map[string]int) []int {
	if rows := rowsWithID(sc, id); len(rows) > 0 || name == "" || names[name] > 1 {
		return rows
	}
	return rowsWith(sc, name)
}

func hasSpan(sc fcp.Screen, class string, row int) bool {
	for _, st := range sc.Styles {
		if st.Class == class && (row < 0 || st.Row == row) {
			return true
		}
	}
	return false
}

// showsRisk: a row showing the call holds its risk level's word or a span
// of its risk class (I-TUI-02).
func showsRisk(sc fcp.Screen, q fcp.Confirmation) bool {
	word := regexp.MustCompile(`(?i)(^|[^\pL])` + regexp.QuoteMeta(q.RiskLevel) + `($|[^\pL])`)
	for _, i := range callRows(sc, q.ID, q.Name, map[string]int{q.Name: 2}) {
		if (q.RiskLevel != "" && word.MatchString(sc.Rows[i])) || hasSpan(sc, fcp.RiskClass(q.RiskLevel), i) {
			return true
		}
	}
	return false
}

// hasSpinner: a spinner span on the row, or a spinner frame (I-TUI-05):
// a Braille pattern, a ◐◓◑◒ quarter, or one of |/-\ standing alone.
func hasSpinner(sc fcp.Screen, row int) bool {
	if hasSpan(sc, fcp.ClassSpinner, row) {
		return true
	}
	for _, r := range sc.Rows[row] {
		if (r >= 0x2800 && r <= 0x28ff) || strings.ContainsRune("◐◓◑◒", r) {
			return true
		}
	}
	for _, f := range strings.Fields(sc.Rows[row]) {
		if len(f) == 1 && strings.Contains(`|/-\`, f) {
			return true
		}
	}
	return false
}

// callState checks one call's state on the screen (FR-TUI-02); it returns
// what is wrong, or "".
func callState(sc fcp.Screen, id, want string, calls []fcp.TurnLine, final *fcp.TurnLine) string {
	names, name := map[string]int{}, ""
	for _, ev := range calls {
		if ev.Message != nil && ev.Message.Type == fcp.MessageToolUse {
			names[ev.Message.Name]++
			if ev.Message.ID == id {
				name = ev.Message.Name
			}
		}
	}
	rows := callRows(sc, id, name, names)
	if len(rows) == 0 {
		return fmt.Sprintf("no row shows the call (its id, or its name %q)", name)
	}
	marks := func(set string) bool {
		for _, i := range rows {
			if strings.ContainsAny(sc.Rows[i], set) {
				return true
			}
		}
		return false
	}
	spinner := slices.ContainsFunc(rows, func(i int) bool { return hasSpinner(sc, i) })
	var result *fcp.Message
	if final != nil {
		for i := range final.History {
			if m := final.History[i]; m.Type == fcp.MessageToolResult && m.ID == id {
				result = &final.History[i]
			}
		}
	}
	switch want {
	case "pending":
		if marks("✓✗⊘") || spinner {
			return "want it shown pending (no ✓, ✗, ⊘ or spinner on its rows)"
		}
	case "executing":
		if !spinner {
			return "want it shown executing, with a spinner (a spinner span or frame on its rows)"
		}
		if marks("✓✗⊘") {
			return "want it shown executing, without ✓, ✗ or ⊘"
		}
	case "completed":
		if result == nil {
			return "no tool_result in the final history to tell ✓ from ✗"
		}
		mark, other := "✓", "✗"
		if result.IsError != nil && *result.IsError {
			mark, other = other, mark
		}
		if !marks(mark) || marks(other) {
			return fmt.Sprintf("want it shown completed with %s (its result's is_error is %v)", mark, mark == "✗")
		}
	case "denied":
		if !marks("⊘") {
			return "want it shown denied or pre-resolved, with ⊘"
		}
		if result == nil || result.Content == nil {
			return "no tool_result in the final history to read its reason from"
		}
		reason := []rune(shownText(*result.Content))
		reason = reason[:min(len(reason), 20)]
		r := strings.TrimRightFunc(string(reason), unicode.IsSpace)
		shown := false
		for _, i := range rows {
			near := sc.Rows[i]
			if i+1 < len(sc.Rows) {
				near += " " + sc.Rows[i+1]
			}
			shown = shown || strings.Contains(normSpace(near), r)
		}
		if !shown {
			return fmt.Sprintf("⊘ without its reason: want %q (the first 20 characters of its result) on its row or the next", r)
		}
	}
	return ""
}

var outputLineRe = regexp.MustCompile(`(?:^|[^\pL\pN])line (\d+)\s*$`)

// outputLines checks FR-TUI-03 on the numbered lines "line N" a call
// streamed (I-TUI-06).
func outputLines(sc fcp.Screen, o corpus.OutputExpect) []Failure {
	var out []Failure
	bad := func(format string, args ...any) {
		out = append(out, Failure{IDs: []string{idStream}, Kind: KindScreen, Message: fmt.Sprintf(format, args...)})
	}
	seen := map[int]bool{}
	lowest := -1 // the number on the lowest row
	for _, r := range sc.Rows {
		if m := outputLineRe.FindStringSubmatch(r); m != nil {
			n, _ := strconv.Atoi(m[1])
			seen[n] = true
			lowest = n
		}
	}
	if len(seen) > MaxScreenOutputLines {
		bad("%d lines of output are shown; want at most the last %d", len(seen), MaxScreenOutputLines)
	}
	if o.Lines == 0 {
		return out
	}
	if !seen[o.Lines] || lowest != o.Lines {
		bad("the last line streamed, \"line %d\", is not the lowest output line shown (auto-scroll: the tail stays visible; lowest shown: %d)", o.Lines, lowest)
	}
	first := max(1, o.Lines-MaxScreenOutputLines+1)
	var early []int
	for n := range seen {
		if n < first {
			early = append(early, n)
		}
	}
	if len(early) > 0 {
		slices.Sort(early)
		bad("lines before the last %d are shown (%v); want only lines %d..%d", MaxScreenOutputLines, early, first, o.Lines)
	}
	if o.Complete {
		var missing []int
		for n := first; n <= o.Lines; n++ {
			if !seen[n] {
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 {
			bad("lines %v of the last %d are not shown though the screen is tall enough", missing, o.Lines-first+1)
		}
	}
	return out
}
