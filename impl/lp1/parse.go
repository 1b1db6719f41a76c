package lp1

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	header = "LP1"
	footer = "END"
)

// rawLine is one line of the patch text.
type rawLine struct {
	text string // without its line ending
	nl   bool   // ended by LF or CRLF (false only for the last line)
	bad  string // what is wrong with the line's characters; "" if nothing
}

// splitLines cuts the patch at LF; a CR directly before the LF belongs to the
// line ending (NL := "\n" | "\r\n"). Any other CR, and text that is not
// UTF-8, is noted on its line and reported when the parser reaches it, so
// that the first error in line order wins.
func splitLines(src string) []rawLine {
	var out []rawLine
	for src != "" {
		var l rawLine
		if i := strings.IndexByte(src, '\n'); i >= 0 {
			l.text, l.nl, src = strings.TrimSuffix(src[:i], "\r"), true, src[i+1:]
		} else {
			l.text, src = src, ""
		}
		switch {
		case strings.IndexByte(l.text, '\r') >= 0:
			l.bad = `bare CR: a "\r" not followed by "\n" (lines end with LF or CRLF)`
		case !utf8.ValidString(l.text):
			l.bad = "the line is not valid UTF-8"
		}
		out = append(out, l)
	}
	return out
}

func isOWS(c byte) bool { return c == ' ' || c == '\t' }

func trimOWS(s string) string      { return strings.Trim(s, " \t") }
func trimLeftOWS(s string) string  { return strings.TrimLeft(s, " \t") }
func trimRightOWS(s string) string { return strings.TrimRight(s, " \t") }

// isTerminator reports whether a block row ends the block: /^\.[ \t]*$/.
func isTerminator(row string) bool {
	return row != "" && row[0] == '.' && trimOWS(row[1:]) == ""
}

type parser struct {
	lines []rawLine
	pos   int // index of the next line to read
	opts  Options
}

// next returns the next line and its 1-based number, or an error if the
// line's characters are invalid. The caller checks p.pos < len(p.lines).
func (p *parser) next() (rawLine, int, *Error) {
	l := p.lines[p.pos]
	p.pos++
	if l.bad != "" {
		return l, p.pos, errorf(p.pos, "%s", l.bad)
	}
	return l, p.pos, nil
}

// lastLine is the number of the last patch line (1 for an empty patch).
func (p *parser) lastLine() int { return max(1, len(p.lines)) }

// Parse parses a whole patch. It returns an *Error naming the first patch
// line that does not fit the grammar of LP1.md.
func Parse(src string) (*Patch, error) { return Options{}.Parse(src) }

func (p *parser) patch() (*Patch, *Error) {
	if len(p.lines) == 0 {
		return nil, errorf(1, "empty patch: expected the header %q", header)
	}
	// The header is the very first line: the grammar allows nothing before
	// it (I-LP-03).
	h, n, err := p.next()
	if err != nil {
		return nil, err
	}
	if trimOWS(h.text) != header {
		return nil, errorf(n, "expected the header %q, got %q", header, h.text)
	}
	if !h.nl {
		return nil, errorf(n, "the patch ends after the header without the %q footer", footer)
	}

	patch := &Patch{}
	// closeSection checks that the current section, if any, has an
	// operation (I-LP-01).
	closeSection := func() *Error {
		if k := len(patch.Sections); k > 0 && len(patch.Sections[k-1].Ops) == 0 && !p.opts.EmptySections {
			s := patch.Sections[k-1]
			return errorf(s.Line, "F section %q has no operations (an F line must be followed by at least one command)", s.Path)
		}
		return nil
	}
	for {
		if p.pos >= len(p.lines) {
			return nil, errorf(p.lastLine(), "the patch ends without the %q footer", footer)
		}
		l, n, err := p.next()
		if err != nil {
			return nil, err
		}
		body := trimLeftOWS(l.text)
		switch {
		case trimRightOWS(body) == footer:
			if err := closeSection(); err != nil {
				return nil, err
			}
			if p.pos < len(p.lines) {
				// Not even a blank line may follow (I-LP-03).
				return nil, errorf(p.pos+1, "text after the %q footer (the footer must be the last line)", footer)
			}
			return patch, nil
		case !l.nl:
			// Only the footer may lack a line ending.
			return nil, errorf(n, "the patch ends without the %q footer", footer)
		case trimRightOWS(body) == "", body[0] == '#':
			continue // blank line or comment
		}

		cmd, args, ok := splitCommand(body)
		if !ok {
			return nil, errorf(n, "unknown statement %q: expected a command (F, R, I, P, E, T, B, N), a comment (#), a blank line or %q", trimOWS(l.text), footer)
		}
		if cmd == 'F' {
			if err := closeSection(); err != nil {
				return nil, err
			}
			path, msg := parsePath(trimLeftOWS(args))
			if msg != "" {
				return nil, errorf(n, "F: %s", msg)
			}
			patch.Sections = append(patch.Sections, Section{Path: path, Line: n})
			continue
		}
		if len(patch.Sections) == 0 {
			return nil, errorf(n, "%c command before any F section (start a section with F <path>)", cmd)
		}
		op, err := p.op(OpKind(cmd), args, n)
		if err != nil {
			return nil, err
		}
		s := &patch.Sections[len(patch.Sections)-1]
		s.Ops = append(s.Ops, op)
	}
}

