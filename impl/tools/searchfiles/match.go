package searchfiles

import (
	"bytes"
	"errors"
	"regexp"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// span is one match inside a line: the byte offsets [start, end) of the
// matched text and, in fuzzy mode, its score.
type span struct {
	start, end int
	score      float64
}

// matcher finds matches line by line (FR-SF-SRC-01..03). Implementations
// are immutable and safe for concurrent use; per-goroutine buffers live in
// a scratch.
type matcher interface {
	// next returns an offset >= from in buf such that no line ending
	// before it holds a match, or -1 when no line at or after from can
	// hold one. It lets a file be skipped without visiting its lines.
	next(buf []byte, from int) int
	// find appends to dst the matches in line (its text without the line
	// terminator), left to right, at most n of them.
	find(line []byte, n int, dst []span, sc *scratch) []span
	// fuzzy reports whether matches carry a score.
	fuzzy() bool
}

// scratch holds the buffers of one worker.
type scratch struct {
	buf   []byte  // file content
	runes []rune  // fuzzy: the line's characters, case-folded if needed
	offs  []int   // fuzzy: byte offset of each character, plus the line length
	rows  []int32 // fuzzy: the two distance rows and the two start rows
	spans []span
}

// newMatcher builds the matcher of a validated request and reports whether
// the search ignores case (I-SF-07). An invalid regular expression is
// BadArgs (FR-SF-SRC-02).
func newMatcher(mode, caseMode, query string, threshold float64) (matcher, bool, error) {
	var fold bool
	switch caseMode {
	case caseInsensitive:
		fold = true
	case caseSmart:
		fold = !hasUpper(mode, query)
	}
	switch mode {
	case modeRegex:
		re, err := regexp.Compile(query)
		if err != nil {
			return nil, fold, badArgs("query is not a valid regular expression (RE2 syntax): %s; fix the pattern or use mode \"exact\"", regexError(err))
		}
		if fold {
			// The query compiled on its own, so it closes every group it
			// opens and the flag covers all of it.
			re = regexp.MustCompile("(?i)" + query)
		}
		return newRegexMatcher(re), fold, nil
	case modeFuzzy:
		q := []rune(query)
		if fold {
			for i, r := range q {
				q[i] = foldRune(r)
			}
		}
		return fuzzyMatcher{query: q, fold: fold, threshold: threshold}, fold, nil
	}
	if !fold {
		return newExactMatcher([]byte(query)), fold, nil
	}
	if lower, ok := asciiFoldable(query); ok {
		return foldASCIIMatcher{q: lower, rare: rareOffsetFold(lower)}, fold, nil
	}
	return newRegexMatcher(regexp.MustCompile("(?i)" + regexp.QuoteMeta(query))), fold, nil
}

// regexError is the problem an invalid pattern has, without Go's
// "error parsing regexp: " prefix.
func regexError(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return se.Code.String() + ": `" + se.Expr + "`"
	}
	return err.Error()
}

// hasUpper is the smart-case test (I-SF-07): in exact and fuzzy mode,
// whether the query holds an upper-case letter (Unicode Lu, as Rust's
// char::is_uppercase for letters); in regex mode, whether a literal
// character of the parsed pattern is one, so that escapes such as \S or
// \W and class names do not count.
func hasUpper(mode, query string) bool {
	if mode != modeRegex {
		for _, r := range query {
			if unicode.IsUpper(r) {
				return true
			}
		}
		return false
	}
	re, err := syntax.Parse(query, syntax.Perl)
	if err != nil {
		return false // reported by the compile that follows
	}
	var walk func(*syntax.Regexp) bool
	walk = func(n *syntax.Regexp) bool {
		if n.Op == syntax.OpLiteral {
			for _, r := range n.Rune {
				if unicode.IsUpper(r) {
					return true
				}
			}
		}
		for _, s := range n.Sub {
			if walk(s) {
				return true
			}
		}
		return false
	}
	return walk(re)
}

