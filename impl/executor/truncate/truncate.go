// Package truncate is the framework's output truncation of FR-OUT-04: a
// result longer than effective_max bytes keeps a prefix cut on a UTF-8
// character boundary and ends with the marker, the whole within
// effective_max (FR-OUT-04a).
package truncate

import "unicode/utf8"

// Marker ends every truncated result.
const Marker = "\n\n... [output truncated]"

// Output returns output when it fits in effectiveMax bytes; otherwise the
// longest prefix that leaves room for Marker and does not split a
// character, followed by Marker. When effectiveMax cannot hold the marker,
// the result is the marker's first effectiveMax bytes. This is the SRD's
// truncate_output, byte for byte.
func Output(output string, effectiveMax int64) string {
	if effectiveMax < 0 {
		effectiveMax = 0
	}
	if int64(len(output)) <= effectiveMax {
		return output
	}
	if effectiveMax <= int64(len(Marker)) {
		return Marker[:effectiveMax]
	}
	end := int(effectiveMax) - len(Marker)
	for end > 0 && !utf8.RuneStart(output[end]) {
		end--
	}
	return output[:end] + Marker
}
