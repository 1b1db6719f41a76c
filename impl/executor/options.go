package executor

import (
	"context"
	"fmt"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/executor/policy"
	"github.com/forge-conform/forge-conform/impl/executor/sanitize"
	"github.com/forge-conform/forge-conform/impl/executor/truncate"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// Options are the engine's choices where TOOL_EXECUTOR_SRD.md leaves room
// (each a reading of spec/INTERPRETATIONS.md, named in impl/readings) and
// the parts the engine is built from: its planner's steps, its result
// texts, its sanitizer and truncation, its loop policy and its handling of
// a batch in each mode. A nil part is the reference's; the zero value is
// the reference engine. Other implementations' choices (impl/forgelike's)
// and the suite's mutants (impl/mutants) are built by giving the engine
// other parts, never by switches inside it.
type Options struct {
	// Sanitize is FR-OUT-02's sanitization of chunks, results and the
	// summaries the planner sanitizes: removing or neutralizing control
	// sequences, keeping carriage returns or not (I-EXE-12).
	Sanitize sanitize.Options
	// PromptUnlisted makes prompt mode ask for confirmation of every call
	// of a tool that is not allowlisted, read-only tools included
	// (FR-APR-04d requires it for side-effecting tools and forbids it for
	// none; I-EXE-23).
	PromptUnlisted bool
	// RejectDuplicates rejects every call of a batch whose id occurs more
	// than once, the first included; the reference runs the first and
	// rejects the later ones (FR-VAL-02a against NFR-REL-01, I-EXE-19).
	RejectDuplicates bool
	// CancelResolved gives the calls a cancel reaches "Cancelled by user"
	// even when they were pre-resolved or denied; the reference keeps their
	// own error (FR-EXE-04 allows both, I-EXE-16).
	CancelResolved bool

	// Plan are the planner's steps, in order (FR-VAL-02, FR-APR-05); nil
	// is DefaultPlan(). ForgePlan() is Forge's order (I-EXE-08).
	Plan []PlanStep
	// ResultText renders the content of an error result from its
	// ToolError, before sanitization; verbatim content is neither
	// sanitized nor truncated (FR-ERR-JSON-TOOL-02). nil is ReferenceText.
	ResultText func(*toolerr.Error) (content string, verbatim bool)
	// Truncate cuts a result's sanitized content to max bytes (FR-OUT-04);
	// nil is TruncateAll: truncate.Output on every result.
	Truncate func(res Result, max int64) string
	// Stream returns the sanitizer of one output stream of a call; nil is
	// Sanitize's stream, which keeps its state across chunks.
	Stream func() Sanitizer
	// Results sanitizes a result's content (FR-OUT-02) before its
	// truncation; nil is Sanitize.String.
	Results func(content string) string
	// Panicked renders the content of the error result of a call whose
	// tool panicked with payload (FR-EXE-04b), before the result's own
	// sanitization; nil is PanickedPrefix and the payload sanitized
	// (FR-EXE-04b-3).
	Panicked func(tool string, payload any) string
	// Policy derives the loop's configuration (mode, limits, approval
	// policy) from the turn's configuration; nil is policy.Load.
	Policy func(config.Config) (policy.Loop, error)
	// Modes handle the batches of each tools mode; a nil field is the
	// reference's.
	Modes Modes
	// Summarize redacts an approval summary's secrets and cuts it to 200
	// characters with an ellipsis (FR-APR-01, FR-APR-06), for the
	// confirmations and the summary op; nil is tool.Summarize.
	// tool.SummarizeThreeDots ends a cut with "..." (I-APR-02).
	Summarize func(string) string
	// Decide takes the user's decision on a batch's confirmation
	// requests (FR-APR-03's ApprovalDecision) once the confirmation event
	// is out; nil asks ui (UI.Confirm).
	Decide func(ctx context.Context, ui UI, reqs []fcp.Confirmation) (Decision, error)
}

// Summary is s as an approval summary: Summarize's.
func (o *Options) Summary(s string) string {
	if o.Summarize == nil {
		return tool.Summarize(s)
	}
	return o.Summarize(s)
}

// decide is the Decide part's decision on reqs.
func (o *Options) decide(ctx context.Context, ui UI, reqs []fcp.Confirmation) (Decision, error) {
	if o.Decide == nil {
		return ui.Confirm(ctx, reqs)
	}
	return o.Decide(ctx, ui, reqs)
}

// sanitizeResult is the Results part's sanitization of a result's
// content.
func (o *Options) sanitizeResult(content string) string {
	if o.Results == nil {
		return o.Sanitize.String(content)
	}
	return o.Results(content)
}

// panicText is the Panicked part's content of a panicked call's result.
func (o *Options) panicText(tool string, payload any) string {
	if o.Panicked == nil {
		return PanickedPrefix + o.Sanitize.String(fmt.Sprint(payload))
	}
	return o.Panicked(tool, payload)
}

// Sanitizer sanitizes the chunks of one output stream (FR-OUT-02):
// sanitize.Stream is the reference's.
type Sanitizer interface {
	// Write returns the sanitized text of the next chunk.
	Write(chunk string) string
	// Flush returns what the stream still holds at its end.
	Flush() string
}

// TruncateAll truncates every result to max (FR-OUT-04 applies to every
// result, I-EXE-14).
func TruncateAll(res Result, max int64) string { return truncate.Output(res.Content, max) }

func (o *Options) plan() []PlanStep {
	if o.Plan == nil {
		return DefaultPlan()
	}
	return o.Plan
}

func (o *Options) resultText(te *toolerr.Error) (string, bool) {
	if o.ResultText == nil {
		return ReferenceText(te)
	}
	return o.ResultText(te)
}

func (o *Options) truncate(res Result, max int64) string {
	if o.Truncate == nil {
		return TruncateAll(res, max)
	}
	return o.Truncate(res, max)
}

func (o *Options) stream() Sanitizer {
	if o.Stream == nil {
		return o.Sanitize.Stream()
	}
	return o.Stream()
}

func (o *Options) loadPolicy(cfg config.Config) (policy.Loop, error) {
	if o.Policy == nil {
		return policy.Load(cfg)
	}
	return o.Policy(cfg)
}
