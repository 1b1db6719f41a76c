package corpus

import "strings"

// PathOpen starts a path placeholder in a text or contains expectation:
// "$PATH(a.txt)" stands for one file, named in the case as written in the
// call (an LP1 F line, a path argument). The SRD fixes the line forms of a
// result ("modified: <path>") but not how <path> is spelled, so the
// placeholder matches every spelling that names that file: as written,
// relative to the working directory (cleaned), or absolute (the fixture
// root joined with it, or its canonical path with symlinks resolved), the
// fixture root normalized to $ROOT as everywhere in a response. The path
// runs up to the next ")" (so it cannot hold one).
const PathOpen = "$PATH("

// TextPart is one piece of an expected text: literal text, or the path of
// a placeholder.
type TextPart struct {
	Text string
	// Path marks a placeholder; Text is then the path as written.
	Path bool
}

// SplitPaths cuts s into literal text and path placeholders, in order. A
// "$PATH(" without a closing ")" is literal text.
func SplitPaths(s string) []TextPart {
	var out []TextPart
	for {
		i := strings.Index(s, PathOpen)
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+len(PathOpen):], ')')
		if j < 0 {
			break
		}
		if i > 0 {
			out = append(out, TextPart{Text: s[:i]})
		}
		out = append(out, TextPart{Text: s[i+len(PathOpen) : i+len(PathOpen)+j], Path: true})
		s = s[i+len(PathOpen)+j+1:]
	}
	if s != "" || len(out) == 0 {
		out = append(out, TextPart{Text: s})
	}
	return out
}

// HasPaths reports whether s holds a path placeholder.
func HasPaths(s string) bool {
	for _, p := range SplitPaths(s) {
		if p.Path {
			return true
		}
	}
	return false
}

// WithPaths returns s with every placeholder replaced by f(path).
func WithPaths(s string, f func(path string) string) string {
	var b strings.Builder
	for _, p := range SplitPaths(s) {
		if p.Path {
			b.WriteString(f(p.Text))
		} else {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// AsWritten is WithPaths keeping each path as written.
func AsWritten(s string) string { return WithPaths(s, func(p string) string { return p }) }
