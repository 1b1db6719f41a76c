package check

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/diff"
	"github.com/forge-conform/forge-conform/conformance/turnlog"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// The requirement IDs the turn invariants are charged to
// (TOOL_EXECUTOR_SRD.md).
const (
	idSanitize   = "FR-OUT-02"  // no control sequence in a chunk or result
	idOneResult  = "NFR-REL-01" // exactly one result per call
	idEvents     = "FR-OUT-01"  // Started, chunks, Completed
	idCausality  = "T-APR-01"   // nothing runs before the user decides
	idNoProcLeft = "FR-EXE-05"  // the command's process tree is gone
)

// TurnInput is what the turn checks see: the case and the turn's log with
// the fixture's paths normalized to $ROOT and $OUTSIDE.
type TurnInput struct {
	Case *corpus.Case
	Log  *turnlog.Log
}

// Turn checks a turn: its invariants, then the case's expectation.
func Turn(in TurnInput) []Failure {
	out := TurnInvariants(in)
	return append(out, TurnExpectation(in)...)
}

// TurnInvariants are the checks every turn gets, whatever the case states:
// sanitized chunks and results (FR-OUT-02, I-EXE-12), one result per call
// (NFR-REL-01; a case may relax it for duplicate ids, I-EXE-19), the order
// of a call's events (FR-OUT-01, I-EXE-20) and causality (nothing starts
// between a confirmation and the user's decision, T-APR-01).
func TurnInvariants(in TurnInput) []Failure {
	var out []Failure
	final := in.Log.Final()
	for _, ev := range in.Log.Events() {
		if (ev.Event == fcp.EventStdout || ev.Event == fcp.EventStderr) && unsanitized(ev.Chunk) >= 0 {
			out = append(out, fail(KindInvariant, fmt.Sprintf("a %s chunk of call %s contains a control character or escape sequence at byte %d: %q",
				ev.Event, ev.ID, unsanitized(ev.Chunk), clip(ev.Chunk, 200)), idSanitize))
			break
		}
	}
	if final == nil {
		return out
	}
	manual := map[string]bool{}
	for id := range in.Case.Turn.ToolResults {
		manual[id] = true
	}
	uses, results := map[string]int{}, map[string]int{}
	var useOrder []string
	for _, m := range final.History {
		switch m.Type {
		case fcp.MessageToolUse:
			if uses[m.ID] == 0 {
				useOrder = append(useOrder, m.ID)
			}
			uses[m.ID]++
		case fcp.MessageToolResult:
			results[m.ID]++
			if m.Content != nil && !manual[m.ID] {
				if at := unsanitized(*m.Content); at >= 0 {
					out = append(out, fail(KindInvariant, fmt.Sprintf("the result of call %s contains a control character or escape sequence at byte %d: %q",
						m.ID, at, clip(*m.Content, 200)), idSanitize))
				}
			}
		}
	}
	if final.OK != nil && *final.OK {
		exp := in.Case.Expect.Turn
		for _, id := range useOrder {
			if exp != nil && exp.Results[id].AnyCount || uses[id] > 1 {
				continue
			}
			if results[id] != 1 && !(exp != nil && exp.Results[id].Absent) {
				out = append(out, fail(KindInvariant, fmt.Sprintf("call %s has %d results in the history; every call gets exactly one", id, results[id]), idOneResult))
			}
		}
	}
	out = append(out, eventOrder(in.Log)...)
	out = append(out, causality(in.Log)...)
	return out
}

// unsanitized returns the byte offset of the first character FR-OUT-02
// forbids in s (ESC and every other C0 control but \n, \t and \r, DEL, C1),
// or -1.
func unsanitized(s string) int {
	for i, r := range s {
		switch {
		case r == '\n' || r == '\t' || r == '\r':
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			return i
		}
	}
	return -1
}

// eventOrder checks FR-OUT-01: a call's chunks come after its started and
// before its completed, each at most once per call.
func eventOrder(log *turnlog.Log) []Failure {
	state := map[string]int{} // 0 none, 1 started, 2 completed
	for _, ev := range log.Events() {
		switch ev.Event {
		case fcp.EventStarted:
			if state[ev.ID] == 1 {
				return []Failure{fail(KindInvariant, fmt.Sprintf("call %s started twice without completing", ev.ID), idEvents)}
			}
			state[ev.ID] = 1
		case fcp.EventStdout, fcp.EventStderr:
			if state[ev.ID] != 1 {
				return []Failure{fail(KindInvariant, fmt.Sprintf("a %s chunk of call %s outside its started..completed span", ev.Event, ev.ID), idEvents)}
			}
		case fcp.EventCompleted:
			if state[ev.ID] != 1 {
				return []Failure{fail(KindInvariant, fmt.Sprintf("call %s completed without having started", ev.ID), idEvents)}
			}
			state[ev.ID] = 2
		}
	}
	return nil
}

