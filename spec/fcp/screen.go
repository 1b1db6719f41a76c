package fcp

// The screen op (spec/PROTOCOL.md §11): the implementation's current TUI
// screen of a turn at a given size, as plain text rows, with the cells that
// carry a meaning beyond their text (the risk colour, the spinner, a timing)
// reported as classed spans.
const OpScreen = "screen"

// Schemas of the screen op.
const (
	// SchemaScreenRequest validates the screen request.
	SchemaScreenRequest = "screen-request.json"
	// SchemaScreenResponse validates its response.
	SchemaScreenResponse = "screen-response.json"
)

// Limits of a screen request's size, in cells.
const (
	MinScreenWidth  = 40
	MaxScreenWidth  = 400
	MinScreenHeight = 10
	MaxScreenHeight = 200
)

// ScreenRequest asks for the screen of a turn: the running one, or the
// last one after its final response.
type ScreenRequest struct {
	FCP    int    `json:"fcp"`
	Seq    int64  `json:"seq"`
	Op     string `json:"op"`
	Case   string `json:"case,omitempty"`
	Turn   *int64 `json:"turn,omitempty"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
}

// Screen is what a user would see: exactly Height rows of at most Width
// cells each, without trailing spaces or any control character, and the
// classed spans.
type Screen struct {
	Width  int           `json:"width"`
	Height int           `json:"height"`
	Rows   []string      `json:"rows"`
	Styles []ScreenStyle `json:"styles"`
}

// ScreenStyle marks Len cells of row Row from column Col (both 0-based,
// counted in terminal cells) with Class.
type ScreenStyle struct {
	Row   int    `json:"row"`
	Col   int    `json:"col"`
	Len   int    `json:"len"`
	Class string `json:"class"`
}

// The classes of screen spans. An implementation reports the ones it
// renders; the checks read the risk classes, the warning and the masks.
const (
	// ClassRiskLow, ClassRiskMedium and ClassRiskHigh mark a call's risk
	// indicator (FR-TUI-01) in its risk's colour.
	ClassRiskLow    = "risk.low"
	ClassRiskMedium = "risk.medium"
	ClassRiskHigh   = "risk.high"
	// ClassWarning marks a warning banner (run_command's, FR-APR-06).
	ClassWarning = "warning"
	// ClassSpinner marks a spinner frame; ClassTiming an elapsed time.
	// Both change between two renders of the same state and are masked
	// by golden comparisons.
	ClassSpinner = "spinner"
	ClassTiming  = "timing"
	// ClassOK, ClassError and ClassDenied mark a call's state mark
	// (✓, ✗, ⊘).
	ClassOK     = "ok"
	ClassError  = "error"
	ClassDenied = "denied"
	// ClassSelected marks the prompt's cursor row.
	ClassSelected = "selected"
	// ClassOutput marks the streamed output region's lines.
	ClassOutput = "output"
)

// Risk class for a risk level (Low, Medium, High; anything else is "").
func RiskClass(level string) string {
	switch level {
	case "Low":
		return ClassRiskLow
	case "Medium":
		return ClassRiskMedium
	case "High":
		return ClassRiskHigh
	}
	return ""
}
