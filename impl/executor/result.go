package executor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// ReferenceText renders a ToolError as the content of an error ToolResult
// (I-EXE-07). verbatim is true for FR-ERR-JSON-TOOL-01's passthrough: an
// ExecutionFailed message that is one JSON object.
func ReferenceText(te *toolerr.Error) (content string, verbatim bool) {
	switch te.Kind {
	case toolerr.ExecutionFailed:
		if isJSONObject(te.Message) {
			return te.Message, true
		}
		return fmt.Sprintf(toolFailedPrefixFormat, te.Tool) + te.Message, false
	case toolerr.BadArgs:
		return "Bad args: " + te.Message, false
	case toolerr.Timeout:
		return te.Message, false
	case toolerr.Cancelled:
		return CancelledByUser, false
	case toolerr.UnknownTool:
		return "Unknown tool: " + te.Tool, false
	case toolerr.DuplicateToolCallID:
		return te.Message, false
	case toolerr.PatchFailed:
		return fmt.Sprintf("Patch failed for %s: %s", te.File, te.Message), false
	case toolerr.StaleFile:
		return fmt.Sprintf("Stale file %s: %s", te.File, te.Message), false
	case toolerr.SandboxViolation:
		if te.Denial != nil && te.Denial.Reason == toolerr.Disabled {
			return DisabledByPolicy, false
		}
		return "Sandbox violation: " + te.Message, false
	}
	if te.Message == "" {
		return string(te.Kind), false
	}
	return string(te.Kind) + ": " + te.Message, false
}

// isJSONObject reports whether s is exactly one JSON object, surrounding
// whitespace allowed (FR-ERR-JSON-TOOL-01, I-EXE-13).
func isJSONObject(s string) bool {
	t := bytes.TrimSpace([]byte(s))
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	var v map[string]json.RawMessage
	if dec.Decode(&v) != nil {
		return false
	}
	_, err := dec.Token()
	return err != nil // only EOF may follow
}

// ForgeText renders a ToolError with Forge's words where the SRD quotes
// none (Forge's own code, read): a timeout counts whole seconds, a denial
// says its reason (`Tool '<t>' is denylisted`, `Path outside sandbox
// (attempted: …, resolved: …)`, …) and a limit names it only. The SRD's
// quoted texts and FR-ERR-JSON-TOOL-01's JSON passthrough are
// ReferenceText's (I-EXE-07).
func ForgeText(te *toolerr.Error) (content string, verbatim bool) {
	switch te.Kind {
	case toolerr.Timeout:
		if m := timedOut.FindStringSubmatch(te.Message); m != nil {
			secs, _ := strconv.ParseFloat(m[2], 64)
			return fmt.Sprintf("Tool '%s' timed out after %ds", m[1], int64(math.Floor(secs))), false
		}
	case toolerr.DuplicateTool:
		return "Duplicate tool: " + te.Tool, false
	case toolerr.SandboxViolation:
		if d := te.Denial; d != nil {
			switch d.Reason {
			case toolerr.Denylisted:
				return fmt.Sprintf("Tool '%s' is denylisted", d.Tool), false
			case toolerr.PathOutsideSandbox:
				return fmt.Sprintf("Path outside sandbox (attempted: %s, resolved: %s)", d.Attempted, d.Resolved), false
			case toolerr.DeniedPatternMatched:
				return fmt.Sprintf("Path '%s' matched denied pattern '%s'", d.Attempted, d.Pattern), false
			case toolerr.LimitsExceeded:
				for _, l := range forgeLimits {
					if strings.HasPrefix(d.Message, l) {
						return l, false
					}
				}
				return d.Message, false
			}
		}
	}
	return ReferenceText(te)
}

// forgeLimits are Forge's texts of the LimitsExceeded denials, by the
// reference's prefix.
var forgeLimits = []string{"Exceeded max tool calls per batch", "Tool arguments too large", "Patch exceeds max_patch_bytes"}

var timedOut = regexp.MustCompile(`^Tool '(.*)' timed out after ([0-9.]+)s$`)

// fromError is the result of a call that failed with te.
func (r *turnRun) fromError(te *toolerr.Error) Result {
	content, verbatim := r.e.Options.resultText(te)
	res := Result{Content: content, IsError: true, Err: te}
	if verbatim {
		return res // FR-ERR-JSON-TOOL-02: no marker, no byte altered
	}
	return r.finish(res, true)
}

// panicked is the result of a call whose tool panicked (FR-EXE-04b): the
// payload sanitized (FR-EXE-04b-3).
func (r *turnRun) panicked(tool string, payload any) Result {
	msg := r.e.Options.panicText(tool, payload)
	return r.finish(Result{Content: msg, IsError: true,
		Err: &toolerr.Error{Kind: toolerr.ExecutionFailed, Tool: tool, Message: msg}}, true)
}

// finish sanitizes a result (FR-OUT-02) and, when allowed, truncates it to
// effective_max (FR-OUT-04, I-EXE-12, I-EXE-14).
func (r *turnRun) finish(res Result, allowTruncation bool) Result {
	res.Content = r.e.Options.sanitizeResult(res.Content)
	if allowTruncation {
		res.Content = r.e.Options.truncate(res, r.env.effectiveMax())
	}
	return res
}

// argsSize is the size of a call's arguments as FR-LIM-03 measures it:
// compact JSON, or the raw text when it is not JSON (I-EXE-09).
func argsSize(raw []byte) int64 {
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil {
		return int64(b.Len())
	}
	return int64(len(raw))
}