// causality: between a confirmation and the answer to the runner's decide
// (or cancel) nothing starts executing and no output appears.
func causality(log *turnlog.Log) []Failure {
	waiting := false
	for _, e := range log.Entries {
		switch {
		case e.Kind == turnlog.Event && e.Line.Event == fcp.EventConfirmation:
			waiting = true
		case e.Kind == turnlog.Answer && (e.Req.Op == fcp.OpDecide || e.Req.Op == fcp.OpCancel):
			waiting = false
		case waiting && e.Kind == turnlog.Event && (e.Line.Event == fcp.EventStarted || e.Line.Event == fcp.EventStdout ||
			e.Line.Event == fcp.EventStderr || e.Line.Event == fcp.EventCompleted):
			return []Failure{fail(KindInvariant, fmt.Sprintf("call %s: %s event while a confirmation waits for the user's decision",
				e.Line.ID, e.Line.Event), idCausality)}
		}
	}
	return nil
}

// TurnExpectation checks the case's hand-written expectation.
func TurnExpectation(in TurnInput) []Failure {
	ids := in.Case.IDs
	exp := in.Case.Expect.Turn
	final := in.Log.Final()
	var out []Failure
	bad := func(format string, args ...any) {
		out = append(out, Failure{IDs: ids, Kind: KindExpect, Message: fmt.Sprintf(format, args...)})
	}
	if final == nil {
		bad("the turn has no final response")
		return out
	}
	if (final.OK == nil || !*final.OK) && exp.Refusable {
		return out // the configuration refused (PROTOCOL.md §3.2)
	}
	if final.OK == nil || !*final.OK {
		msg := "ok:false"
		if final.Error != nil {
			msg = final.Error.Kind + ": " + final.Error.Message
		}
		bad("the turn failed (%s); want it to run", msg)
		return out
	}
	events := in.Log.Events()
	if in.Case.Turn != nil {
		events = in.Case.Turn.UnaskedConfirmations(events)
	}
	if len(exp.End) > 0 && !slices.Contains(exp.End, final.End) {
		bad("the turn ended %q; want %s", final.End, strings.Join(exp.End, " or "))
	}
	if len(exp.Order) > 0 {
		k := 0
		for _, ev := range events {
			if k < len(exp.Order) && matchEvent(exp.Order[k], ev) {
				k++
			}
		}
		if k < len(exp.Order) {
			bad("events out of order: want %s, in this order; %s did not come after the earlier ones. Events: %s",
				describeMatches(exp.Order), describeMatch(exp.Order[k]), eventSummary(events))
		}
	}
	for _, m := range exp.Absent {
		for _, ev := range events {
			if matchEvent(m, ev) {
				bad("unexpected %s: want none", describeMatch(m))
				break
			}
		}
	}
	if exp.Executed != nil {
		var got []string
		for _, ev := range events {
			if ev.Event == fcp.EventStarted && !slices.Contains(got, ev.ID) {
				got = append(got, ev.ID)
			}
		}
		want := slices.Clone(*exp.Executed)
		slices.Sort(want)
		sorted := slices.Clone(got)
		slices.Sort(sorted)
		if !slices.Equal(want, sorted) {
			bad("calls executed (started): %v; want exactly %v", got, *exp.Executed)
		}
	}
	for _, id := range sortedMapKeys(exp.Results) {
		out = append(out, checkResults(ids, id, exp.Results[id], final.History)...)
	}
	for _, id := range sortedMapKeys(exp.Streams) {
		st := exp.Streams[id]
		var so, se strings.Builder
		for _, ev := range events {
			if ev.ID != id {
				continue
			}
			switch ev.Event {
			case fcp.EventStdout:
				so.WriteString(ev.Chunk)
			case fcp.EventStderr:
				se.WriteString(ev.Chunk)
			}
		}
		if st.Stdout != nil {
			out = append(out, checkText(ids, "stdout of call "+id+" (chunks concatenated)", *st.Stdout, so.String())...)
		}
		if st.Stderr != nil {
			out = append(out, checkText(ids, "stderr of call "+id+" (chunks concatenated)", *st.Stderr, se.String())...)
		}
	}
	if exp.Confirmations != nil {
		var confs [][]fcp.Confirmation
		for _, ev := range events {
			if ev.Event == fcp.EventConfirmation {
				confs = append(confs, ev.Requests)
			}
		}
		if len(confs) != len(exp.Confirmations) {
			bad("%d confirmation events; want %d. Events: %s", len(confs), len(exp.Confirmations), eventSummary(events))
		} else {
			for i, want := range exp.Confirmations {
				out = append(out, checkConfirmation(ids, i, want, confs[i])...)
			}
		}
	}
	if exp.Pending != nil {
		var got []string
		n := 0
		for _, ev := range events {
			if ev.Event == fcp.EventPending {
				n++
				for _, c := range ev.Calls {
					got = append(got, c.ID)
				}
			}
		}
		if n != 1 || !slices.Equal(got, exp.Pending) {
			bad("pending events: %d surfacing %v; want one surfacing %v", n, got, exp.Pending)
		}
	}
	var reqs []fcp.TurnLine
	for _, ev := range events {
		if ev.Event == fcp.EventModelRequest {
			reqs = append(reqs, ev)
		}
	}
	if exp.Tools != nil {
		for _, r := range reqs {
			var got []string
			if r.Tools != nil {
				for _, t := range *r.Tools {
					got = append(got, t.Name)
				}
			}
			if !slices.Equal(got, *exp.Tools) && !(len(got) == 0 && len(*exp.Tools) == 0) {
				bad("model_request %d advertises tools %v; want %v", deref(r.Iteration), got, *exp.Tools)
				break
			}
		}
	}
	for _, r := range reqs {
		var got []string
		if r.Tools != nil {
			for _, t := range *r.Tools {
				got = append(got, t.Name)
			}
		}
		for _, n := range exp.ToolsInclude {
			if !slices.Contains(got, n) {
				bad("model_request %d does not advertise %s; want it advertised (got %v)", deref(r.Iteration), n, got)
			}
		}
		for _, n := range exp.ToolsExclude {
			if slices.Contains(got, n) {
				bad("model_request %d advertises %s; want it not advertised", deref(r.Iteration), n)
			}
		}
	}
	if exp.Requests != nil {
		if len(reqs) != len(exp.Requests) {
			bad("%d model_request events; want %d. Events: %s", len(reqs), len(exp.Requests), eventSummary(events))
		} else {
			for i, want := range exp.Requests {
				var got []string
				if reqs[i].Messages != nil {
					for _, m := range *reqs[i].Messages {
						if m.Type == fcp.MessageToolResult {
							got = append(got, m.ID)
						}
					}
				}
				if !slices.Equal(got, want.ResultIDs) && !(len(got) == 0 && len(want.ResultIDs) == 0) {
					bad("model_request %d sends the results of %v; want %v, in call order", i, got, want.ResultIDs)
				}
			}
		}
	}
	if exp.History != nil {
		if d, err := historyDiff(exp.History, final.History); err != nil {
			bad("case history expectation is not valid JSON: %v", err)
		} else if d != "" {
			out = append(out, Failure{IDs: ids, Kind: KindExpect,
				Message: "history differs from the expectation (only the fields the case lists are compared)",
				Diff:    d})
		}
	}
	if len(exp.HistoryAnyOf) > 0 {
		var why []string
		for i, alt := range exp.HistoryAnyOf {
			d, err := historyDiff(alt, final.History)
			if err != nil {
				bad("case history_any_of[%d] is not valid JSON: %v", i, err)
				why = nil
				break
			}
			if d == "" {
				why = nil
				break
			}
			why = append(why, fmt.Sprintf("reading %d:\n%s", i+1, indent(d)))
		}
		if len(why) > 0 {
			out = append(out, Failure{IDs: ids, Kind: KindExpect,
				Message: fmt.Sprintf("history matches none of the %d forms the SRD allows (only the fields the case lists are compared)", len(why)),
				Diff:    strings.Join(why, "\n")})
		}
	}
	return out
}

