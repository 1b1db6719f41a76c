package searchfiles

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// This file implements the gitignore rules of FR-SF-SRC-06 as I-SF-10
// describes them: the pattern syntax of gitignore(5), last match wins
// within a file, deeper files override shallower ones, .git/info/exclude
// ranks below every .gitignore, and nothing below an ignored directory is
// seen (the walker never enters it).

// ignoreRule is one pattern line.
type ignoreRule struct {
	negate   bool // "!pattern": a match re-includes
	dirOnly  bool // "pattern/": matches directories only
	anchored bool // holds a "/" before its end: matched against the path relative to the file's directory
	// segs are the pattern's "/"-separated parts when anchored; otherwise
	// segs[0] is matched against the last path component.
	segs []string
}

// ignoreFile is the rules of one .gitignore or info/exclude file. depth is
// the number of path components from the top of the walker's frame to the
// directory the patterns are relative to.
type ignoreFile struct {
	depth int
	rules []ignoreRule
}

// ignoreStack holds the files in effect for a directory's entries, lowest
// precedence first.
type ignoreStack []*ignoreFile

// ignored reports whether the entry whose components from the frame's top
// are comps is ignored: the files are consulted from the highest
// precedence down, each from its last rule up, and the first rule that
// matches decides.
func (s ignoreStack) ignored(comps []string, isDir bool) bool {
	for i := len(s) - 1; i >= 0; i-- {
		f := s[i]
		if len(comps) <= f.depth {
			continue // never the case for entries below the file's directory
		}
		rel := comps[f.depth:]
		for k := len(f.rules) - 1; k >= 0; k-- {
			if r := &f.rules[k]; r.matches(rel, isDir) {
				return !r.negate
			}
		}
	}
	return false
}

// matches reports whether r matches the path rel (components relative to
// the rule's directory, at least one).
func (r *ignoreRule) matches(rel []string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	if !r.anchored {
		return wildmatch(r.segs[0], rel[len(rel)-1])
	}
	return matchSegments(r.segs, rel)
}

// matchSegments matches pattern segments against path components. A "**"
// segment matches zero or more components, except as the last segment
// ("dir/**"), where it matches one or more: everything inside, not the
// directory itself.
func matchSegments(p, t []string) bool {
	for len(p) > 0 {
		if p[0] == "**" {
			if len(p) == 1 {
				return len(t) >= 1
			}
			for k := 0; k <= len(t); k++ {
				if matchSegments(p[1:], t[k:]) {
					return true
				}
			}
			return false
		}
		if len(t) == 0 || !wildmatch(p[0], t[0]) {
			return false
		}
		p, t = p[1:], t[1:]
	}
	return len(t) == 0
}

// utf8BOM is skipped at the start of an ignore file, as git does.
var utf8BOM = []byte("\xEF\xBB\xBF")

// parseIgnore reads the patterns of an ignore file whose directory is
// depth components below the frame's top.
func parseIgnore(data []byte, depth int) *ignoreFile {
	f := &ignoreFile{depth: depth}
	data = bytes.TrimPrefix(data, utf8BOM)
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if r, ok := parseRule(string(line)); ok {
			f.rules = append(f.rules, r)
		}
	}
	return f
}

// parseRule turns one line into a rule; blank lines, comments and lines
// left empty by the steps below give none.
func parseRule(line string) (ignoreRule, bool) {
	var r ignoreRule
	if line == "" || line[0] == '#' {
		return r, false
	}
	line = trimTrailingSpaces(line)
	if strings.HasPrefix(line, "!") {
		r.negate, line = true, line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly, line = true, line[:len(line)-1]
	}
	if line == "" {
		return r, false
	}
	if strings.Contains(line, "/") {
		r.anchored = true
		r.segs = strings.Split(strings.TrimPrefix(line, "/"), "/")
	} else {
		r.segs = []string{line}
	}
	return r, true
}

// trimTrailingSpaces drops the spaces (U+0020 only) that end line, unless
// a backslash escapes them: "a\ " keeps "a\ ", which matches "a ".
func trimTrailingSpaces(line string) string {
	cut := -1 // start of the current run of unescaped trailing spaces
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			if cut < 0 {
				cut = i
			}
		case '\\':
			i++
			if i == len(line) {
				return line
			}
			cut = -1
		default:
			cut = -1
		}
	}
	if cut >= 0 {
		return line[:cut]
	}
	return line
}

