// Package golden embeds the golden files: the exact normalized response of
// every case, one file per case at <spec>/<case>.golden, written by
// `forge-conform golden update` (or `make golden`) and reviewed like code.
// A golden only proves that nothing changed; what the SRD demands is in each
// case's hand-written expectation.
package golden

import "embed"

// FS holds every golden file.
//
//go:embed *
var FS embed.FS
