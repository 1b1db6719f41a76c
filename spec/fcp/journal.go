package fcp

// Durability (spec/PROTOCOL.md §10): the journal named by ctx.journal_dir,
// crash points, and the recover op, which a fresh process answers from the
// journal of one that was killed.
const (
	// OpRecover reads the journal of ctx.journal_dir back after a crash,
	// asks the user when a batch is incomplete (FR-RES-05) and resumes the
	// interrupted turn. It runs like a turn: events, then one final response.
	OpRecover = "recover"
)

// The events of §10.
const (
	// EventJournaled: a turn's calls (IDs) or a call's result (ID) are
	// durably in the journal.
	EventJournaled = "journaled"
	// EventRecovered: what recover found (Batch, Prompt, Choices).
	EventRecovered = "recovered"
)

// EndNothing ends a recover that found no interrupted batch.
const EndNothing = "nothing"

// The decisions of a recovery prompt (FR-RES-05), sent with decide.
const (
	// DecisionResume resumes with the partial results as they are.
	DecisionResume = "resume"
	// DecisionDiscard marks every result of the batch failed; the calls
	// stay visible.
	DecisionDiscard = "discard"
)

// The crash points of CrashPoint.Point.
const (
	// CrashCallsReceived: batch Batch's calls are journaled (FR-RES-04a)
	// and nothing of the response is persisted to history yet (IT-JRN-01).
	CrashCallsReceived = "calls_received"
	// CrashResultJournaled: call ID's result is journaled, before the next
	// call starts (FR-RES-04b).
	CrashResultJournaled = "result_journaled"
	// CrashResolved (recover only): the user's recovery choice is
	// journaled, before the model is asked again.
	CrashResolved = "resolved"
	// CrashTextPersisted: the assistant text of batch Batch's response is
	// persisted to history, before its first tool use is (FR-RES-01's
	// step 1 done, step 2 not begun).
	CrashTextPersisted = "text_persisted"
	// CrashToolUsePersisted: the tool use of call ID is persisted to
	// history, before the next message is persisted or any tool starts.
	CrashToolUsePersisted = "tool_use_persisted"
)

// BaseCrashPoints are the crash points every implementation that declares
// recover honours; hello's crash_points lists the others it honours
// (ExtraCrashPoints).
func BaseCrashPoints() []string {
	return []string{CrashCallsReceived, CrashResultJournaled, CrashResolved}
}

// ExtraCrashPoints are the crash points an implementation honours only when
// hello's crash_points names them: they came to PROTOCOL.md after the base
// three, so an implementation written before them is not failed for them.
func ExtraCrashPoints() []string {
	return []string{CrashTextPersisted, CrashToolUsePersisted}
}

// CrashPoint asks the implementation to kill itself with SIGKILL at exactly
// one point of a turn or recover (§10.2).
type CrashPoint struct {
	Point string `json:"point"`
	// Batch, for calls_received and text_persisted: the batch of the turn
	// (1 for the first; default 1).
	Batch int `json:"batch,omitempty"`
	// ID, for result_journaled and tool_use_persisted: the call whose
	// result or tool use.
	ID string `json:"id,omitempty"`
}

// RecoveredBatch is the interrupted batch recover found: the assistant
// text, the calls in the model's order, and the journaled results in call
// order.
type RecoveredBatch struct {
	Text    string        `json:"text,omitempty"`
	Calls   []PendingCall `json:"calls"`
	Results []Message     `json:"results"`
}
