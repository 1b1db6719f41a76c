package runner

import (
	"bufio"
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/forge-conform/forge-conform/conformance/corpus"
)

// Selector implements --run and --skip: a glob matches a case's full name
// ("list_directory/hidden-omitted"), its short name, or any ID it covers.
type Selector struct {
	Run  []string
	Skip []string
}

// Validate reports malformed globs.
func (s *Selector) Validate() error {
	for _, g := range append(append([]string(nil), s.Run...), s.Skip...) {
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("bad glob %q: %w", g, err)
		}
	}
	return nil
}

// Match reports whether c is selected: matched by some --run glob (or no
// --run given) and by no --skip glob.
func (s *Selector) Match(c *corpus.Case) bool {
	if len(s.Run) > 0 && !anyMatch(s.Run, c) {
		return false
	}
	return !anyMatch(s.Skip, c)
}

func anyMatch(globs []string, c *corpus.Case) bool {
	names := caseNames(c)
	for _, g := range globs {
		if !strings.ContainsAny(g, `*?[\`) {
			// A literal: string comparison, not path.Match (a mutant's
			// selector lists hundreds of case names).
			if slices.Contains(names, g) {
				return true
			}
			continue
		}
		for _, n := range names {
			if ok, _ := path.Match(g, n); ok {
				return true
			}
		}
	}
	return false
}

// caseNames are the strings a glob may match for c: its full name, its
// short name, and each ID it covers, bare and spec-qualified.
func caseNames(c *corpus.Case) []string {
	refs := c.Refs()
	names := make([]string, 0, 2+3*len(refs))
	names = append(names, c.FullName(), c.Name)
	for i, ref := range refs {
		names = append(names, c.IDs[i], ref.ID, ref.Spec+":"+ref.ID)
	}
	return names
}

// Expected is one line of a skip file: cases matched by Glob are expected
// to fail, for Reason.
type Expected struct {
	Glob   string
	Reason string
	Line   int
}

// ParseSkipFile reads a skip file: one glob per line (case name or ID, as
// for --run), optionally followed by whitespace and a reason; blank lines
// and lines starting with # are ignored.
//
//	list_directory/non-utf8-*   we store names as WTF-8 (issue #12)
//	T-LD-13                      budget errors not implemented yet
func ParseSkipFile(name string, data []byte) ([]Expected, error) {
	var out []Expected
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		glob, reason, _ := strings.Cut(line, " ")
		if i := strings.IndexAny(glob, "\t"); i >= 0 {
			glob, reason = glob[:i], glob[i+1:]+" "+reason
		}
		if _, err := path.Match(glob, ""); err != nil {
			return nil, fmt.Errorf("%s:%d: bad glob %q: %v", name, n, glob, err)
		}
		reason = strings.TrimSpace(reason)
		if reason == "" {
			reason = "listed in " + name
		}
		out = append(out, Expected{Glob: glob, Reason: reason, Line: n})
	}
	return out, sc.Err()
}

// applyExpected turns an expected failure into a skip, and an expected
// failure that passes into a failure, so skip files cannot rot.
func (r *Runner) applyExpected(res *Result) {
	for _, e := range r.opts.Expected {
		if !anyMatch([]string{e.Glob}, res.Case) {
			continue
		}
		switch res.Status {
		case Failed, Errored:
			res.Message = fmt.Sprintf("expected failure (skip file line %d: %s): %s", e.Line, e.Reason, res.Message)
			res.Status = Skipped
			res.ExpectedFailure = true
		case Passed:
			res.Status = Failed
			res.Message = fmt.Sprintf("listed as an expected failure (skip file line %d: %s) but passes: remove the line", e.Line, e.Reason)
		}
		return
	}
}
