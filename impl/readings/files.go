package readings

import (
	"maps"

	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/impl/tools/applypatch"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// fileReadings are the readings of the file tools: read_file, write_file
// and apply_patch with LP1 (TOOL_EXECUTOR_SRD.md §3.6.8-§3.6.9, LP1.md,
// WRITE_FILE_SRD.md). Each is an option of the tool's package, passed
// through reference.Options.ReadFile, WriteFile and ApplyPatch.
func fileReadings() []Reading {
	patchSpecs := []string{"lp1", "tool_executor"}
	readSpecs := []string{"tool_executor"}
	writeSpecs := []string{"write_file", "tool_executor"}
	return []Reading{
		// apply_patch (§3.6.9)
		{
			Interp: "I-AP-01", Name: "refuse", Forge: true,
			Doc:   "declares lp1_missing_file=refuse: a missing file not read in the conversation is StaleFile, like any file not read",
			Specs: patchSpecs,
			Apply: func(o *reference.Options) {
				p := maps.Clone(o.Policies)
				if p == nil {
					p = map[string]string{}
				}
				p[fcp.PolicyLP1MissingFile] = fcp.PolicyRefuse
				o.Policies = p
			},
		},
		{
			Interp: "I-AP-02", Name: "canonical", Forge: true,
			Doc:   "success lines name each file by its canonical absolute path",
			Specs: patchSpecs,
			Apply: func(o *reference.Options) { o.ApplyPatch.PathForm = applypatch.PathCanonical },
		},
		{
			Interp: "I-AP-02", Name: "relative",
			Doc:   "success lines name each file relative to the working directory, cleaned",
			Specs: patchSpecs,
			Apply: func(o *reference.Options) { o.ApplyPatch.PathForm = applypatch.PathRelative },
		},
		{
			Interp: "I-AP-03", Name: "from-disk", Forge: true,
			Doc: "each F section applies to the file's bytes on disk; the last section's result is written " +
				"and the file is listed once per section",
			Specs: patchSpecs,
			Apply: func(o *reference.Options) { o.ApplyPatch.SectionsFromDisk = true },
		},
		{
			Interp: "I-AP-04", Name: "patch-file", Forge: true,
			Doc:   "a patch that does not parse is PatchFailed with file \"<patch>\"",
			Specs: patchSpecs,
			Apply: func(o *reference.Options) { o.ApplyPatch.ParseErrorFile = "<patch>" },
		},
		{
			Interp: "I-AP-05", Name: "not-refreshed", Forge: true,
			Doc:   "a successful patch leaves the read cache as read_file left it: patching again needs a new read",
			Specs: patchSpecs,
			Apply: func(o *reference.Options) { o.ApplyPatch.KeepCache = true },
		},
		// LP1
		{
			Interp: "I-LP-01", Name: "accepted", Forge: true,
			Doc:   "an F section without operations parses (the EBNF's reading) and changes nothing",
			Specs: patchSpecs,
			Apply: func(o *reference.Options) { o.ApplyPatch.LP1.EmptySections = true },
		},
		{
			Interp: "I-LP-09", Name: "applied", Forge: true,
			Doc:   "an empty match block with occurrence k selects the empty run before file line k (E 1 erases nothing); without an occurrence it is still an error",
			Specs: patchSpecs,
			Apply: func(o *reference.Options) { o.ApplyPatch.LP1.EmptyMatchWithOcc = true },
		},
		{
			Interp: "I-LP-11", Name: "preserved", Forge: true,
			Doc:   "final_newline is kept through a section's operations (§5) and the empty-file invariant (§4) applies to its result only",
			Specs: patchSpecs,
			Apply: func(o *reference.Options) { o.ApplyPatch.LP1.KeepFinalNewline = true },
		},
		{
			Interp: "I-LP-15", Name: "no-line-numbers", Forge: true,
			Doc:   "PatchFailed messages do not name the patch line",
			Specs: patchSpecs,
			Apply: func(o *reference.Options) { o.ApplyPatch.NoLineNumbers = true },
		},
		// read_file (§3.6.8)
		{
			Interp: "I-RF-01", Name: "sanitized", Forge: true,
			Doc:   "text output is sanitized as tool output (FR-OUT-02): control characters removed, carriage returns kept",
			Specs: readSpecs,
			Apply: func(o *reference.Options) { o.ReadFile.Sanitize = true },
		},
		{
			Interp: "I-RF-02", Name: "checked-in-code", Forge: true,
			Doc:   "the schema of start_line and end_line has no minimum; the tool rejects 0 itself (BadArgs)",
			Specs: readSpecs,
			Apply: func(o *reference.Options) { o.ReadFile.RangeCheckedInCode = true },
		},
		{
			Interp: "I-RF-03", Name: "bad-args",
			Doc:   "a text file over read_limit read without a range is BadArgs",
			Specs: readSpecs,
			Apply: func(o *reference.Options) { o.ReadFile.TooLargeBadArgs = true },
		},
		{
			Interp: "I-RF-04", Name: "whole-file", Forge: true,
			Doc:   "a ranged read fails when the whole file exceeds max_scan_bytes, whatever end_line is",
			Specs: readSpecs,
			Apply: func(o *reference.Options) { o.ReadFile.ScanWholeFile = true },
		},
		{
			Interp: "I-RF-05", Name: "cut-char-binary", Forge: true,
			Doc:   "a multi-byte character cut by the end of the 8 KiB sniff window fails decoding: the file is binary",
			Specs: readSpecs,
			Apply: func(o *reference.Options) { o.ReadFile.CutCharBinary = true },
		},
		{
			Interp: "I-RF-06", Name: "no-space", Forge: true,
			Doc:   "the truncated binary header is \"[binary:base64][truncated]\"",
			Specs: readSpecs,
			Apply: func(o *reference.Options) { o.ReadFile.NoSpaceHeader = true },
		},
		{
			Interp: "I-RF-09", Name: "cut-header", Forge: true,
			Doc:   "an output_limit smaller than the binary header and its newline gives the header cut to the limit, successfully",
			Specs: readSpecs,
			Apply: func(o *reference.Options) { o.ReadFile.CutHeader = true },
		},
		{
			Interp: "I-RF-10", Name: "error", Forge: true,
			Doc:   "a whole-file text read whose bytes past the sniff window are not valid UTF-8 fails (ExecutionFailed)",
			Specs: readSpecs,
			Apply: func(o *reference.Options) { o.ReadFile.InvalidUTF8Error = true },
		},
		// write_file
		{
			Interp: "I-WR-01", Name: "created-text", Forge: true,
			Doc:   "success is \"Created <canonical absolute path> (<n> bytes)\"",
			Specs: writeSpecs,
			Apply: func(o *reference.Options) { o.WriteFile.CreatedText = true },
		},
		{
			Interp: "I-WR-02", Name: "no-parents", Forge: true,
			Doc:   "a path whose directory does not exist fails (ExecutionFailed); no directory is created",
			Specs: writeSpecs,
			Apply: func(o *reference.Options) { o.WriteFile.NoParents = true },
		},
		{
			Interp: "I-WR-03", Name: "create-new", Forge: true,
			Doc:   "the path itself is opened with create-new and written, and removed if the write fails",
			Specs: writeSpecs,
			Apply: func(o *reference.Options) { o.WriteFile.CreateNew = true },
		},
		{
			Interp: "I-WR-04", Name: "recorded", Forge: true,
			Doc:   "the new file's SHA-256 is recorded in the read cache, so apply_patch may patch it without a read",
			Specs: writeSpecs,
			Apply: func(o *reference.Options) { o.WriteFile.RecordRead = true },
		},
	}
}
