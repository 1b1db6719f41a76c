package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/executor/sanitize"
	"github.com/forge-conform/forge-conform/impl/readings"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
	"github.com/forge-conform/forge-conform/impl/tui"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// Name is the emulation's name in hello (not the reference's, so goldens
// are notes where the SRD leaves the bytes open).
const Name = "forgelike (test-only emulation of Forge, as observed in its own code)"

// handler serves the reference taking every reading Forge's own code takes
// (readings.Forge(): its planner order, texts, paths, cache, LP1 choices,
// file tool outputs, policy refuse, ...), plus Forge's deviations from the
// SRD text: its LP1 parser (forgeTool), its sandbox's missing-parent
// resolution, read_file requiring approval, no JSON error passthrough,
// error results never truncated, LP1 parse errors pre-resolved as BadArgs
// in a turn, and summaries redacting only "sk-" keys (forgeDeviations).
type handler struct {
	ref *reference.Reference
}

func newHandler() (*handler, error) {
	var opts reference.Options
	if err := readings.Apply(&opts, readings.Forge()...); err != nil {
		return nil, err
	}
	forgeDeviations(&opts)
	ref, err := reference.New(opts)
	if err != nil {
		return nil, err
	}
	return &handler{ref: ref}, nil
}

// forgeDeviations adds to opts, after the readings, what Forge's own code
// does against the SRD text (each fails the cases of its IDs).
func forgeDeviations(opts *reference.Options) {
	// Forge's tools inside, the readings' wrappers (the sandbox's
	// readings) around them.
	readingsWrap := opts.WrapTool
	opts.WrapTool = func(t tool.Tool) tool.Tool {
		t = forgeTool(t)
		if readingsWrap != nil {
			t = readingsWrap(t)
		}
		return t
	}
	// FR-ERR-JSON-TOOL-01: ExecutionFailed is always "<tool> failed:
	// <message>", never the tool's JSON.
	opts.Executor.ResultText = func(te *toolerr.Error) (string, bool) { return forgeErrorText(te), false }
	// FR-OUT-04: error results are never truncated.
	opts.Executor.Truncate = func(res executor.Result, max int64) string {
		if res.IsError {
			return res.Content
		}
		return executor.TruncateAll(res, max)
	}
	// LP1 failures MUST be PatchFailed: Forge's planner parses a patch for
	// its sandbox preflight and pre-resolves a parse error as BadArgs.
	plan := slices.Clone(opts.Executor.Plan)
	if plan == nil {
		plan = executor.ForgePlan()
	}
	i := slices.IndexFunc(plan, func(s executor.PlanStep) bool { return s.Name == executor.StepPolicy })
	opts.Executor.Plan = slices.Insert(plan, max(i, 0), executor.PlanStep{Name: "forge-lp1-preflight", Check: lp1Preflight})
	// FR-APR-01: only "sk-" keys are redacted from approval summaries.
	opts.Executor.Summarize = forgeSummary
}

// lp1Preflight pre-resolves an apply_patch call whose patch Forge's parser
// rejects as BadArgs, before the tool runs.
func lp1Preflight(s *executor.Planning) bool {
	if s.Call.Name != "apply_patch" {
		return false
	}
	var a struct {
		Patch string `json:"patch"`
	}
	if json.Unmarshal(s.Args, &a) != nil {
		return false
	}
	if _, err := (forgeLP1{}).Parse(a.Patch); err != nil {
		s.PreResolve(toolerr.New(toolerr.BadArgs, "%v", err))
		return true
	}
	return false
}

// skKey is the one secret shape Forge's summary redaction knows.
var skKey = regexp.MustCompile(`sk-[A-Za-z0-9_-]+`)

// forgeSummary is Forge's redact_summary and cut: "sk-" keys only, then
// at most 200 characters with an ellipsis.
func forgeSummary(s string) string {
	return tool.Truncate(skKey.ReplaceAllLiteralString(s, tool.Redacted), tool.MaxSummaryChars)
}

// Hello declares the reference's tools and ops except recover: nothing
// observed of Forge's own code covers a journal, so the durability cases skip.
func (h *handler) Hello() fcp.Response { return h.hello(h.ref.Hello()) }

// HelloFor registers the test tools when asked (PROTOCOL.md §9.5).
func (h *handler) HelloFor(req fcp.Request) fcp.Response { return h.hello(h.ref.HelloFor(req)) }

func (h *handler) hello(r fcp.Response) fcp.Response {
	r.Implementation = &fcp.Implementation{Name: Name, Version: reference.Version, Language: "go"}
	r.Ops = slices.DeleteFunc(slices.Clone(r.Ops), func(op string) bool { return op == fcp.OpRecover })
	return r
}

