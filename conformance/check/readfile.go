package check

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// readFileInvariants checks every read_file result against what
// TOOL_EXECUTOR_SRD.md §3.6.8 fixes whatever the file: binary results carry
// the [binary:base64] header, valid base64, disable framework truncation
// and fit output_limit (FR-TOOL-READ-01b, I-RF-06).
func readFileInvariants(in Input) []Failure {
	r := in.Resp
	if r.OK == nil || !*r.OK {
		if r.Error != nil && strings.TrimSpace(r.Error.Message) == "" {
			return []Failure{fail(KindInvariant, r.Error.Kind+" without a message", "tool_executor:NFR-ERR-01")}
		}
		return nil
	}
	content := contentOf(r)
	if !strings.HasPrefix(content, "[binary:base64]") {
		return nil
	}
	var out []Failure
	inv := func(msg string, ids ...string) { out = append(out, fail(KindInvariant, msg, ids...)) }
	if r.AllowTruncation == nil || *r.AllowTruncation {
		inv("a binary result must set allow_truncation=false and limit itself", "tool_executor:FR-TOOL-READ-01b")
	}
	if in.ContentBytes > in.Ctx.EffectiveMax() {
		inv(fmt.Sprintf("binary output is %d bytes, over output_limit %d", in.ContentBytes, in.Ctx.EffectiveMax()), "tool_executor:FR-TOOL-READ-01b")
	}
	head, body, ok := strings.Cut(content, "\n")
	switch {
	case !ok:
		inv("binary output has no newline after its header", "tool_executor:FR-TOOL-READ-01")
	case head != "[binary:base64]" && head != "[binary:base64] [truncated]":
		inv(fmt.Sprintf("binary header is %q, want [binary:base64] or [binary:base64] [truncated]", head), "tool_executor:FR-TOOL-READ-01")
	}
	if _, err := base64.StdEncoding.DecodeString(body); ok && err != nil {
		inv("binary body is not standard base64: "+err.Error(), "tool_executor:FR-TOOL-READ-01")
	}
	return out
}