// foldRune maps r to the smallest character of its simple case-folding
// orbit (unicode.SimpleFold), so two characters are equal ignoring case
// exactly when their foldRune values are equal. This is the equivalence
// RE2's (?i) uses.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		return rune(asciiFold[r])
	}
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return least
}

// asciiFold maps each ASCII character to foldRune of it; asciiSafe marks
// the ASCII characters whose whole orbit is ASCII ('k' and 's' are not:
// U+212A KELVIN SIGN and U+017F LONG S fold with them).
var asciiFold, asciiSafe = func() (fold [utf8.RuneSelf]byte, safe [utf8.RuneSelf]bool) {
	for c := range rune(utf8.RuneSelf) {
		least, ok := c, true
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			least = min(least, f)
			ok = ok && f < utf8.RuneSelf
		}
		fold[c], safe[c] = byte(least), ok
	}
	return
}()

// asciiLower maps ASCII upper-case letters to lower case, every other byte
// to itself.
var asciiLower = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] += 'a' - 'A'
		}
	}
	return
}()

// asciiFoldable reports whether a case-insensitive search for query can be
// done byte by byte: every character is ASCII and folds only with ASCII
// characters, so every match is ASCII text too. It returns the query in
// lower case.
func asciiFoldable(query string) ([]byte, bool) {
	q := make([]byte, len(query))
	for i := 0; i < len(query); i++ {
		c := query[i]
		if c >= utf8.RuneSelf || !asciiSafe[c] {
			return nil, false
		}
		q[i] = asciiLower[c]
	}
	return q, true
}

// allLines is the prefilter of matchers that must look at every line.
func allLines(buf []byte, from int) int {
	if from < len(buf) {
		return from
	}
	return -1
}

// exactMatcher finds a literal, case-sensitive substring (FR-SF-SRC-01).
type exactMatcher struct {
	q    []byte
	rare int // rareOffset(q)
}

func newExactMatcher(q []byte) exactMatcher { return exactMatcher{q: q, rare: rareOffset(q)} }

func (m exactMatcher) next(buf []byte, from int) int {
	if from >= len(buf) {
		return -1
	}
	i := indexRare(buf[from:], m.q, m.rare)
	if i < 0 {
		return -1
	}
	return from + i
}

// find reports the non-overlapping occurrences, leftmost first.
func (m exactMatcher) find(line []byte, n int, dst []span, _ *scratch) []span {
	for off := 0; n > 0; n-- {
		i := indexRare(line[off:], m.q, m.rare)
		if i < 0 {
			break
		}
		dst = append(dst, span{start: off + i, end: off + i + len(m.q)})
		off += i + len(m.q)
	}
	return dst
}

func (exactMatcher) fuzzy() bool { return false }

// foldASCIIMatcher finds a literal ignoring case when asciiFoldable holds;
// it gives the same matches as the (?i) regular expression of the literal.
type foldASCIIMatcher struct {
	q    []byte // lower case
	rare int    // rareOffsetFold(q)
}

func (m foldASCIIMatcher) next(buf []byte, from int) int {
	if from >= len(buf) {
		return -1
	}
	i := indexFoldASCII(buf[from:], m.q, m.rare)
	if i < 0 {
		return -1
	}
	return from + i
}

func (m foldASCIIMatcher) find(line []byte, n int, dst []span, _ *scratch) []span {
	for off := 0; n > 0; n-- {
		i := indexFoldASCII(line[off:], m.q, m.rare)
		if i < 0 {
			break
		}
		dst = append(dst, span{start: off + i, end: off + i + len(m.q)})
		off += i + len(m.q)
	}
	return dst
}

func (foldASCIIMatcher) fuzzy() bool { return false }

