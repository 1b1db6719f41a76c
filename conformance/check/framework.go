package check

import (
	"slices"
	"strings"
)

// FrameworkSpec is the catalog of the executor framework whose
// requirements the turn and screen checks enforce (TOOL_EXECUTOR_SRD.md).
const FrameworkSpec = "tool_executor"

// toolSanitizeIDs are the requirements of catalog spec that state the
// framework's sanitization duty for the tool's output (FR-OUT-02,
// NFR-SEC-05): "output sanitized before terminal rendering (framework
// requirement)"; nil when its SRD states none. In a turn case of that
// catalog, a sanitization failure of the framework is the tool's
// requirement failing.
func toolSanitizeIDs(spec string) []string {
	switch spec {
	case "list_directory":
		return []string{"NFR-LD-SEC-02", "C-04"}
	case "search_files":
		return []string{"NFR-SF-SEC-02", "C-04"}
	}
	return nil
}

// Framework resolves the IDs of the turn and screen checks (invariants and
// screen checks, which name the executor SRD's requirements bare) for a
// turn case of catalog spec. In the executor's own catalog they stay as
// they are. In another catalog (a tool's requirement checked through the
// executor's loop) a sanitization failure (FR-OUT-02, NFR-SEC-05) is
// charged to the tool's own sanitization requirements where its SRD states
// one, and every other ID is qualified with the executor's catalog, so
// that it is neither mistaken for an ID of the tool's catalog nor lost.
func Framework(spec string, fs []Failure) []Failure {
	if spec == FrameworkSpec {
		return fs
	}
	out := make([]Failure, len(fs))
	for i, f := range fs {
		if f.Kind == KindInvariant || f.Kind == KindScreen {
			f.IDs = frameworkIDs(spec, f.IDs)
		}
		out[i] = f
	}
	return out
}

func frameworkIDs(spec string, ids []string) []string {
	var out []string
	add := func(id string) {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	for _, id := range ids {
		switch {
		case strings.Contains(id, ":"):
			add(id)
		case (id == idSanitize || id == idSecOut) && toolSanitizeIDs(spec) != nil:
			for _, own := range toolSanitizeIDs(spec) {
				add(own)
			}
		default:
			add(FrameworkSpec + ":" + id)
		}
	}
	return out
}