// historyDiff matches want partially against the final history (arrays by
// length and element, objects by the keys listed): "" when it holds, else
// the difference.
func historyDiff(want json.RawMessage, history []fcp.Message) (string, error) {
	var w, got any
	if err := decodeJSON(want, &w); err != nil {
		return "", err
	}
	raw, _ := json.Marshal(history)
	_ = decodeJSON(raw, &got)
	proj := Project(w, got)
	if reflect.DeepEqual(w, proj) {
		return "", nil
	}
	return diff.JSON(w, proj, want), nil
}

func deref(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

func sortedMapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func matchEvent(m corpus.EventMatch, ev fcp.TurnLine) bool {
	if ev.Event != m.Event || (m.ID != "" && evID(ev) != m.ID) || (m.Name != "" && evName(ev) != m.Name) {
		return false
	}
	if m.Contains != "" && !strings.Contains(ev.Chunk, m.Contains) {
		return false
	}
	if m.MessageType != "" && (ev.Message == nil || ev.Message.Type != m.MessageType) {
		return false
	}
	return true
}

// evID is the call id an event is about (a message's id for message
// events).
func evID(ev fcp.TurnLine) string {
	if ev.Message != nil {
		return ev.Message.ID
	}
	return ev.ID
}

func evName(ev fcp.TurnLine) string {
	if ev.Message != nil {
		return ev.Message.Name
	}
	return ev.Name
}

func describeMatch(m corpus.EventMatch) string {
	s := m.Event
	if m.MessageType != "" {
		s += " " + m.MessageType
	}
	if m.ID != "" {
		s += " " + m.ID
	}
	if m.Name != "" {
		s += " (" + m.Name + ")"
	}
	if m.Contains != "" {
		s += fmt.Sprintf(" containing %q", m.Contains)
	}
	return s
}

func describeMatches(ms []corpus.EventMatch) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = describeMatch(m)
	}
	return strings.Join(parts, ", ")
}

