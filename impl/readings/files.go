package readings

// fileReadings are the readings of the file tools: read_file, write_file
// and apply_patch with LP1 (TOOL_EXECUTOR_SRD.md §3.6.8-§3.6.9, LP1.md,
// WRITE_FILE_SRD.md).
func fileReadings() []Reading {
	return nil
}
