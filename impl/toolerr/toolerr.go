// Package toolerr defines the executor SRD's ToolError and DenialReason
// (TOOL_EXECUTOR_SRD.md §4.1, §4.2) as plain Go values.
//
// Every reference tool returns a *Error; the FCP server and the in-process
// runner turn it into the protocol's error object without losing a field.
package toolerr

import "fmt"

// Kind names a ToolError variant exactly as FCP/1 spells it.
type Kind string

// The ToolError variants of NFR-ERR-01.
const (
	BadArgs             Kind = "BadArgs"
	Timeout             Kind = "Timeout"
	SandboxViolation    Kind = "SandboxViolation"
	ExecutionFailed     Kind = "ExecutionFailed"
	Cancelled           Kind = "Cancelled"
	UnknownTool         Kind = "UnknownTool"
	DuplicateTool       Kind = "DuplicateTool"
	DuplicateToolCallID Kind = "DuplicateToolCallId"
	PatchFailed         Kind = "PatchFailed"
	StaleFile           Kind = "StaleFile"
)

// Kinds lists every variant, in the SRD's order.
func Kinds() []Kind {
	return []Kind{BadArgs, Timeout, SandboxViolation, ExecutionFailed, Cancelled,
		UnknownTool, DuplicateTool, DuplicateToolCallID, PatchFailed, StaleFile}
}

// Reason names a DenialReason variant (NFR-ERR-02).
type Reason string

// The DenialReason variants.
const (
	Denylisted           Reason = "Denylisted"
	Disabled             Reason = "Disabled"
	PathOutsideSandbox   Reason = "PathOutsideSandbox"
	DeniedPatternMatched Reason = "DeniedPatternMatched"
	LimitsExceeded       Reason = "LimitsExceeded"
)

// Denial carries a DenialReason and its fields; unused fields stay empty.
type Denial struct {
	Reason    Reason `json:"reason"`
	Tool      string `json:"tool,omitempty"`
	Attempted string `json:"attempted,omitempty"`
	Resolved  string `json:"resolved,omitempty"`
	Pattern   string `json:"pattern,omitempty"`
	Message   string `json:"message,omitempty"`
}

// Error is a ToolError. Tool and File are the variant fields that name a tool
// or a file; Denial is set only for SandboxViolation.
type Error struct {
	Kind    Kind
	Message string
	Tool    string
	File    string
	Denial  *Denial
}

func (e *Error) Error() string {
	switch {
	case e.Denial != nil:
		return fmt.Sprintf("%s(%s): %s", e.Kind, e.Denial.Reason, e.Message)
	case e.Message != "":
		return fmt.Sprintf("%s: %s", e.Kind, e.Message)
	default:
		return string(e.Kind)
	}
}

// New returns an error of the given kind with a formatted message.
func New(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// Failed returns ExecutionFailed for tool with a formatted message.
func Failed(tool, format string, args ...any) *Error {
	return &Error{Kind: ExecutionFailed, Tool: tool, Message: fmt.Sprintf(format, args...)}
}

// Violation returns a SandboxViolation carrying d; its message is derived from d.
func Violation(d Denial) *Error {
	msg := string(d.Reason)
	switch d.Reason {
	case PathOutsideSandbox:
		msg = fmt.Sprintf("path %q is outside the sandbox (resolved to %q)", d.Attempted, d.Resolved)
	case DeniedPatternMatched:
		msg = fmt.Sprintf("path %q matches denied pattern %q", d.Attempted, d.Pattern)
	case Denylisted:
		msg = fmt.Sprintf("tool %q is denylisted", d.Tool)
	case Disabled:
		msg = "Tool execution disabled by policy"
	case LimitsExceeded:
		msg = d.Message
	}
	return &Error{Kind: SandboxViolation, Message: msg, Denial: &d}
}
