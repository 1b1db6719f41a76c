package readings

import (
	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/executor/policy"
	"github.com/forge-conform/forge-conform/impl/executor/sanitize"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/impl/tool"
)

// executorReadings are the readings of the tool loop (TOOL_EXECUTOR_SRD.md
// §3.3-§3.7, the turn and summary cases).
func executorReadings() []Reading {
	loop := []string{"tool_executor", "write_file"}
	return []Reading{
		{
			Interp: "I-EXE-12", Name: "keep-cr", Forge: true,
			Doc:   "sanitization keeps carriage returns in chunks, results and summaries",
			Specs: loop,
			Apply: func(o *reference.Options) { o.Executor.Sanitize.KeepCR = true },
		},
		{
			Interp: "I-EXE-12", Name: "neutralize",
			Doc: "sanitization neutralizes control sequences instead of removing them: every C0 control but newline " +
				"and tab shows as its Control Pictures symbol (ESC as U+241B), DEL as U+2421, a C1 control is removed, " +
				"and the rest of an escape sequence stays as the printable text it is",
			Specs: loop,
			Apply: func(o *reference.Options) { o.Executor.Sanitize.Mode = sanitize.Neutralize },
		},
		{
			Interp: "I-EXE-12", Name: "drop-controls",
			Doc:   "sanitization removes the control characters only; the rest of an escape sequence stays as text",
			Specs: loop,
			Apply: func(o *reference.Options) { o.Executor.Sanitize.Mode = sanitize.Drop },
		},
		{
			Interp: "I-EXE-08", Name: "size-first", Forge: true,
			Doc: "the planner checks apply_patch's max_patch_bytes before the tool lookup and the schema, and computes " +
				"the approval summary only for a call that needs confirmation, after the sandbox preflight",
			Specs: loop,
			Apply: func(o *reference.Options) { o.Executor.Plan = executor.ForgePlan() },
		},
		{
			Interp: "I-EXE-23", Name: "prompt-read-only",
			Doc:   "prompt mode asks for confirmation of every call of a tool that is not allowlisted, read-only tools included",
			Specs: loop,
			Apply: func(o *reference.Options) { o.Executor.PromptUnlisted = true },
		},
		{
			Interp: "I-EXE-07", Name: "forge-texts", Forge: true,
			Doc: "error results use Forge's words where the SRD quotes none: a timeout in whole seconds, a denial by its " +
				"reason (`Tool '<t>' is denylisted`, `Path outside sandbox (...)`), a limit by its name only",
			Specs: loop,
			Apply: func(o *reference.Options) { o.Executor.ResultText = executor.ForgeText },
		},
		{
			Interp: "I-EXE-21", Name: "skip-blank-stderr", Forge: true,
			Doc:   "run_command appends stderr only when it holds more than white space",
			Specs: []string{"tool_executor"},
			Apply: func(o *reference.Options) { o.RunCommand.SkipBlankStderr = true },
		},
		{
			Interp: "I-EXE-16", Name: "all-cancelled",
			Doc:   "a cancel gives every call it reaches \"Cancelled by user\", pre-resolved and denied calls included",
			Specs: loop,
			Apply: func(o *reference.Options) { o.Executor.CancelResolved = true },
		},
		{
			Interp: "I-EXE-19", Name: "all-rejected",
			Doc:   "every call of a batch whose id occurs more than once is rejected, the first included",
			Specs: loop,
			Apply: func(o *reference.Options) { o.Executor.RejectDuplicates = true },
		},
		{
			Interp: "I-EXE-34", Name: "kb",
			Doc:   "with no max_tool_args_bytes key, the arguments limit is 256,000 bytes (256 KB read in decimal)",
			Specs: []string{"tool_executor"},
			Apply: func(o *reference.Options) { o.Executor.Policy = decimalArgsDefault },
		},
		{
			Interp: "I-APR-02", Name: "three-dots",
			Doc:   `a summary over 200 characters keeps its first 197 and ends with "..."`,
			Specs: loop,
			Apply: func(o *reference.Options) { o.Executor.Summarize = tool.SummarizeThreeDots },
		},
	}
}

// decimalArgsDefault loads the loop policy with FR-LIM-03's default read as
// 256,000 bytes (I-EXE-34's reading kb); a configured value is kept.
func decimalArgsDefault(cfg config.Config) (policy.Loop, error) {
	l, err := policy.Load(cfg)
	if _, set := cfg.Tools["max_tool_args_bytes"]; !set {
		l.MaxArgsBytes = 256_000
	}
	return l, err
}
