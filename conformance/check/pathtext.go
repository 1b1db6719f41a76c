package check

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/forge-conform/forge-conform/conformance/corpus"
)

// pathSpellings are the spellings of the file that p (a placeholder's path
// as written, $ROOT unexpanded) names, as they appear in a normalized
// response: p itself, p relative to the working directory (the fixture
// root) and cleaned, and absolute: the root joined with it and its
// canonical path (symlinks resolved), and that canonical path relative to
// the root. root is the fixture root on disk ("" leaves the canonical
// spellings out).
func pathSpellings(p, root string) []string {
	out := []string{p}
	add := func(s string) {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	var rel string
	switch {
	case p == "$ROOT":
		rel = "."
	case strings.HasPrefix(p, "$ROOT/"):
		rel = path.Clean(strings.TrimPrefix(p, "$ROOT/"))
	case path.IsAbs(p):
		add(path.Clean(p))
		return out
	default:
		rel = path.Clean(p)
	}
	add(rel)
	add(underRoot(rel))
	if root == "" {
		return out
	}
	if canon, ok := canonicalUnder(root, rel); ok {
		add(canon)
		if r, ok := strings.CutPrefix(canon, "$ROOT/"); ok {
			add(r)
		}
	}
	return out
}

// underRoot is "$ROOT/rel" ("$ROOT" for ".").
func underRoot(rel string) string {
	if rel == "." {
		return "$ROOT"
	}
	return "$ROOT/" + rel
}

// canonicalUnder resolves the symlinks of root/rel (of its directory when
// it does not exist) and spells the result with $ROOT when it lies under
// the root.
func canonicalUnder(root, rel string) (string, bool) {
	abs := filepath.Join(root, filepath.FromSlash(rel))
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		dir, derr := filepath.EvalSymlinks(filepath.Dir(abs))
		if derr != nil {
			return "", false
		}
		real = filepath.Join(dir, filepath.Base(abs))
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	switch {
	case real == realRoot:
		return "$ROOT", true
	case strings.HasPrefix(real, realRoot+string(filepath.Separator)):
		return underRoot(filepath.ToSlash(real[len(realRoot)+1:])), true
	}
	return filepath.ToSlash(real), true
}

// textPattern compiles an expected text holding path placeholders
// (corpus.PathOpen) to a regular expression: literal text as is, each
// placeholder any spelling of its file. whole anchors it to the whole
// result; fold ignores case (as contains does).
func textPattern(want, root string, whole, fold bool) *regexp.Regexp {
	var b strings.Builder
	if fold {
		b.WriteString("(?i)")
	}
	if whole {
		b.WriteString(`\A`)
	}
	for _, part := range corpus.SplitPaths(want) {
		if !part.Path {
			b.WriteString(regexp.QuoteMeta(part.Text))
			continue
		}
		alts := pathSpellings(part.Text, root)
		for i := range alts {
			alts[i] = regexp.QuoteMeta(alts[i])
		}
		b.WriteString("(?:" + strings.Join(alts, "|") + ")")
	}
	if whole {
		b.WriteString(`\z`)
	}
	return regexp.MustCompile(b.String())
}

// pathNote explains a path placeholder in a failure message.
const pathNote = " (each path may be spelled as written, relative to the working directory, or absolute)"

// isControl reports the characters FR-OUT-02's sanitization removes or
// neutralizes: C0 controls but newline, tab and carriage return (ESC among
// them), DEL and C1 controls.
func isControl(r rune) bool {
	return (r < 0x20 && r != '\n' && r != '\t' && r != '\r') || (r >= 0x7f && r <= 0x9f)
}

// sanitizedPattern compiles a sanitized expectation: want's text with each
// run of control characters replaced by any text free of them (removed,
// or neutralized into printable characters).
func sanitizedPattern(want string) *regexp.Regexp {
	const free = `[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x{9f}]*?`
	var b strings.Builder
	b.WriteString(`\A`)
	lit := 0
	inRun := false
	for i, r := range want {
		if isControl(r) {
			if !inRun {
				b.WriteString(regexp.QuoteMeta(want[lit:i]))
				b.WriteString(free)
				inRun = true
			}
			continue
		}
		if inRun {
			lit = i
			inRun = false
		}
	}
	if !inRun {
		b.WriteString(regexp.QuoteMeta(want[lit:]))
	}
	b.WriteString(`\z`)
	return regexp.MustCompile(b.String())
}

// firstControl returns the first control character of s (isControl).
func firstControl(s string) (rune, bool) {
	for _, r := range s {
		if isControl(r) {
			return r, true
		}
	}
	return 0, false
}

// controlMessage words a control character left in a sanitized result.
func controlMessage(r rune) string {
	return fmt.Sprintf("result holds the control character U+%04X: FR-OUT-02 asks for output strings sanitized (controls removed or neutralized)", r)
}
