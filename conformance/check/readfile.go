package check

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// readFileChecks registers read_file's checks.
func readFileChecks() (string, ToolChecks) {
	return "read_file", ToolChecks{Invariants: readFileInvariants}
}

// readFileInvariants checks every read_file result against what
// TOOL_EXECUTOR_SRD.md §3.6.8 fixes whatever the file: binary results carry
// the [binary:base64] header, valid base64, disable framework truncation
// and fit output_limit (FR-TOOL-READ-01b, I-RF-06). The SRD's header is
// "[binary:base64] plus [truncated]", so both "[binary:base64] [truncated]"
// and "[binary:base64][truncated]" are accepted; when output_limit is
// smaller than the header, the header cut to the limit (no newline, no
// body) is accepted as well as an error (I-RF-06).
const binaryHeaderTruncated = "[binary:base64] [truncated]"

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
	case !ok && int64(len(content)) <= in.Ctx.EffectiveMax() && in.Ctx.EffectiveMax() <= int64(len(binaryHeaderTruncated)):
		// the header cut to an output_limit smaller than itself
	case !ok:
		inv("binary output has no newline after its header", "tool_executor:FR-TOOL-READ-01")
	case head != "[binary:base64]" && head != binaryHeaderTruncated && head != "[binary:base64][truncated]":
		inv(fmt.Sprintf("binary header is %q, want [binary:base64] or [binary:base64] plus [truncated] (with or without a space)", head), "tool_executor:FR-TOOL-READ-01")
	}
	if _, err := base64.StdEncoding.DecodeString(body); ok && err != nil {
		inv("binary body is not standard base64: "+err.Error(), "tool_executor:FR-TOOL-READ-01")
	}
	return out
}
