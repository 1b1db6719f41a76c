package check

// ToolChecks are the checks of one tool beyond each case's expectation: the
// engine runs them on every call of the tool without knowing its name.
type ToolChecks struct {
	// Invariants check every response of a call of the tool.
	Invariants func(Input) []Failure
	// Deterministic are the requirements a repeated call checks: the same
	// call on the same filesystem must give the same response. Empty: the
	// engine does not repeat the call (nor a call that timed out).
	Deterministic []string
}

// Tools returns the checks of every tool that has some, by tool name. Each
// tool's check file contributes one entry (a func returning its name and
// checks, listed here); the table is built at each call, so nothing is
// shared or mutable.
func Tools() map[string]ToolChecks {
	out := map[string]ToolChecks{}
	for _, register := range []func() (string, ToolChecks){
		listDirChecks,
		codexChecks,
		readFileChecks,
		searchFilesChecks,
		applyPatchChecks,
	} {
		name, c := register()
		out[name] = c
	}
	return out
}

// Ops returns the invariants of every response of an op other than call,
// whatever the tool, by op name. Each op's check file contributes one entry
// (summary.go: the approval summary's MUSTs).
func Ops() map[string]func(Input) []Failure {
	out := map[string]func(Input) []Failure{}
	for _, register := range []func() (string, func(Input) []Failure){
		summaryChecks,
	} {
		name, c := register()
		out[name] = c
	}
	return out
}