// wildmatch matches one path component against one pattern segment: "*"
// is any run of characters, "?" one character (a UTF-8 sequence, or one
// byte that is not part of one), "[...]" a bracket expression (negated by
// a leading "!" or "^", with ranges, backslash escapes and the POSIX
// classes [:alpha:] and so on), "\x" the character x, anything else
// itself. A malformed bracket makes the pattern match nothing, as in git.
func wildmatch(p, s string) bool {
	px, sx := 0, 0
	starP, starS := -1, 0 // the last "*" seen and the text offset it resumes at
	for px < len(p) || sx < len(s) {
		if px < len(p) {
			switch c := p[px]; c {
			case '*':
				for px < len(p) && p[px] == '*' {
					px++
				}
				starP, starS = px, sx
				continue
			case '?':
				if sx < len(s) {
					_, w := utf8.DecodeRuneInString(s[sx:])
					px, sx = px+1, sx+w
					continue
				}
			case '[':
				if sx < len(s) {
					r, w := utf8.DecodeRuneInString(s[sx:])
					ok, next, valid := matchBracket(p, px, r)
					if !valid {
						return false
					}
					if ok {
						px, sx = next, sx+w
						continue
					}
				}
			case '\\':
				if px+1 >= len(p) {
					return false // a trailing backslash matches nothing
				}
				_, w := utf8.DecodeRuneInString(p[px+1:])
				lit := p[px+1 : px+1+w]
				if strings.HasPrefix(s[sx:], lit) {
					px, sx = px+1+w, sx+len(lit)
					continue
				}
			default:
				if sx < len(s) && s[sx] == c {
					px, sx = px+1, sx+1
					continue
				}
			}
		}
		if starP >= 0 && starS < len(s) {
			_, w := utf8.DecodeRuneInString(s[starS:])
			starS += w
			px, sx = starP, starS
			continue
		}
		return false
	}
	return true
}

// matchBracket matches r against the bracket expression starting at
// p[open] == '['. It returns whether r matches, the offset after the
// closing ']', and whether the expression is well formed.
func matchBracket(p string, open int, r rune) (ok bool, next int, valid bool) {
	i := open + 1
	negate := false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		negate, i = true, i+1
	}
	first := true
	for i < len(p) {
		c := p[i]
		if c == ']' && !first {
			return ok != negate, i + 1, true
		}
		first = false
		if c == '[' && i+1 < len(p) && p[i+1] == ':' {
			end := strings.Index(p[i+2:], ":]")
			if end < 0 {
				return false, 0, false
			}
			in, known := posixClass(p[i+2:i+2+end], r)
			if !known {
				return false, 0, false
			}
			ok = ok || in
			i += 2 + end + 2
			continue
		}
		lo, w := bracketChar(p, i)
		if w == 0 {
			return false, 0, false
		}
		i += w
		hi := lo
		if i+1 < len(p) && p[i] == '-' && p[i+1] != ']' {
			var w2 int
			hi, w2 = bracketChar(p, i+1)
			if w2 == 0 {
				return false, 0, false
			}
			i += 1 + w2
		}
		if lo <= r && r <= hi {
			ok = true
		}
	}
	return false, 0, false // no closing ']'
}

// bracketChar decodes the (possibly backslash-escaped) character at p[i]
// and returns it with the bytes it took; 0 bytes means the pattern ends.
func bracketChar(p string, i int) (rune, int) {
	if p[i] == '\\' {
		if i+1 >= len(p) {
			return 0, 0
		}
		r, w := utf8.DecodeRuneInString(p[i+1:])
		return r, 1 + w
	}
	r, w := utf8.DecodeRuneInString(p[i:])
	return r, w
}

// posixClass tests r against a POSIX character class (ASCII meaning, as in
// git's wildmatch) and reports whether the class name is known.
func posixClass(name string, r rune) (in, known bool) {
	ascii := r < utf8.RuneSelf
	lower := 'a' <= r && r <= 'z'
	upper := 'A' <= r && r <= 'Z'
	digit := '0' <= r && r <= '9'
	switch name {
	case "alnum":
		return lower || upper || digit, true
	case "alpha":
		return lower || upper, true
	case "blank":
		return r == ' ' || r == '\t', true
	case "cntrl":
		return ascii && (r < 0x20 || r == 0x7f), true
	case "digit":
		return digit, true
	case "graph":
		return r > 0x20 && r < 0x7f, true
	case "lower":
		return lower, true
	case "print":
		return r >= 0x20 && r < 0x7f, true
	case "punct":
		return r > 0x20 && r < 0x7f && !lower && !upper && !digit, true
	case "space":
		return r == ' ' || ('\t' <= r && r <= '\r'), true
	case "upper":
		return upper, true
	case "xdigit":
		return digit || ('a' <= r && r <= 'f') || ('A' <= r && r <= 'F'), true
	}
	return false, false
}
