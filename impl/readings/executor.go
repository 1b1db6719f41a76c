package readings

import "github.com/forge-conform/forge-conform/impl/reference"

// executorReadings are the readings of the tool loop (TOOL_EXECUTOR_SRD.md
// §3.3-§3.7, the turn cases).
func executorReadings() []Reading {
	return []Reading{
		{
			Interp: "I-EXE-12", Name: "keep-cr", Forge: true,
			Doc:   "sanitization keeps carriage returns in chunks, results and summaries",
			Specs: []string{"tool_executor", "write_file"},
			Apply: func(o *reference.Options) { o.Variant.KeepCR = true },
		},
		{
			Interp: "I-EXE-08", Name: "size-first", Forge: true,
			Doc: "the planner checks apply_patch's max_patch_bytes before the tool lookup and the schema, and computes " +
				"the approval summary only for a call that needs confirmation, after the sandbox preflight",
			Specs: []string{"tool_executor", "write_file"},
			Apply: func(o *reference.Options) { o.Variant.ForgePlan = true },
		},
	}
}
