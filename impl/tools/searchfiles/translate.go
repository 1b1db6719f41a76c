package searchfiles

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
)

// extQuery is what an external backend runs for one request: the
// arguments that select the engine and the pattern (I-SF-21). The search
// input is appended by the caller.
type extQuery struct {
	backend string
	args    []string // the stdin mode's whole command line (external.go)
	// pattern is the engine flags and the --regexp arguments alone, which
	// the direct mode (direct.go) puts on a command line of its own.
	pattern []string
	// bom: ugrep, and the query can match U+FEFF, which ugrep never sees
	// at a file's start (direct.go).
	bom bool
	// endAnchor: the query holds $ or \z, whose matches a line's
	// terminator CR can hide from a search of the file's raw bytes.
	endAnchor bool
	path      string // the checked binary, set at call time (I-SF-15)
	pcre2     bool   // rg must have its PCRE2 engine (rg --pcre2-version)
}

// endThenBegin reports whether a ^ or \A of re can follow one of its $ or
// \z: later in a concatenation, or in a loop body that holds both.
func endThenBegin(re *syntax.Regexp) bool {
	has := func(re *syntax.Regexp, ops ...syntax.Op) bool {
		var walk func(*syntax.Regexp) bool
		walk = func(n *syntax.Regexp) bool {
			if slices.Contains(ops, n.Op) {
				return true
			}
			return slices.ContainsFunc(n.Sub, walk)
		}
		return walk(re)
	}
	hasEnd := func(n *syntax.Regexp) bool { return has(n, syntax.OpEndLine, syntax.OpEndText) }
	hasBegin := func(n *syntax.Regexp) bool { return has(n, syntax.OpBeginLine, syntax.OpBeginText) }
	switch re.Op {
	case syntax.OpConcat:
		seenEnd := false
		for _, s := range re.Sub {
			if seenEnd && hasBegin(s) {
				return true
			}
			seenEnd = seenEnd || hasEnd(s)
		}
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		if hasEnd(re.Sub[0]) && hasBegin(re.Sub[0]) {
			return true
		}
	}
	return slices.ContainsFunc(re.Sub, endThenBegin)
}

// hasWordBoundary reports whether re holds \b or \B.
func hasWordBoundary(re *syntax.Regexp) bool {
	if re.Op == syntax.OpWordBoundary || re.Op == syntax.OpNoWordBoundary {
		return true
	}
	for _, s := range re.Sub {
		if hasWordBoundary(s) {
			return true
		}
	}
	return false
}

// Engines of the external backends.
const (
	flavorRust = iota // rg's default engine (Rust regex)
	flavorPCRE        // ugrep -P (PCRE2, UTF and UCP)
)

// newExtQuery translates a validated exact or regex query for backend
// (I-SF-21). The pattern handed to the binary is generated from Go's parse
// tree in a form every engine reads the same way: characters as \x{...},
// case folding expanded into explicit classes (the search itself is
// always case-sensitive), '.' and classes without the line feed, line
// anchors for ^ $ \A \z, and ASCII word boundaries. Queries whose meaning
// the engine cannot reproduce are BadArgs (I-SF-22).
func newExtQuery(backend, mode, query string, fold bool) (*extQuery, error) {
	q := &extQuery{backend: backend}
	literal := mode == modeExact && !fold && !strings.ContainsAny(query, "\n\x00")
	switch backend {
	case backendRg:
		// --no-config: no RIPGREP_CONFIG_PATH; -E none: no BOM sniffing or
		// transcoding; -a: no binary detection (the input never holds a
		// NUL); -o -b: one "offset:text" line per match.
		q.args = []string{"--no-config", "--no-filename", "--no-heading", "--no-line-number",
			"--color=never", "--only-matching", "--byte-offset", "--text", "--encoding=none",
			"--case-sensitive", "--regex-size-limit=256M", "--dfa-size-limit=256M"}
	case backendUgrep:
		// --format "%b %d": offset and byte length of each match.
		q.args = []string{"--color=never", "--binary-files=text", "--no-messages",
			"--format=%b %d%~"}
	}
	if literal {
		q.with("--fixed-strings", query)
		q.bom = backend == backendUgrep && strings.ContainsRune(query, bomRune)
		return q, nil
	}
	pat := query
	if mode == modeExact {
		pat = regexp.QuoteMeta(query)
	}
	if fold {
		pat = "(?i)" + pat
	}
	re, err := syntax.Parse(pat, syntax.Perl)
	if err != nil { // already reported by newMatcher
		return nil, badArgs("query is not a valid regular expression (RE2 syntax): %s", regexError(err))
	}
	if what := loopOverNullable(re); what != "" {
		return nil, badArgs("query %s repeats %q, which can match the empty string; the %s backend's engine orders such matches differently from RE2 (I-SF-22): rewrite the repetition so that each repeated part consumes a character, or set [tools.search_files] backend = \"native\"",
			strconvQuote(query), what, backend)
	}
	if backend == backendRg && endThenBegin(re) {
		return nil, badArgs("query %s puts a start-of-line anchor after an end-of-line anchor; rg's engine does not match such empty-line patterns as RE2 does (I-SF-22): use ^$ for an empty line, or set [tools.search_files] backend = \"native\"",
			strconvQuote(query))
	}
	q.bom = backend == backendUgrep && matchesRune(re, bomRune)
	q.endAnchor = hasOp(re, syntax.OpEndLine, syntax.OpEndText)
	fl := flavorRust
	switch {
	case backendUgrep == backend:
		fl = flavorPCRE
		if nullable(re) {
			return nil, badArgs("query %s can match the empty string; ugrep reports empty matches differently from RE2 (I-SF-22): make the pattern consume at least one character, or set [tools.search_files] backend = \"native\" or \"rg\"",
				strconvQuote(query))
		}
		q.pattern = append(q.pattern, "--perl-regexp")
	case hasWordBoundary(re):
		// rg 13's default engine loses \b and \B matches that start where
		// the previous match ended (I-SF-21): such patterns run on rg's
		// PCRE2 engine, with the boundaries spelled as look-around.
		fl = flavorPCRE
		q.pcre2 = true
		if nullable(re) {
			// Stepping past an empty match lands inside a character,
			// where rg's PCRE2 refuses to look behind.
			return nil, badArgs("query %s holds \\b or \\B and can match the empty string; rg cannot search such patterns as RE2 does (I-SF-22): make the pattern consume at least one character, or set [tools.search_files] backend = \"native\"",
				strconvQuote(query))
		}
		q.pattern = append(q.pattern, "--pcre2")
	}
	var b strings.Builder
	emit(&b, re, fl)
	q.with("", b.String())
	return q, nil
}

