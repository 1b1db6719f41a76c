package corpus

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/forge-conform/forge-conform/spec/fcp"
)

// OpTurn is the op of a turn case (spec/PROTOCOL.md §9).
const OpTurn = "turn"

// TurnSpec is what a turn case plays: the user's message, the scripted
// model, and the user's behaviour while the turn runs.
type TurnSpec struct {
	// User is the user message that starts the turn.
	User string `json:"user"`
	// Model is the scripted model: an array of fcp.ModelResponse ("$ROOT"
	// and "$OUTSIDE" expand in strings at the runner; $repeat objects are
	// expanded at load, RepeatKey).
	Model json.RawMessage `json:"model"`
	// Decide answers the turn's confirmations in order: the n-th
	// confirmation gets Decide[n] (the last one repeats; none means
	// approve_all).
	Decide []Decision `json:"decide,omitempty"`
	// ApproveIfAsked are calls the SRD lets an implementation ask about
	// or not (a read-only tool not allowlisted in prompt mode, I-EXE-23):
	// when a confirmation asks about one, the runner approves it (adding
	// it to the decision, a deny_all becoming approve_selected; a
	// confirmation that asks about nothing else takes no Decide entry),
	// and the expectations do not see it asked (a confirmation left with
	// no other request is no confirmation).
	ApproveIfAsked []string `json:"approve_if_asked,omitempty"`
	// Cancel sends cancel on the first event it matches.
	Cancel *EventMatch `json:"cancel,omitempty"`
	// ToolResults are the user's manual results for pending calls
	// (parse-only mode), by call id; a pending call without one gets an
	// empty success.
	ToolResults map[string]ManualResult `json:"tool_results,omitempty"`
	// SlowReader makes the runner pause on every output chunk, so that an
	// implementation's event channel fills up (FR-OUT-01's backpressure).
	SlowReader bool `json:"slow_reader,omitempty"`
	// PidsFile is a file of the fixture (relative to the root) into which
	// the case's commands write their pids, one per line (grandchildren
	// included): after the turn none of them may be alive (FR-EXE-05).
	PidsFile string `json:"pids_file,omitempty"`
	// Screens are the moments at which the runner asks for the screen
	// (spec/PROTOCOL.md §11), in any order; a case with screens needs the
	// screen op.
	Screens []ScreenMoment `json:"screens,omitempty"`
	// Benign pairs each hostile string of the model script with its benign
	// twin: the same printable text without the control sequences and
	// bidi characters (I-TUI-09). The runner then also plays the benign
	// turn (every hostile string replaced) and its marked twin (the benign
	// text with its letters and digits changed, BenignMarked), and each
	// settled screen of the case must equal the benign run's at the same
	// moment except on the rows where the text is (those that differ
	// between the benign and marked runs), which must still show the
	// benign text (check.LikeBenign).
	Benign []BenignText `json:"benign,omitempty"`

	// Durability (spec/PROTOCOL.md §10). A case with Recover steps is a
	// durability case: the turn and every step get ctx.journal_dir (one
	// empty directory per case), and each step runs in a fresh process.
	// Crash asks the turn to kill itself at a crash point; Kill has the
	// runner kill the implementation's process tree at the first event it
	// matches. A turn with either ends with no final response.
	Crash *fcp.CrashPoint `json:"crash,omitempty"`
	Kill  *EventMatch     `json:"kill,omitempty"`
	// Recover are the recover requests that follow the turn, in order,
	// each in a fresh process. Every step but the last crashes (Crash or
	// Kill); the last one ends with the final response that Expect.Turn
	// checks.
	Recover []RecoverStep `json:"recover,omitempty"`
}

// RecoverStep is one recover request after a crash (PROTOCOL.md §10.3).
type RecoverStep struct {
	// Model is the script of the resumed turn ("$ROOT" expands; $repeat
	// objects are expanded at load).
	Model json.RawMessage `json:"model"`
	// Decision answers the recovery prompt: resume or discard.
	Decision string `json:"decision,omitempty"`
	// Crash and Kill crash this step as in TurnSpec.
	Crash *fcp.CrashPoint `json:"crash,omitempty"`
	Kill  *EventMatch     `json:"kill,omitempty"`
	// Again recovers a copy of the same journal a second time, in another
	// fresh process, and requires the same recovered event and final
	// history (the recovery is a function of the journal). Only for a
	// step whose model runs no tool.
	Again bool `json:"again,omitempty"`
	// Expect is the expected recovered event.
	Expect *RecoveredExpect `json:"expect,omitempty"`
}

