package check

import (
	"encoding/json"
	"path"
	"slices"
	"strings"

	"github.com/forge-conform/forge-conform/conformance/corpus"
)

// applyPatchChecks registers apply_patch's checks.
func applyPatchChecks() (string, ToolChecks) {
	return "apply_patch", ToolChecks{Invariants: applyPatchInvariants}
}

// applyPatchInvariants checks what the case's own steps establish: a file
// the conversation read with read_file is known to the read cache (a
// later patch of it may leave the entry as it was or refresh it, I-AP-05,
// but does not remove it), so apply_patch must not call it "not read"
// (FR-TOOL-PATCH-02a's message). Such an answer means the read was never
// recorded (FR-TOOL-PATCH-02c).
func applyPatchInvariants(in Input) []Failure {
	e := in.Resp.Error
	if e == nil || e.Kind != "StaleFile" || !strings.Contains(e.Message, "not read before patching") {
		return nil
	}
	files := []string{e.File}
	if e.File == "" {
		patch, _ := in.Args["patch"].(string)
		files = patchPaths(patch)
	}
	if len(files) == 0 {
		return nil
	}
	var ids []string
	for _, f := range files {
		id := lastRecorder(in.Case.Before, f)
		if id == "" {
			return nil // a file the steps did not read: "not read" may be right
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if e.File == "" && len(files) > 1 {
		ids = []string{"tool_executor:FR-TOOL-PATCH-02c"}
	}
	return []Failure{fail(KindInvariant, "StaleFile \"not read\" for "+strings.Join(files, ", ")+
		", which this conversation read (or patched)", ids...)}
}

// lastRecorder returns the requirement that makes the read cache know file
// after steps: FR-TOOL-PATCH-02c when a successful read_file read it (a
// successful apply_patch since leaves it known, refreshed or not, I-AP-05);
// "" when the steps never read it, a reset since began a fresh
// conversation, or a symlink swapped in since makes the path name another
// file. A file changed on disk since is still known: the answer
// due is FR-TOOL-PATCH-02b's "changed", not "not read".
func lastRecorder(steps []corpus.Step, file string) string {
	file = path.Clean(file)
	id := ""
	for _, s := range steps {
		switch {
		case s.Symlink != nil && path.Clean(s.Symlink.Path) == file:
			id = "" // the path may now name another file
		case s.Reset:
			id = "" // a fresh conversation has read nothing
		case s.Call != nil && s.ExpectError == "" && s.Call.Tool == "read_file":
			var a struct {
				Path string `json:"path"`
			}
			if json.Unmarshal(s.Call.Args, &a) == nil && path.Clean(a.Path) == file {
				id = "tool_executor:FR-TOOL-PATCH-02c"
			}
		}
	}
	return id
}

// patchPaths are the bare paths of an LP1 patch's F lines, cleaned
// (quoted paths are left out: this is a heuristic for blame, not a parser).
func patchPaths(patch string) []string {
	var out []string
	for _, line := range strings.Split(patch, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "F" && !strings.HasPrefix(f[1], `"`) {
			if p := path.Clean(f[1]); !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}