// eventSummary lists the events briefly, coalescing a call's chunks.
func eventSummary(events []fcp.TurnLine) string {
	var parts []string
	last := ""
	for _, ev := range events {
		s := ev.Event
		switch ev.Event {
		case fcp.EventMessage:
			s += " " + ev.Message.Type
			if ev.Message.ID != "" {
				s += " " + ev.Message.ID
			}
		case fcp.EventStarted, fcp.EventCompleted, fcp.EventStdout, fcp.EventStderr:
			s += " " + ev.ID
		case fcp.EventConfirmation:
			var ids []string
			for _, r := range ev.Requests {
				ids = append(ids, r.ID)
			}
			s += " " + strings.Join(ids, ",")
		}
		if s == last {
			continue
		}
		last = s
		parts = append(parts, s)
	}
	if len(parts) > 60 {
		parts = append(parts[:60], fmt.Sprintf("... %d more", len(parts)-60))
	}
	return strings.Join(parts, "; ")
}

// dropCR removes carriage returns from got when want has none (I-EXE-12:
// keeping or removing \r are both allowed).
func dropCR(want, got string) string {
	if strings.Contains(want, "\r") {
		return got
	}
	return strings.ReplaceAll(got, "\r", "")
}

func checkText(ids []string, what string, want corpus.TextExpect, got string) []Failure {
	var out []Failure
	bad := func(format string, args ...any) {
		out = append(out, Failure{IDs: ids, Kind: KindExpect, Message: what + ": " + fmt.Sprintf(format, args...)})
	}
	if want.Equals != nil {
		if g := dropCR(*want.Equals, got); g != *want.Equals {
			out = append(out, Failure{IDs: ids, Kind: KindExpect, Message: what + " differs from the expected text",
				Diff: diff.Text(clip(*want.Equals, 4000), clip(g, 4000))})
		}
	}
	if len(want.AnyOf) > 0 && !slices.ContainsFunc(want.AnyOf, func(w string) bool { return dropCR(w, got) == w }) {
		bad("want one of %q; got %q", want.AnyOf, clip(got, 300))
	}
	for _, s := range want.Contains {
		if !strings.Contains(dropCR(s, got), s) {
			bad("want it to contain %q; got %q", s, clip(got, 300))
		}
	}
	for _, s := range want.NotContains {
		if strings.Contains(got, s) {
			bad("want it not to contain %q; got %q", s, clip(got, 300))
		}
	}
	if want.Bytes != nil && len(got) != *want.Bytes {
		bad("%d bytes; want %d", len(got), *want.Bytes)
	}
	return out
}

