// Package tui is the reference terminal UI of a turn (TOOL_EXECUTOR_SRD.md
// §3.9, FR-TUI-01..04): the approval prompt with each call's name, summary
// and risk indicator, run_command's warning banner and the approve all /
// deny all / select actions; each call's progress (pending, a spinner while
// executing, ✓ or ✗, ⊘ with its reason); the streamed output's last 50
// lines; the parse-only panel with its /tool guidance. Everything that did
// not originate in the TUI is sanitized before it is drawn (FR-OUT-02,
// NFR-SEC-05).
//
// State is built from the turn's events alone (spec/PROTOCOL.md §9.2), so
// the same state serves the Bubble Tea program (package tui/program, over
// the reference engine) and the screen op (TurnScreen, served by package
// fcpserver). Render draws a state at a fixed size as plain rows and
// classed spans (fcp.Screen); program.Styled colours them with Lip Gloss;
// Mask and Format write golden screens. This package links no terminal
// library: a process serving FCP/1 does not pay for one at start.
package tui
