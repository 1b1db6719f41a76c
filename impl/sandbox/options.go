package sandbox

import (
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"github.com/bmatcuk/doublestar/v4"
)

// Options are the readings of TOOL_EXECUTOR_SRD.md §3.5 a sandbox can take
// besides the reference's (spec/INTERPRETATIONS.md I-SBX-03, I-SBX-05,
// I-SBX-06; package impl/readings names them). The zero value is the
// reference's reading.
type Options struct {
	// Globset matches denied patterns with the defaults of Rust's globset
	// crate (§3.5.1 types them `Glob`) instead of doublestar's: `*` and `?`
	// also match `/`, and a trailing `/**` matches what is inside a
	// directory but not the directory itself (I-SBX-03, reading globset).
	Globset bool
	// ForgeDenials fills a denial's attempted field as Forge's own code
	// does (I-SBX-05, reading forge): DeniedPatternMatched names the
	// canonical absolute path, and PathOutsideSandbox a relative request
	// joined with the working directory (and cleaned). The reference names
	// the path as requested.
	ForgeDenials bool
	// RejectControl rejects a path holding a control character (Unicode
	// Cc) or a bidirectional embedding, override or isolate character
	// (U+202A..U+202E, U+2066..U+2069) with BadArgs "path contains invalid
	// control characters", before step 1 (I-SBX-06, reading
	// reject-control). The reference validates such a path like any other.
	RejectControl bool
}

// With returns a copy of s that takes the readings o.
func (s *Sandbox) With(o Options) *Sandbox {
	c := *s
	c.opts = o
	c.globs = nil
	if o.Globset {
		c.globs = make([]*regexp.Regexp, len(s.patterns))
		for i, p := range s.patterns {
			c.globs[i] = globsetRegexp(p)
		}
	}
	return &c
}

// Options returns the readings s takes.
func (s *Sandbox) Options() Options { return s.opts }

// DeniedBy returns the first denied pattern that matches the canonical
// absolute path target (step 7), in the dialect s reads them in.
func (s *Sandbox) DeniedBy(target string) (string, bool) {
	slashed := filepath.ToSlash(target)
	for i, p := range s.patterns {
		if s.globs != nil {
			if s.globs[i].MatchString(slashed) {
				return p, true
			}
			continue
		}
		if ok, _ := doublestar.Match(p, slashed); ok {
			return p, true
		}
	}
	return "", false
}

// hasControl reports whether path holds a control character or a
// bidirectional embedding, override or isolate character.
func hasControl(path string) bool {
	return strings.ContainsFunc(path, func(r rune) bool {
		return unicode.IsControl(r) || r >= '\u202A' && r <= '\u202E' || r >= '\u2066' && r <= '\u2069'
	})
}

// globsetRegexp translates a glob as Rust's globset crate reads it with
// its default options (no literal_separator, backslash escapes on Unix)
// into an anchored regular expression: `*` is any sequence, `?` any
// character, `/` included; a leading `**/` matches any leading
// directories or none, a trailing `/**` anything inside, `/**/` one
// separator or any directories between two; any other `**` is `*`;
// `[...]` (negated by `!` or `^`) and `{a,b}` as usual. A pattern that
// does not translate matches nothing.
func globsetRegexp(p string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`(?s)^`)
	depth := 0 // open {} groups
	for i := 0; i < len(p); {
		switch {
		case strings.HasPrefix(p[i:], "**/") && i == 0:
			b.WriteString(`(?:.*/)?`)
			i += 3
		case strings.HasPrefix(p[i:], "/**/"):
			b.WriteString(`/(?:.*/)?`)
			i += 4
		case p[i:] == "/**":
			b.WriteString(`/.*`)
			i += 3
		case p[i] == '*':
			b.WriteString(`.*`)
			for i < len(p) && p[i] == '*' {
				i++
			}
		case p[i] == '?':
			b.WriteString(`.`)
			i++
		case p[i] == '\\' && i+1 < len(p):
			b.WriteString(regexp.QuoteMeta(p[i+1 : i+2]))
			i += 2
		case p[i] == '[':
			end := strings.IndexByte(p[i+1:], ']')
			if end == 0 { // "[]...]": the first ] is literal
				if e := strings.IndexByte(p[i+2:], ']'); e >= 0 {
					end = e + 1
				} else {
					end = -1
				}
			}
			if end < 0 {
				return regexp.MustCompile(`$^`)
			}
			class := p[i+1 : i+1+end]
			neg := strings.HasPrefix(class, "!") || strings.HasPrefix(class, "^")
			if neg {
				class = class[1:]
			}
			b.WriteByte('[')
			if neg {
				b.WriteByte('^')
			}
			for _, r := range class {
				if r == '\\' || r == '[' || r == ']' || r == '^' {
					b.WriteByte('\\')
				}
				b.WriteRune(r)
			}
			b.WriteByte(']')
			i += end + 2
		case p[i] == '{':
			b.WriteString(`(?:`)
			depth++
			i++
		case p[i] == '}' && depth > 0:
			b.WriteString(`)`)
			depth--
			i++
		case p[i] == ',' && depth > 0:
			b.WriteString(`|`)
			i++
		default:
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
			i++
		}
	}
	if depth > 0 {
		return regexp.MustCompile(`$^`)
	}
	b.WriteString(`$`)
	re, err := regexp.Compile(b.String())
	if err != nil {
		return regexp.MustCompile(`$^`)
	}
	return re
}
