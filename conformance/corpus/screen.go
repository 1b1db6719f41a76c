package corpus

// MomentEnd is the event name of a screen moment after the turn's final
// response.
const MomentEnd = "end"

// ScreenMoment is one moment of a turn at which the runner asks for the
// implementation's screen (the screen op, spec/PROTOCOL.md §11) and what
// the screen must show then (FR-TUI-01..04, TOOL_EXECUTOR_SRD.md §3.9).
type ScreenMoment struct {
	// Name labels the moment in failures and golden screens.
	Name string `json:"name"`
	// At is the event after which the runner asks, before it answers
	// the event ({"event":"end"}: after the final response).
	At EventMatch `json:"at"`
	// Nth picks the n-th event At matches (1-based; 0 is the first).
	Nth int `json:"nth,omitempty"`
	// Width and Height are the terminal's size in cells.
	Width  int `json:"width"`
	Height int `json:"height"`
	// Unsettled: the implementation may write more events before it
	// draws the screen (the moment is not a wait), so the screen is
	// checked but kept out of the golden screens.
	Unsettled bool `json:"unsettled,omitempty"`
	// Expect is what the screen must show.
	Expect ScreenExpect `json:"expect"`
}

// ScreenExpect is what a screen must show. Every screen is also checked
// for the rows' size and for control and bidi characters.
type ScreenExpect struct {
	// Prompt checks FR-TUI-01 on the confirmation that waits: each
	// request's tool name, summary and risk indicator, and the actions
	// approve all, deny all and select individual tools.
	Prompt bool `json:"prompt,omitempty"`
	// Banner checks FR-APR-06: run_command's warning banner is shown.
	Banner bool `json:"banner,omitempty"`
	// States are the calls' states FR-TUI-02 shows, by call id: pending,
	// executing, completed (✓ or ✗ by the result's is_error) or denied
	// (⊘ and the result's reason).
	States map[string]string `json:"states,omitempty"`
	// Output checks FR-TUI-03 on numbered output lines.
	Output *OutputExpect `json:"output,omitempty"`
	// Pending checks FR-TUI-04 on the pending event that waits: each
	// call's name and id, and guidance on submitting a result.
	Pending bool `json:"pending,omitempty"`
	// Contained are texts that, on any row that shows them, share the row
	// with another text (a hostile summary stays on its call's rows).
	Contained []Containment `json:"contained,omitempty"`
	// NoStyles are span classes no span of the screen may have.
	NoStyles []string `json:"no_styles,omitempty"`
}

// OutputExpect is the streamed output of a call that wrote the lines
// "line 1" .. "line N", the last one maybe without its newline (FR-TUI-03:
// at most the last 50, auto-scrolled).
type OutputExpect struct {
	// Lines is N, the number of lines streamed by the moment; 0 checks
	// only that at most 50 are shown.
	Lines int `json:"lines"`
	// Complete: all of the last min(N, 50) lines fit the screen's height
	// and must all be shown; otherwise only the last one must.
	Complete bool `json:"complete,omitempty"`
}

// Containment: every row holding Text also holds With.
type Containment struct {
	Text string `json:"text"`
	With string `json:"with"`
}