func strconvQuote(s string) string { return fmt.Sprintf("%q", s) }

// with appends the pattern (after flag, if any) and stdin as the input.
func (q *extQuery) with(flag, pattern string) {
	if flag != "" {
		q.pattern = append(q.pattern, flag)
	}
	q.pattern = append(q.pattern, "--regexp="+pattern)
	q.args = append(append(q.args, q.pattern...), "-")
}

// nullable reports whether re can match the empty string somewhere: the
// zero-width assertions count as empty.
func nullable(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpNoMatch, syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return false
	case syntax.OpLiteral:
		return len(re.Rune) == 0
	case syntax.OpCapture, syntax.OpPlus:
		return nullable(re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		return true
	case syntax.OpRepeat:
		return re.Min == 0 || nullable(re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !nullable(s) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if nullable(s) {
				return true
			}
		}
		return false
	}
	return true // OpEmptyMatch and the assertions
}

// loopOverNullable returns the text of a repetition whose body can match
// the empty string ("(|a)*"), or "". RE2 and backtracking or Rust engines
// disagree on where such loops stop.
func loopOverNullable(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		if nullable(re.Sub[0]) {
			return re.String()
		}
	}
	for _, s := range re.Sub {
		if w := loopOverNullable(s); w != "" {
			return w
		}
	}
	return ""
}

// asciiWord is RE2's \w, the class its \b and \B test.
const asciiWord = `[0-9A-Za-z_]`

// emit writes re in the engine-neutral form of newExtQuery.
func emit(b *strings.Builder, re *syntax.Regexp, fl int) {
	switch re.Op {
	case syntax.OpNoMatch:
		never(b, fl)
	case syntax.OpEmptyMatch:
		if fl == flavorRust {
			b.WriteString("(?:)")
		} else {
			b.WriteString(`(?:\x{0}){0}`) // ugrep's parser refuses (?:) in alternations
		}
	case syntax.OpLiteral:
		b.WriteString("(?:")
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 {
				class(b, orbit(r), fl)
			} else {
				char(b, r, fl)
			}
		}
		b.WriteString(")")
	case syntax.OpCharClass:
		class(b, re.Rune, fl)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		class(b, []rune{0, unicode.MaxRune}, fl)
	case syntax.OpBeginLine, syntax.OpBeginText:
		if fl == flavorRust {
			b.WriteString("(?m:^)")
		} else {
			// Not ^: ugrep's own pattern parser rejects it inside groups.
			b.WriteString(`(?<![^\x{A}])`)
		}
	case syntax.OpEndLine, syntax.OpEndText:
		if fl == flavorRust {
			b.WriteString("(?m:$)")
		} else {
			b.WriteString(`(?![^\x{A}])`)
		}
	case syntax.OpWordBoundary:
		if fl == flavorRust {
			b.WriteString(`(?-u:\b)`)
		} else {
			b.WriteString(`(?:(?<=` + asciiWord + `)(?!` + asciiWord + `)|(?<!` + asciiWord + `)(?=` + asciiWord + `))`)
		}
	case syntax.OpNoWordBoundary:
		if fl == flavorRust {
			b.WriteString(`(?-u:\B)`)
		} else {
			b.WriteString(`(?:(?<=` + asciiWord + `)(?=` + asciiWord + `)|(?<!` + asciiWord + `)(?!` + asciiWord + `))`)
		}
	case syntax.OpCapture:
		b.WriteString("(?:")
		emit(b, re.Sub[0], fl)
		b.WriteString(")")
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		b.WriteString("(?:")
		emit(b, re.Sub[0], fl)
		b.WriteString(")")
		switch re.Op {
		case syntax.OpStar:
			b.WriteString("*")
		case syntax.OpPlus:
			b.WriteString("+")
		case syntax.OpQuest:
			b.WriteString("?")
		default:
			switch {
			case re.Max == -1:
				fmt.Fprintf(b, "{%d,}", re.Min)
			case re.Max == re.Min:
				fmt.Fprintf(b, "{%d}", re.Min)
			default:
				fmt.Fprintf(b, "{%d,%d}", re.Min, re.Max)
			}
		}
		if re.Flags&syntax.NonGreedy != 0 {
			b.WriteString("?")
		}
	case syntax.OpConcat:
		b.WriteString("(?:")
		for _, s := range re.Sub {
			emit(b, s, fl)
		}
		b.WriteString(")")
	case syntax.OpAlternate:
		b.WriteString("(?:")
		for i, s := range re.Sub {
			if i > 0 {
				b.WriteString("|")
			}
			emit(b, s, fl)
		}
		b.WriteString(")")
	default:
		never(b, fl)
	}
}