// Handle answers every op but the turn's: the summary op as Forge's
// planner computes a summary, the rest as the reference (with Forge's
// tools).
func (h *handler) Handle(ctx context.Context, req fcp.Request) fcp.Response {
	if req.Op == fcp.OpSummary && req.Call != nil {
		return h.summary(req)
	}
	return h.ref.Handle(ctx, req)
}

// summary is the summary op with Forge's summary: sanitized (keeping \r),
// then redacted and cut to 200 characters.
func (h *handler) summary(req fcp.Request) fcp.Response {
	reg := h.ref.Registry()
	fail := func(err error) fcp.Response { r := reference.Failure(err); r.Seq = req.Seq; return r }
	t, err := reg.Lookup(req.Call.Name)
	if err != nil {
		return fail(err)
	}
	if err := reg.Validate(req.Call.Name, req.Call.Args); err != nil {
		return fail(err)
	}
	conf, err := config.Parse(req.Config)
	if err != nil {
		return fail(toolerr.New(toolerr.ExecutionFailed, "invalid config: %v", err))
	}
	s, err := t.ApprovalSummary(req.Call.Args, conf)
	if err != nil {
		return fail(err)
	}
	s = forgeSummary(sanitize.StringKeepingCR(s))
	return fcp.Response{Seq: req.Seq, OK: fcp.Bool(true), Summary: &s, RiskLevel: string(t.RiskLevel())}
}

// Turn runs a turn with the reference engine in Forge's variant.
func (h *handler) Turn(ctx context.Context, req fcp.TurnRequest, ui executor.UI) (executor.Outcome, error) {
	return h.ref.Turn(ctx, req, ui)
}

// TurnScreen is the reference TUI's screen: the one UI fact observed in
// Forge's own code (the last 50 output lines are kept) is the reference's too.
func (h *handler) TurnScreen(seq int64) *tui.TurnScreen { return h.ref.TurnScreen(seq) }

// Forge's texts of the LimitsExceeded denials, by the reference's prefix.
var forgeLimits = []string{"Exceeded max tool calls per batch", "Tool arguments too large", "Patch exceeds max_patch_bytes"}

var timedOut = regexp.MustCompile(`^Tool '(.*)' timed out after ([0-9.]+)s$`)

// forgeErrorText is Forge's tool_error_result: the content of an error
// result. ExecutionFailed is always "<tool> failed: <message>" (no JSON
// passthrough, FR-ERR-JSON-TOOL-01's deviation); a timeout counts whole
// seconds; a denial is its DenialReason's text.
func forgeErrorText(te *toolerr.Error) string {
	switch te.Kind {
	case toolerr.BadArgs:
		return "Bad args: " + te.Message
	case toolerr.Timeout:
		if m := timedOut.FindStringSubmatch(te.Message); m != nil {
			secs, _ := strconv.ParseFloat(m[2], 64)
			return fmt.Sprintf("Tool '%s' timed out after %ds", m[1], int64(math.Floor(secs)))
		}
		return te.Message
	case toolerr.ExecutionFailed:
		return fmt.Sprintf("%s failed: %s", te.Tool, te.Message)
	case toolerr.Cancelled:
		return executor.CancelledByUser
	case toolerr.UnknownTool:
		return "Unknown tool: " + te.Tool
	case toolerr.DuplicateTool:
		return "Duplicate tool: " + te.Tool
	case toolerr.DuplicateToolCallID:
		return te.Message
	case toolerr.PatchFailed:
		return fmt.Sprintf("Patch failed for %s: %s", te.File, te.Message)
	case toolerr.StaleFile:
		return fmt.Sprintf("Stale file %s: %s", te.File, te.Message)
	case toolerr.SandboxViolation:
		return forgeDenialText(te)
	}
	return string(te.Kind) + ": " + te.Message
}

// forgeDenialText is Forge's DenialReason display.
func forgeDenialText(te *toolerr.Error) string {
	d := te.Denial
	if d == nil {
		return te.Message
	}
	switch d.Reason {
	case toolerr.Denylisted:
		return fmt.Sprintf("Tool '%s' is denylisted", d.Tool)
	case toolerr.Disabled:
		return executor.DisabledByPolicy
	case toolerr.PathOutsideSandbox:
		return fmt.Sprintf("Path outside sandbox (attempted: %s, resolved: %s)", d.Attempted, d.Resolved)
	case toolerr.DeniedPatternMatched:
		return fmt.Sprintf("Path '%s' matched denied pattern '%s'", d.Attempted, d.Pattern)
	case toolerr.LimitsExceeded:
		for _, l := range forgeLimits {
			if strings.HasPrefix(d.Message, l) {
				return l
			}
		}
		return d.Message
	}
	return te.Message
}
