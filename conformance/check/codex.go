package check

import (
	"fmt"
	"regexp"
	"strings"
)

var moreThan = regexp.MustCompile(`^More than (\d+) entries found$`)

// codexChecks registers Codex list_dir's checks.
func codexChecks() (string, ToolChecks) { return "list_dir", ToolChecks{Invariants: codexInvariants} }

// codexInvariants checks every successful list_dir result against the
// shape CODEX_LIST_DIR.md §3.3 gives the text.
func codexInvariants(in Input) []Failure {
	r := in.Resp
	if r.OK == nil || !*r.OK {
		if r.Error != nil && strings.TrimSpace(r.Error.Message) == "" {
			return []Failure{fail(KindInvariant, "error without a message", "CX-LD-ARG-06")}
		}
		return nil
	}
	var out []Failure
	inv := func(msg string, ids ...string) { out = append(out, fail(KindInvariant, msg, ids...)) }
	text := contentOf(r)
	lines := strings.Split(text, "\n")
	dir, _ := in.Args["dir_path"].(string)
	if want := "Absolute path: " + dir; lines[0] != want {
		inv(fmt.Sprintf("first line is %q, want %q", lines[0], want), "CX-LD-FMT-01")
	}
	if strings.HasSuffix(text, "\n") {
		inv("output ends with a newline: lines are joined with \\n and nothing follows", "CX-LD-FMT-05")
	}
	entries := lines[1:]
	if n := len(entries); n > 0 {
		if m := moreThan.FindStringSubmatch(entries[n-1]); m != nil {
			entries = entries[:n-1]
			if m[1] != itoa(int64(len(entries))) {
				inv(fmt.Sprintf("%q follows %d entry lines: the number must be the count shown", lines[len(lines)-1], len(entries)), "CX-LD-PAG-03")
			}
		}
	}
	limit := intOf(25, in.Args["limit"])
	if int64(len(entries)) > limit {
		inv(fmt.Sprintf("%d entry lines for limit %d", len(entries), limit), "CX-LD-PAG-01")
	}
	depth := intOf(2, in.Args["depth"])
	for i, l := range entries {
		if moreThan.MatchString(l) {
			inv(fmt.Sprintf("line %d %q: the \"More than\" line must come last", i+2, l), "CX-LD-PAG-03")
			continue
		}
		name := strings.TrimLeft(l, " ")
		indent := len(l) - len(name)
		switch {
		case name == "":
			inv(fmt.Sprintf("line %d is empty", i+2), "CX-LD-FMT-03")
		case int64(indent/2) >= depth:
			inv(fmt.Sprintf("line %d %q is indented by %d spaces: 2 per level below the top allows at most depth-1 levels", i+2, l, indent), "CX-LD-FMT-02")
		}
	}
	return out
}
