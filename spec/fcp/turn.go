package fcp

import "encoding/json"

// The ops of the turn (spec/PROTOCOL.md §9): one user turn through the
// implementation's real tool loop, with the runner playing the model and the
// user. Decide, Cancel and ToolResult are sent while a turn runs and are
// answered at once, between the turn's events.
const (
	OpTurn       = "turn"
	OpDecide     = "decide"
	OpCancel     = "cancel"
	OpToolResult = "tool_result"
)

// TurnOps lists the turn ops, as hello declares them.
func TurnOps() []string { return []string{OpTurn, OpDecide, OpCancel, OpToolResult} }

// Schemas of the turn's messages.
const (
	// SchemaTurnRequest validates the requests turn, decide, cancel and
	// tool_result, and hello's test_tools member.
	SchemaTurnRequest = "turn-request.json"
	// SchemaTurnOutput validates every line a turn writes: an event or the
	// final response.
	SchemaTurnOutput = "turn-output.json"
)

// TurnRequest is a request of one of the turn ops. Fields unused by an op
// stay empty. The common envelope (fcp, seq, op, case) is Request's.
type TurnRequest struct {
	FCP  int    `json:"fcp"`
	Seq  int64  `json:"seq"`
	Op   string `json:"op"`
	Case string `json:"case,omitempty"`

	// turn
	Ctx    *Ctx            `json:"ctx,omitempty"`
	Config json.RawMessage `json:"config,omitempty"`
	// User is the user's message that starts the turn.
	User string `json:"user,omitempty"`
	// Model is the scripted model: its responses, in order.
	Model []ModelResponse `json:"model,omitempty"`
	// Crash, in turn and recover, asks for a crash at one point (§10.2).
	Crash *CrashPoint `json:"crash,omitempty"`

	// decide, cancel, tool_result and screen: the seq of the running turn.
	Turn *int64 `json:"turn,omitempty"`
	// decide
	Decision string   `json:"decision,omitempty"`
	IDs      []string `json:"ids,omitempty"`
	// tool_result
	ID      string `json:"id,omitempty"`
	Content string `json:"content,omitempty"`
	IsError bool   `json:"is_error,omitempty"`
	// screen (§11): the terminal's size in cells.
	Width  int `json:"width,omitempty"`
	Height int `json:"height,omitempty"`
}

// The decisions of a decide request (FR-APR-03's ApprovalDecision).
const (
	DecisionApproveAll      = "approve_all"
	DecisionDenyAll         = "deny_all"
	DecisionApproveSelected = "approve_selected"
)

// ModelResponse is one scripted assistant response: its text and its tool
// calls, in the order the model emitted them.
type ModelResponse struct {
	Text      string      `json:"text,omitempty"`
	ToolCalls []ModelCall `json:"tool_calls,omitempty"`
}

// ModelCall is one tool call of a scripted response. Exactly one of Args
// (any JSON value) and RawArgs (the argument text as a provider streamed
// it, possibly not JSON) is set.
type ModelCall struct {
	ID      string          `json:"id"`
	Name    string          `json:"name"`
	Args    json.RawMessage `json:"args,omitempty"`
	RawArgs *string         `json:"raw_args,omitempty"`
}

// ArgsText returns the call's argument text: RawArgs when set, else Args.
func (c ModelCall) ArgsText() string {
	if c.RawArgs != nil {
		return *c.RawArgs
	}
	return string(c.Args)
}

// The events of a turn, in TurnLine.Event.
const (
	EventModelRequest = "model_request"
	EventMessage      = "message"
	EventConfirmation = "confirmation"
	EventPending      = "pending"
	EventStarted      = "started"
	EventStdout       = "stdout"
	EventStderr       = "stderr"
	EventCompleted    = "completed"
)

// The end states of a turn, in TurnLine.End.
const (
	// EndDone: the last model response had no tool calls (or, in parse-only
	// and disabled mode, the turn stopped without resuming).
	EndDone = "done"
	// EndScriptEnded: the engine asked the model for another response and
	// the script had none left.
	EndScriptEnded = "script_ended"
	// EndCancelled: the user cancelled; nothing resumed (FR-EXE-04).
	EndCancelled = "cancelled"
)

// TurnLine is one line a turn writes: an event (Event set) or the final
// response (OK set). Both carry the turn's seq.
type TurnLine struct {
	Seq   int64  `json:"seq"`
	Event string `json:"event,omitempty"`

	// model_request
	// Tools and Messages are pointers so that an empty list is written as
	// [] (disabled mode advertises no tool).
	Iteration *int               `json:"iteration,omitempty"`
	Tools     *[]ToolDescription `json:"tools,omitempty"`
	Messages  *[]Message         `json:"messages,omitempty"`
	// message
	Message *Message `json:"message,omitempty"`
	// confirmation
	Requests []Confirmation `json:"requests,omitempty"`
	// pending
	Calls []PendingCall `json:"calls,omitempty"`
	// started, stdout, stderr, completed
	ID    string `json:"id,omitempty"`
	Name  string `json:"name,omitempty"`
	Chunk string `json:"chunk,omitempty"`
	// journaled: the calls of a batch (IDs) or one result (ID)
	IDs []string `json:"ids,omitempty"`
	// recovered: the interrupted batch (nil when none), whether the user
	// is asked, and the choices offered.
	Batch   *RecoveredBatch `json:"batch,omitempty"`
	Prompt  *bool           `json:"prompt,omitempty"`
	Choices []string        `json:"choices,omitempty"`

	// the final response
	OK      *bool     `json:"ok,omitempty"`
	End     string    `json:"end,omitempty"`
	History []Message `json:"history,omitempty"`
	Error   *Error    `json:"error,omitempty"`
}

// ToolDescription is one tool the engine advertises to the model.
type ToolDescription struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// The message types of a conversation history.
const (
	MessageUser       = "user"
	MessageAssistant  = "assistant"
	MessageToolUse    = "tool_use"
	MessageToolResult = "tool_result"
)

// Message is one message of the conversation history.
type Message struct {
	Type string `json:"type"`
	// user, assistant
	Text string `json:"text,omitempty"`
	// tool_use, tool_result
	ID string `json:"id,omitempty"`
	// tool_use
	Name    string          `json:"name,omitempty"`
	Args    json.RawMessage `json:"args,omitempty"`
	RawArgs *string         `json:"raw_args,omitempty"`
	// tool_result
	Content *string `json:"content,omitempty"`
	IsError *bool   `json:"is_error,omitempty"`
	// Error is the ToolError a result came from, when the implementation
	// can name it; informational (ToolResult itself carries only content
	// and is_error).
	Error *Error `json:"error,omitempty"`
}

// Confirmation is one ConfirmationRequest (FR-APR-03).
type Confirmation struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Summary   string `json:"summary"`
	RiskLevel string `json:"risk_level"`
}

// PendingCall is a call surfaced in parse-only mode (FR-MODE-02, FR-TUI-04).
type PendingCall struct {
	ID      string          `json:"id"`
	Name    string          `json:"name"`
	Args    json.RawMessage `json:"args,omitempty"`
	RawArgs *string         `json:"raw_args,omitempty"`
}

// Int returns a pointer to n, for TurnLine.Iteration.
func Int(n int) *int { return &n }
