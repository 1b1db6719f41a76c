// Package cases embeds the conformance case corpus: one directory per
// specification (list_directory, codex_list_dir, ...), JSON files of cases
// inside. The format is specified by conformance/corpus (case.schema.json).
package cases

import "embed"

// FS holds every case file, read-only.
//
//go:embed */*.json
var FS embed.FS