// splitCommand splits a statement (leading OWS removed) into its command
// letter and the rest, which is empty or begins with a space or a tab. It
// fails for anything that is not one of the command letters so delimited.
func splitCommand(body string) (cmd byte, args string, ok bool) {
	if body == "" || !strings.ContainsRune("FRIPETBN", rune(body[0])) {
		return 0, "", false
	}
	if len(body) > 1 && !isOWS(body[1]) {
		return 0, "", false
	}
	return body[0], body[1:], true
}

// parsePath parses path OWS (the F line after "F" WS). It returns the
// decoded path, or a message saying what is wrong.
func parsePath(s string) (string, string) {
	if s == "" {
		return "", "missing path (F needs a space or tab, then the path)"
	}
	if s[0] == '"' {
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			switch c := s[i]; c {
			case '\\':
				if i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					b.WriteByte(s[i+1])
					i++
					continue
				}
				return "", `invalid escape in quoted path: only \" and \\ are allowed`
			case '"':
				if rest := s[i+1:]; trimOWS(rest) != "" {
					return "", "unexpected " + strconv.Quote(trimOWS(rest)) + " after the quoted path"
				}
				return b.String(), ""
			default:
				b.WriteByte(c)
			}
		}
		return "", `unterminated quoted path (no closing ")`
	}
	// A bare path runs up to the first whitespace (Unicode White_Space, as
	// Rust's char::is_whitespace; I-LP-05) or quote.
	end := strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '"' })
	if end < 0 {
		return s, ""
	}
	if s[end] == '"' {
		return "", `a bare path may not contain '"': write it as a quoted path with \"`
	}
	if end == 0 {
		return "", "the path begins with whitespace other than spaces and tabs: write it as a quoted path"
	}
	if rest := s[end:]; trimOWS(rest) != "" {
		return "", "unexpected " + strconv.Quote(trimOWS(rest)) + " after the path " + strconv.Quote(s[:end]) + ": a path containing whitespace must be quoted"
	}
	return s[:end], ""
}

// op parses the rest of a command line and the command's blocks.
func (p *parser) op(kind OpKind, args string, n int) (Op, *Error) {
	op := Op{Kind: kind, Line: n}
	rest := trimOWS(args) // args is empty or begins with WS
	var err *Error
	switch kind {
	case Replace, InsertAfter, InsertBefore, Erase:
		if rest != "" {
			occ, msg := parseOcc(rest)
			if msg != "" {
				return Op{}, errorf(n, "%c: %s", kind, msg)
			}
			op.Occ = occ
		}
		if op.Match, err = p.block(op, "match block"); err != nil {
			return Op{}, err
		}
		if kind != Erase {
			if op.Block, err = p.block(op, "new block"); err != nil {
				return Op{}, err
			}
		}
	case Append, Prepend:
		if rest != "" {
			return Op{}, errorf(n, "%c takes no arguments, got %q", kind, rest)
		}
		if op.Block, err = p.block(op, "block"); err != nil {
			return Op{}, err
		}
	case SetFinalNewline:
		switch rest {
		case "+":
			op.FinalNewline = true
		case "-":
		case "":
			return Op{}, errorf(n, `N needs "+" or "-" after a space or tab`)
		default:
			return Op{}, errorf(n, `N takes "+" or "-", got %q`, rest)
		}
	}
	return op, nil
}

// parseOcc parses an occurrence selector: a positive integer without
// leading zeros, alone on the rest of the line. A number beyond the range of
// int is an error (I-LP-06).
func parseOcc(s string) (int, string) {
	tok, extra := s, ""
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		tok, extra = s[:i], trimLeftOWS(s[i:])
	}
	if tok == "" || tok[0] < '1' || tok[0] > '9' || strings.TrimLeft(tok, "0123456789") != "" {
		return 0, "the occurrence must be a positive integer without leading zeros, got " + strconv.Quote(tok)
	}
	occ, err := strconv.Atoi(tok)
	if err != nil {
		return 0, "the occurrence " + tok + " is too large"
	}
	if extra != "" {
		return 0, "unexpected " + strconv.Quote(extra) + " after the occurrence"
	}
	return occ, ""
}

// block reads a dot-terminated block. Every row up to the terminator is
// content (no comments or blank lines are skipped). The terminator is
// recognised before unstuffing; ".." rows lose one dot; any other row
// beginning with "." is invalid (I-LP-04).
func (p *parser) block(op Op, what string) ([]string, *Error) {
	var rows []string
	for {
		if p.pos >= len(p.lines) {
			return nil, errorf(op.Line, "%c: the %s is not terminated: the patch ends at line %d before a \".\" line", op.Kind, what, p.lastLine())
		}
		l, n, err := p.next()
		if err != nil {
			return nil, err
		}
		if isTerminator(l.text) {
			if !l.nl {
				return nil, errorf(n, "the patch ends without the %q footer", footer)
			}
			return rows, nil
		}
		if !l.nl {
			return nil, errorf(op.Line, "%c: the %s is not terminated: the patch ends at line %d before a \".\" line", op.Kind, what, n)
		}
		row := l.text
		if strings.HasPrefix(row, ".") {
			if !strings.HasPrefix(row, "..") {
				return nil, errorf(n, "%c: %s row %q begins with a single \".\": a content line beginning with \".\" must be written with \"..\", and a block ends with a line holding only \".\"", op.Kind, what, row)
			}
			row = row[1:]
		}
		rows = append(rows, row)
	}
}
