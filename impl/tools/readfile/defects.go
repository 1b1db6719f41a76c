package readfile

// Defects are deliberate read_file bugs, for the suite's self-test: each
// one makes the tool break the requirement its comment names, so that the
// suite must fail the mutant naming that requirement. The zero value
// conforms.
type Defects struct {
	// SniffWholeFile runs binary detection on the whole file instead of
	// its first 8 KiB, so a text file with a NUL or invalid UTF-8 later
	// on reads as binary (violates RF-SNIFF-01, I-RF-05).
	SniffWholeFile bool
	// NoRangeEndClamp fails a ranged read whose end_line lies beyond the
	// end of the file instead of reading through EOF (violates
	// FR-TOOL-READ-01, T-READ-01, I-RF-02).
	NoRangeEndClamp bool
	// NoCacheRecord does not record successful reads in the read cache,
	// so apply_patch refuses every file as not read (violates I-RF-07,
	// FR-TOOL-PATCH-02c).
	NoCacheRecord bool
	// BinaryOverBudget lets binary output exceed output_limit by one
	// base64 quad (violates FR-TOOL-READ-01b, I-RF-06).
	BinaryOverBudget bool
}