func checkResults(ids []string, id string, want corpus.ResultExpect, history []fcp.Message) []Failure {
	var got []fcp.Message
	for _, m := range history {
		if m.Type == fcp.MessageToolResult && m.ID == id {
			got = append(got, m)
		}
	}
	var out []Failure
	bad := func(format string, args ...any) {
		out = append(out, Failure{IDs: ids, Kind: KindExpect, Message: fmt.Sprintf("result of call %s: ", id) + fmt.Sprintf(format, args...)})
	}
	switch {
	case want.Absent:
		if len(got) > 0 {
			bad("want no result, got %d", len(got))
		}
		return out
	case len(got) == 0:
		bad("no tool_result in the history")
		return out
	case len(got) > 1 && !want.AnyCount:
		bad("%d results; want exactly one", len(got))
		return out
	}
	for _, m := range got {
		content := ""
		if m.Content != nil {
			content = *m.Content
		}
		isErr := m.IsError != nil && *m.IsError
		if want.IsError != nil && isErr != *want.IsError {
			bad("is_error is %v; want %v (content %q)", isErr, *want.IsError, clip(content, 300))
		}
		if want.Content != nil {
			if g := dropCR(*want.Content, content); g != *want.Content {
				out = append(out, Failure{IDs: ids, Kind: KindExpect, Message: fmt.Sprintf("result of call %s differs from the expected content", id),
					Diff: diff.Text(clip(*want.Content, 4000), clip(g, 4000))})
			}
		}
		if len(want.AnyOf) > 0 && !slices.Contains(want.AnyOf, dropCR(want.AnyOf[0], content)) {
			bad("content %q; want one of %q", clip(content, 300), want.AnyOf)
		}
		if want.Prefix != "" && !strings.HasPrefix(content, want.Prefix) {
			bad("content %q; want it to start with %q", clip(content, 300), want.Prefix)
		}
		for _, s := range want.Contains {
			if !strings.Contains(dropCR(s, content), s) {
				bad("content %q; want it to contain %q", clip(content, 300), s)
			}
		}
		for _, s := range want.NotContains {
			if strings.Contains(content, s) {
				bad("content %q; want it not to contain %q", clip(content, 300), s)
			}
		}
		if want.MaxBytes != nil && len(content) > *want.MaxBytes {
			bad("content is %d bytes; want at most %d", len(content), *want.MaxBytes)
		}
		if want.ErrorKind != "" && m.Error != nil && m.Error.Kind != want.ErrorKind {
			bad("error kind %s; want %s (or none named)", m.Error.Kind, want.ErrorKind)
		}
	}
	return out
}

func checkConfirmation(ids []string, n int, want map[string]corpus.ConfirmExpect, got []fcp.Confirmation) []Failure {
	var out []Failure
	bad := func(format string, args ...any) {
		out = append(out, Failure{IDs: ids, Kind: KindExpect, Message: fmt.Sprintf("confirmation %d: ", n) + fmt.Sprintf(format, args...)})
	}
	var gotIDs []string
	for _, c := range got {
		gotIDs = append(gotIDs, c.ID)
	}
	wantIDs := sortedMapKeys(want)
	sorted := slices.Clone(gotIDs)
	slices.Sort(sorted)
	if !slices.Equal(sorted, wantIDs) {
		bad("asks about %v; want %v", gotIDs, wantIDs)
		return out
	}
	for _, c := range got {
		w := want[c.ID]
		if w.Name != "" && c.Name != w.Name {
			bad("call %s named %q; want %q", c.ID, c.Name, w.Name)
		}
		if w.RiskLevel != "" && c.RiskLevel != w.RiskLevel {
			bad("call %s risk %s; want %s", c.ID, c.RiskLevel, w.RiskLevel)
		}
		if w.SummaryMaxChars != nil && utf8.RuneCountInString(c.Summary) > *w.SummaryMaxChars {
			bad("call %s summary has %d characters; want at most %d: %q", c.ID, utf8.RuneCountInString(c.Summary), *w.SummaryMaxChars, clip(c.Summary, 300))
		}
		if w.Summary != nil {
			out = append(out, checkText(ids, fmt.Sprintf("confirmation %d summary of call %s", n, c.ID), *w.Summary, c.Summary)...)
		}
	}
	return out
}

// TurnOrder checks that the events of log (one phase of a durability case,
// what) contain order's events in this order, others between them.
func TurnOrder(c *corpus.Case, what string, order []corpus.EventMatch, log *turnlog.Log) []Failure {
	events := log.Events()
	k := 0
	for _, ev := range events {
		if k < len(order) && matchEvent(order[k], ev) {
			k++
		}
	}
	if k == len(order) {
		return nil
	}
	return []Failure{{IDs: c.IDs, Kind: KindExpect, Message: fmt.Sprintf("%s: events out of order: want %s, in this order; %s did not come after the earlier ones. Events: %s",
		what, describeMatches(order), describeMatch(order[k]), eventSummary(events))}}
}
