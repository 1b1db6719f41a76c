package mutants

import (
	"encoding/json"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/impl/tool"
)

// rawSummary is read_file with an approval summary that shows the path as
// sent, "Read <path>", without the tool's own cut (and, unless redact,
// without its redaction); a ranged read keeps the tool's summary. With an
// engine whose Summarize leaves out the cut or the redaction
// (executor.Options.Summarize) the summary op then shows what the framework
// forgot to do.
type rawSummary struct {
	tool.Tool
	redact bool
}

func (w rawSummary) ApprovalSummary(raw json.RawMessage, c config.Config) (string, error) {
	s, err := w.Tool.ApprovalSummary(raw, c)
	if err != nil {
		return s, err
	}
	var a map[string]any
	if json.Unmarshal(raw, &a) != nil || a["start_line"] != nil || a["end_line"] != nil {
		return s, nil
	}
	p, _ := a["path"].(string)
	s = "Read " + p
	if w.redact {
		s = tool.Redact(s)
	}
	return s, nil
}

// withRawSummary returns a reference.Options.WrapTool giving read_file a
// rawSummary.
func withRawSummary(redact bool) func(tool.Tool) tool.Tool {
	return func(t tool.Tool) tool.Tool {
		if t.Name() != "read_file" {
			return t
		}
		return rawSummary{Tool: t, redact: redact}
	}
}

// summaryMutants are the approval-summary mutants: the summary op without
// the framework's cut, or without its redaction (FR-APR-06, FR-APR-01),
// and a tool that provides a blank summary (FR-APR-01).
func summaryMutants() []Mutant {
	return []Mutant{
		{
			Name: "summary-no-cut", Doc: "the summary op shows a summary longer than 200 characters uncut",
			Specs: []string{"tool_executor"}, Run: []string{"tool_executor/summary-*"},
			Breaks: ids("tool_executor", "FR-APR-06"),
			Options: reference.Options{WrapTool: withRawSummary(true),
				Executor: executor.Options{Summarize: tool.Redact}},
		},
		{
			Name: "summary-no-redact", Doc: "the summary op shows the secrets of the arguments",
			Specs: []string{"tool_executor"}, Run: []string{"tool_executor/summary-*"},
			Breaks: ids("tool_executor", "FR-APR-01"),
			Options: reference.Options{WrapTool: withRawSummary(false),
				Executor: executor.Options{Summarize: func(s string) string { return tool.Truncate(s, tool.MaxSummaryChars) }}},
		},
		{
			Name: "summary-blank-command", Doc: "run_command's approval summary is empty",
			Specs: []string{"tool_executor"}, Run: []string{"tool_executor/summary-*"},
			Breaks:  ids("tool_executor", "FR-APR-01"),
			Options: reference.Options{WrapTool: withBlankSummary("run_command")},
		},
	}
}

// blankSummary is a tool whose approval summary is empty when its
// arguments parse.
type blankSummary struct{ tool.Tool }

func (w blankSummary) ApprovalSummary(raw json.RawMessage, c config.Config) (string, error) {
	_, err := w.Tool.ApprovalSummary(raw, c)
	return "", err
}

// withBlankSummary returns a reference.Options.WrapTool giving the tool
// named name a blankSummary.
func withBlankSummary(name string) func(tool.Tool) tool.Tool {
	return func(t tool.Tool) tool.Tool {
		if t.Name() != name {
			return t
		}
		return blankSummary{t}
	}
}