// RecoveredExpect is the expected recovered event of a step.
type RecoveredExpect struct {
	// NoBatch: nothing to recover (no batch, no prompt).
	NoBatch bool `json:"no_batch,omitempty"`
	// Batch is matched partially against the recovered batch (arrays by
	// length and element, objects by the keys listed).
	Batch json.RawMessage `json:"batch,omitempty"`
	// Prompt is whether the user must be asked; absent accepts both
	// (I-JRN-04).
	Prompt *bool `json:"prompt,omitempty"`
}

// Decision is one answer to a confirmation: approve_all, deny_all, or
// approve_selected with IDs.
type Decision struct {
	Decision string   `json:"decision"`
	IDs      []string `json:"ids,omitempty"`
}

// ManualResult is a user's result for a pending call.
type ManualResult struct {
	Content string `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
}

// EventMatch matches a turn event: every field it sets must be equal
// (Contains: the chunk contains the text).
type EventMatch struct {
	Event    string `json:"event"`
	ID       string `json:"id,omitempty"`
	Name     string `json:"name,omitempty"`
	Contains string `json:"contains,omitempty"`
	// MessageType matches a message event's message type.
	MessageType string `json:"message_type,omitempty"`
}

// TurnExpect is the hand-written expectation over a turn. Every field is
// optional; what a field does not state is not checked. Whatever the case
// states, the runner always checks the turn's invariants (one result per
// call, Started before a call's chunks and Completed after them, nothing
// started while a confirmation is unanswered, no escape sequence in a chunk
// or result).
type TurnExpect struct {
	// End lists the end states the SRD allows (any of).
	End []string `json:"end,omitempty"`
	// Order lists events that must occur in this order (others may come
	// between them).
	Order []EventMatch `json:"order,omitempty"`
	// Absent lists events that must not occur.
	Absent []EventMatch `json:"absent,omitempty"`
	// Executed lists exactly the call ids that start executing (a started
	// event); nil does not check.
	Executed *[]string `json:"executed,omitempty"`
	// Results are the expected results by call id, read from the history.
	Results map[string]ResultExpect `json:"results,omitempty"`
	// Streams are the expected chunks of a call, concatenated per stream
	// (chunk boundaries are never compared, I-EXE-20).
	Streams map[string]StreamExpect `json:"streams,omitempty"`
	// Confirmations are the expected confirmation events, in order; each
	// maps exactly the requested call ids to what their request says.
	Confirmations []map[string]ConfirmExpect `json:"confirmations,omitempty"`
	// Pending is the expected ids of the pending event, in order.
	Pending []string `json:"pending,omitempty"`
	// Tools is the names of the tools every model_request advertises, in
	// the order given.
	Tools *[]string `json:"tools,omitempty"`
	// ToolsInclude and ToolsExclude are names every model_request must
	// and must not advertise.
	ToolsInclude []string `json:"tools_include,omitempty"`
	ToolsExclude []string `json:"tools_exclude,omitempty"`
	// Requests are the expected model_request events, in order: the ids
	// of the tool results each sends (its messages), in order.
	Requests []RequestExpect `json:"requests,omitempty"`
	// History is matched partially against the final history (arrays by
	// length and element, objects by the keys listed).
	History json.RawMessage `json:"history,omitempty"`
	// HistoryAnyOf lists the histories the SRD allows where it leaves
	// the form open (a tool use's arguments persisted as the JSON value
	// or as the text received): the final history matches one of them,
	// each partially as History.
	HistoryAnyOf []json.RawMessage `json:"history_any_of,omitempty"`
	// Counts are side-effect counters: the number of lines each fixture
	// file (relative to the root; absent counts 0) holds after the case,
	// every crash and recovery included. A command that appends a line
	// per run proves that it ran exactly as often as stated.
	Counts map[string]int `json:"counts,omitempty"`
	// CrashCounts are the side-effect counters right after the turn's
	// crash (before any recovery): what ran before the crash point.
	CrashCounts map[string]int `json:"crash_counts,omitempty"`
	// TurnOrder, in a durability case, lists events of the first phase
	// (the turn that crashes) that must occur in this order.
	TurnOrder []EventMatch `json:"turn_order,omitempty"`
	// Refusable: the case's configuration holds a value the SRD gives no
	// meaning to, which an implementation may refuse (PROTOCOL.md §3.2),
	// so a turn answered with an error response passes; a turn that runs
	// is checked against the rest.
	Refusable bool `json:"refusable,omitempty"`
}

// ResultExpect is the expected tool_result of one call. Text fields are
// compared on the content as persisted; a carriage return the expectation
// does not contain is ignored in it (I-EXE-12).
type ResultExpect struct {
	IsError     *bool    `json:"is_error,omitempty"`
	Content     *string  `json:"content,omitempty"`
	AnyOf       []string `json:"any_of,omitempty"`
	Prefix      string   `json:"prefix,omitempty"`
	Contains    []string `json:"contains,omitempty"`
	NotContains []string `json:"not_contains,omitempty"`
	// MaxBytes bounds the content's byte length.
	MaxBytes *int `json:"max_bytes,omitempty"`
	// ErrorKind is checked when the implementation names the ToolError
	// (I-EXE-06); its absence is accepted.
	ErrorKind string `json:"error_kind,omitempty"`
	// AnyCount accepts any number of results for the id (I-EXE-19),
	// each matching; otherwise there is exactly one.
	AnyCount bool `json:"any_count,omitempty"`
	// Absent: the id has no result at all.
	Absent bool `json:"absent,omitempty"`
}

// StreamExpect is the concatenated output of one call per stream.
type StreamExpect struct {
	Stdout *TextExpect `json:"stdout,omitempty"`
	Stderr *TextExpect `json:"stderr,omitempty"`
}

// TextExpect checks a text.
type TextExpect struct {
	Equals *string `json:"equals,omitempty"`
	// AnyOf: the text equals one of these (every reading the text allows,
	// e.g. I-EXE-12's).
	AnyOf       []string `json:"any_of,omitempty"`
	Contains    []string `json:"contains,omitempty"`
	NotContains []string `json:"not_contains,omitempty"`
	// Bytes is the exact byte length.
	Bytes *int `json:"bytes,omitempty"`
}

// ConfirmExpect is one expected confirmation request.
type ConfirmExpect struct {
	Name      string `json:"name,omitempty"`
	RiskLevel string `json:"risk_level,omitempty"`
	// Summary checks the summary text; SummaryMaxChars bounds its length
	// in Unicode scalar values.
	Summary         *TextExpect `json:"summary,omitempty"`
	SummaryMaxChars *int        `json:"summary_max_chars,omitempty"`
}

// RequestExpect is one expected model_request.
type RequestExpect struct {
	// ResultIDs are the ids of the tool results the request sends, in
	// order.
	ResultIDs []string `json:"result_ids"`
}

// Answer returns the decision that answers a confirmation asking about
// asked: d, with the asked calls of ApproveIfAsked approved. scripted is
// false when the confirmation asks about those calls only, so that it
// takes no entry of Decide.
func (t *TurnSpec) Answer(d Decision, asked []string) (out Decision, scripted bool) {
	var extra []string
	for _, id := range asked {
		if slicesContains(t.ApproveIfAsked, id) {
			extra = append(extra, id)
		}
	}
	if len(extra) == 0 {
		return d, true
	}
	scripted = len(extra) < len(asked)
	if !scripted {
		return Decision{Decision: fcp.DecisionApproveSelected, IDs: extra}, false
	}
	switch d.Decision {
	case fcp.DecisionApproveAll:
		return d, true
	case fcp.DecisionApproveSelected:
		return Decision{Decision: d.Decision, IDs: append(append([]string{}, d.IDs...), extra...)}, true
	}
	return Decision{Decision: fcp.DecisionApproveSelected, IDs: extra}, true
}

// UnaskedConfirmations returns events without the requests of
// ApproveIfAsked calls, and without a confirmation left empty: what the
// expectations see.
func (t *TurnSpec) UnaskedConfirmations(events []fcp.TurnLine) []fcp.TurnLine {
	if len(t.ApproveIfAsked) == 0 {
		return events
	}
	out := make([]fcp.TurnLine, 0, len(events))
	for _, ev := range events {
		if ev.Event == fcp.EventConfirmation {
			var reqs []fcp.Confirmation
			for _, q := range ev.Requests {
				if !slicesContains(t.ApproveIfAsked, q.ID) {
					reqs = append(reqs, q)
				}
			}
			if len(reqs) == 0 {
				continue
			}
			ev.Requests = reqs
		}
		out = append(out, ev)
	}
	return out
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// BenignText is one hostile string of a model script and its benign twin.
type BenignText struct {
	Hostile string `json:"hostile"`
	Benign  string `json:"benign"`
}

// BenignModel returns the model script with every string value equal to a
// pair's Hostile replaced by its Benign, or, when marked, by
// Marked(Benign).
func (t *TurnSpec) BenignModel(marked bool) (json.RawMessage, error) {
	var v any
	if err := json.Unmarshal(t.Model, &v); err != nil {
		return nil, err
	}
	to := map[string]string{}
	for _, b := range t.Benign {
		to[b.Hostile] = b.Benign
		if marked {
			to[b.Hostile] = Marked(b.Benign)
		}
	}
	return json.Marshal(replaceStrings(v, to))
}

// replaceStrings replaces the string values of v found in to.
func replaceStrings(v any, to map[string]string) any {
	switch x := v.(type) {
	case string:
		if r, ok := to[x]; ok {
			return r
		}
	case []any:
		for i := range x {
			x[i] = replaceStrings(x[i], to)
		}
	case map[string]any:
		for k := range x {
			x[k] = replaceStrings(x[k], to)
		}
	}
	return v
}

// hasString reports whether s is a string value in v.
func hasString(v any, s string) bool {
	switch x := v.(type) {
	case string:
		return x == s
	case []any:
		for _, e := range x {
			if hasString(e, s) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if hasString(e, s) {
				return true
			}
		}
	}
	return false
}

// Marked is s with each ASCII letter and digit replaced by the next one
// (a by b, z by a, Z by A, 9 by 0): text of the same shape that differs
// wherever s has a letter or digit.
func Marked(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == 'z', r == 'Z':
			return r - 25
		case r == '9':
			return '0'
		case r >= 'a' && r < 'z', r >= 'A' && r < 'Z', r >= '0' && r < '9':
			return r + 1
		}
		return r
	}, s)
}

// checkBenign checks the benign pairs of a turn: each hostile string is a
// string of the model script, each benign one holds no control character
// but the line feed and no bidi character, and each of its non-blank lines
// has an ASCII letter or digit (so that the marked twin differs there).
func (t *TurnSpec) checkBenign() error {
	if len(t.Benign) == 0 {
		return nil
	}
	if len(t.Screens) == 0 {
		return errors.New("\"benign\" compares screens: the turn needs \"screens\"")
	}
	var v any
	if err := json.Unmarshal(t.Model, &v); err != nil {
		return err
	}
	for i, b := range t.Benign {
		if !hasString(v, b.Hostile) {
			return fmt.Errorf("benign[%d].hostile %q is not a string of the model script: copy it exactly", i, b.Hostile)
		}
		for _, r := range b.Benign {
			if (r < 0x20 && r != '\n') || (r >= 0x7f && r <= 0x9f) || r == 0x200e || r == 0x200f || r == 0x061c ||
				(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
				return fmt.Errorf("benign[%d].benign holds %U: the benign twin has no control (but the line feed) or bidi character", i, r)
			}
		}
		for _, line := range strings.Split(b.Benign, "\n") {
			if strings.TrimSpace(line) != "" && Marked(line) == line {
				return fmt.Errorf("benign[%d].benign line %q has no ASCII letter or digit: its rows cannot be told apart from the rest of the screen", i, line)
			}
		}
	}
	return nil
}
