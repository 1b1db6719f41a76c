package executor

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/forge-conform/forge-conform/impl/executor/truncate"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// errorText renders a ToolError as the content of an error ToolResult
// (I-EXE-07). verbatim is true for FR-ERR-JSON-TOOL-01's passthrough: an
// ExecutionFailed message that is one JSON object.
func errorText(te *toolerr.Error) (content string, verbatim bool) {
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

// fromError is the result of a call that failed with te.
func (r *turnRun) fromError(te *toolerr.Error) Result {
	content, verbatim := errorText(te)
	if r.e.Variant.ErrorText != nil {
		content, verbatim = r.e.Variant.ErrorText(te), false
	}
	res := Result{Content: content, IsError: true, Err: te}
	if verbatim {
		return res // FR-ERR-JSON-TOOL-02: no marker, no byte altered
	}
	return r.finish(res, true)
}

// panicked is the result of a call whose tool panicked (FR-EXE-04b): the
// payload sanitized (FR-EXE-04b-3).
func (r *turnRun) panicked(tool string, payload any) Result {
	msg := PanickedPrefix + r.e.Variant.sanitize(fmt.Sprint(payload))
	return r.finish(Result{Content: msg, IsError: true,
		Err: &toolerr.Error{Kind: toolerr.ExecutionFailed, Tool: tool, Message: msg}}, true)
}

// finish sanitizes a result (FR-OUT-02) and, when allowed, truncates it to
// effective_max (FR-OUT-04, I-EXE-12, I-EXE-14).
func (r *turnRun) finish(res Result, allowTruncation bool) Result {
	res.Content = r.e.Variant.sanitize(res.Content)
	allowTruncation = allowTruncation && !(res.IsError && r.e.Variant.UntruncatedErrors)
	switch {
	case allowTruncation && r.e.Defects.MarkerOutsideLimit:
		if max := r.env.effectiveMax(); int64(len(res.Content)) > max {
			res.Content = res.Content[:max] + "\n\n... [output truncated]"
		}
	case allowTruncation:
		res.Content = truncate.Output(res.Content, r.env.effectiveMax())
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