// indexFoldASCII returns the first offset of q (ASCII, lower case) in s
// ignoring ASCII case, or -1. Candidates are found with bytes.IndexByte
// for each of the two cases of q[rare] (literal.go: the rarest); each
// search result is kept until passed, so the scan stays linear in the
// stops.
func indexFoldASCII(s, q []byte, rare int) int {
	last := len(s) - len(q) // the last offset a match can start at
	if last < 0 {
		return -1
	}
	lo := q[rare]
	hi := lo
	if 'a' <= lo && lo <= 'z' {
		hi = lo - ('a' - 'A')
	}
	nextLo, nextHi := -2, -2 // -2: not searched yet; -1: none left
	// find returns the first start at or after from whose byte at rare
	// is c, or -1.
	find := func(c byte, from int) int {
		i := bytes.IndexByte(s[from+rare:last+rare+1], c)
		if i < 0 {
			return -1
		}
		return from + i
	}
	for off := 0; off <= last; {
		if nextLo != -1 && nextLo < off {
			nextLo = find(lo, off)
		}
		if hi != lo && nextHi != -1 && nextHi < off {
			nextHi = find(hi, off)
		}
		p := nextLo
		if hi != lo && (p < 0 || (nextHi >= 0 && nextHi < p)) {
			p = nextHi
		}
		if p < 0 {
			return -1
		}
		if equalFoldASCII(s[p:p+len(q)], q) {
			return p
		}
		off = p + 1
	}
	return -1
}

// equalFoldASCII reports whether s equals q (lower case) ignoring ASCII case.
func equalFoldASCII(s, q []byte) bool {
	for i, c := range q {
		if asciiLower[s[i]] != c {
			return false
		}
	}
	return true
}

// regexMatcher runs an RE2 expression on each line (FR-SF-SRC-02). When
// every match of the expression holds a literal (case-sensitive only),
// lines without it are skipped: of those literals, the one literal.go
// finds the fewest stops for.
type regexMatcher struct {
	re       *regexp.Regexp
	required exactMatcher
}

func newRegexMatcher(re *regexp.Regexp) regexMatcher {
	return regexMatcher{re: re, required: newExactMatcher(requiredLiteral(re.String()))}
}

func (m regexMatcher) next(buf []byte, from int) int {
	if len(m.required.q) == 0 {
		return allLines(buf, from)
	}
	return m.required.next(buf, from)
}

// requiredLiteral returns a case-sensitive literal that every match of the
// expression src holds, or nil: of the literals of its top-level
// concatenation (through groups and repetitions of at least one), the
// one whose rarest byte is rarest by byteRank, the longer of equals. A
// line that holds a match holds the literal, since a match lies within
// its line.
func requiredLiteral(src string) []byte {
	re, err := syntax.Parse(src, syntax.Perl) // regexp.Compile's flags
	if err != nil {
		return nil
	}
	var best []byte
	bestRank := 256
	var visit func(re *syntax.Regexp)
	visit = func(re *syntax.Regexp) {
		switch re.Op {
		case syntax.OpLiteral:
			if re.Flags&syntax.FoldCase != 0 || len(re.Rune) == 0 {
				return
			}
			lit := []byte(string(re.Rune))
			rank := int(byteRank[lit[rareOffset(lit)]])
			if rank < bestRank || (rank == bestRank && len(lit) > len(best)) {
				best, bestRank = lit, rank
			}
		case syntax.OpCapture, syntax.OpPlus:
			visit(re.Sub[0])
		case syntax.OpRepeat:
			if re.Min >= 1 {
				visit(re.Sub[0])
			}
		case syntax.OpConcat:
			for _, sub := range re.Sub {
				visit(sub)
			}
		}
	}
	visit(re)
	return best
}

// find reports the matches of regexp.FindAllIndex: leftmost-first,
// non-overlapping, and an empty match is not reported right after a
// previous match.
func (m regexMatcher) find(line []byte, n int, dst []span, _ *scratch) []span {
	for _, loc := range m.re.FindAllIndex(line, n) {
		dst = append(dst, span{start: loc[0], end: loc[1]})
	}
	return dst
}

func (regexMatcher) fuzzy() bool { return false }
