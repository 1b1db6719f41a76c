package readings

// searchReadings are the readings of the listing and search tools and the
// sandbox: list_directory, Codex's list_dir, search_files
// (LIST_DIRECTORY_SRD.md, CODEX_LIST_DIR.md, SEARCH_FILES_SRD.md,
// TOOL_EXECUTOR_SRD.md §3.5).
func searchReadings() []Reading {
	return nil
}