// never writes a pattern that matches nothing: what a line feed (never
// inside a line, I-SF-06) or an empty class becomes.
func never(b *strings.Builder, fl int) {
	if fl == flavorRust {
		b.WriteString(`(?:(?-u:\b)(?-u:\B))`) // rg refuses empty classes
	} else {
		b.WriteString(`(?:(?!a)a)`) // ugrep refuses (?!)
	}
}

// char writes one character: ASCII letters and digits as themselves,
// everything else as \x{...}.
func char(b *strings.Builder, r rune, fl int) {
	switch {
	case r == '\n' || (0xD800 <= r && r <= 0xDFFF):
		never(b, fl)
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		b.WriteRune(r)
	default:
		fmt.Fprintf(b, `\x{%X}`, r)
	}
}

// orbit is the class of the characters equal to r under simple case
// folding (I-SF-07), as sorted ranges.
func orbit(r rune) []rune {
	set := []rune{r}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		set = append(set, f)
	}
	var out []rune
	slices.Sort(set)
	for _, c := range set {
		out = append(out, c, c)
	}
	return out
}

// class writes the class of the sorted range pairs ranges without the line
// feed and the surrogates, which no line holds; an empty class is never.
func class(b *strings.Builder, ranges []rune, fl int) {
	var out []rune
	cut := func(lo, hi, a, z rune) [][2]rune { // [lo,hi] minus [a,z]
		var parts [][2]rune
		if lo < a {
			parts = append(parts, [2]rune{lo, min(hi, a-1)})
		}
		if hi > z {
			parts = append(parts, [2]rune{max(lo, z+1), hi})
		}
		if hi < a || lo > z {
			return [][2]rune{{lo, hi}}
		}
		return parts
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		for _, p := range cut(ranges[i], ranges[i+1], '\n', '\n') {
			for _, q := range cut(p[0], p[1], 0xD800, 0xDFFF) {
				out = append(out, q[0], q[1])
			}
		}
	}
	if len(out) == 0 {
		never(b, fl)
		return
	}
	b.WriteString("[")
	for i := 0; i < len(out); i += 2 {
		fmt.Fprintf(b, `\x{%X}`, out[i])
		if out[i+1] != out[i] {
			fmt.Fprintf(b, `-\x{%X}`, out[i+1])
		}
	}
	b.WriteString("]")
}

// bomRune is U+FEFF, the character a UTF-8 byte order mark encodes.
const bomRune = '\uFEFF'

// matchesRune reports whether some match of re can hold the character r.
func matchesRune(re *syntax.Regexp, r rune) bool {
	switch re.Op {
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return true
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			if c == r || (re.Flags&syntax.FoldCase != 0 && slices.Contains(orbit(c), r)) {
				return true
			}
		}
		return false
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= r && r <= re.Rune[i+1] {
				return true
			}
		}
		return false
	}
	return slices.ContainsFunc(re.Sub, func(s *syntax.Regexp) bool { return matchesRune(s, r) })
}

// hasOp reports whether re or one of its parts is one of ops.
func hasOp(re *syntax.Regexp, ops ...syntax.Op) bool {
	return slices.Contains(ops, re.Op) || slices.ContainsFunc(re.Sub, func(s *syntax.Regexp) bool { return hasOp(s, ops...) })
}
