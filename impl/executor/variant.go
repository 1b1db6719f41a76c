package executor

import (
	"github.com/forge-conform/forge-conform/impl/executor/sanitize"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// Variant switches the engine to another implementation's choices at the
// points where nothing outside the engine can express them: impl/forgelike
// sets Forge's (observed in Forge's own code: its executor) to check the suite's
// fidelity rule. Some are readings the SRD allows, two are deviations the
// suite must fail (their doc says so). The zero value is the reference.
type Variant struct {
	// ForgePlan is Forge's planner: apply_patch's max_patch_bytes is
	// checked before the tool lookup and the schema, and the approval
	// summary is computed only for a call that needs confirmation, after
	// the sandbox preflight and the mode (a summary error then
	// pre-resolves the call), sanitized before its cut to 200 characters.
	// FR-VAL-02 and FR-APR-06 leave both open (I-EXE-08).
	ForgePlan bool
	// KeepCR keeps carriage returns where chunks, results and summaries
	// are sanitized (I-EXE-12 allows it).
	KeepCR bool
	// ErrorText renders the content of an error result from its ToolError,
	// before sanitization; nil is the reference's rendering (I-EXE-07),
	// with FR-ERR-JSON-TOOL-01's JSON passthrough. A text that never passes
	// JSON through deviates from FR-ERR-JSON-TOOL-01.
	ErrorText func(*toolerr.Error) string
	// UntruncatedErrors leaves error results untruncated. FR-OUT-04
	// truncates every result, so this deviates (I-EXE-14).
	UntruncatedErrors bool
}

// sanitize is FR-OUT-02's sanitization of a whole string, as the variant
// wants it.
func (v Variant) sanitize(s string) string {
	if v.KeepCR {
		return sanitize.StringKeepingCR(s)
	}
	return sanitize.String(s)
}

// stream returns a sanitizing stream for one output stream of a call.
func (v Variant) stream() sanitize.Stream { return sanitize.Stream{KeepCR: v.KeepCR} }
