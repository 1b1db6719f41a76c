package anchor

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind is the markdown construct a block comes from.
type Kind string

// The kinds of block.
const (
	KindHeading   Kind = "heading"
	KindParagraph Kind = "paragraph"
	KindItem      Kind = "item"
	KindRow       Kind = "row"
	KindCode      Kind = "code"
)

// Doc is an SRD split into sections.
type Doc struct {
	Sections []Section
}

// Section is the text under one heading, down to the next heading.
type Section struct {
	// Key is the section's number, or h<ordinal> (see the package doc).
	Key string
	// Level is the heading's level (1 for #; 0 for the preamble h0) and
	// Parent the index in Doc.Sections of the enclosing section (-1: none).
	Level, Parent int
	// Sentences are the section's units; Sentences[0] is the heading.
	Sentences []Sentence
	// Blocks group the sentences by markdown construct, in order.
	Blocks []Block
}

// Sentence is one unit of a section: its folded text and its block.
type Sentence struct {
	Text  string
	Block int
	// Line is the source line (1-based) of a heading, table row or code
	// line; 0 for a sentence of a paragraph or item (see its block's lines).
	Line int
}

// Block is a heading, paragraph, list item, table row or code block:
// sentences First..Last of its section.
type Block struct {
	Kind        Kind
	First, Last int
	// Indent is a list item's indentation in columns (0 otherwise).
	Indent int
	// Line and EndLine are the block's first and last source lines (1-based).
	Line, EndLine int
}

// Section returns the section with the given key.
func (d *Doc) Section(key string) (*Section, bool) {
	for i := range d.Sections {
		if d.Sections[i].Key == key {
			return &d.Sections[i], true
		}
	}
	return nil, false
}

var (
	headingLine   = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	headingNumber = regexp.MustCompile(`^(\d+(?:\.\d+)*[a-z]?)[.)]?(?:\s|$)`)
	fenceLine     = regexp.MustCompile("^\\s*(```|~~~)")
	itemLine      = regexp.MustCompile(`^(\s*)(?:[*+-]|\d+[.)])\s+(.*)$`)
	ruleLine      = regexp.MustCompile(`^\s*(?:-{3,}|\*{3,}|_{3,})\s*$`)
	separatorRow  = regexp.MustCompile(`^\s*\|[\s|:-]*$`)
	// boldID opens a line or item that defines a requirement ID:
	// **FR-X-01:**, **FR-X-01 (title):**, **C-01**.
	boldID = regexp.MustCompile(`^\*\*[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+[a-z]?\b`)
)

// Parse splits an SRD's markdown into sections and sentences.
func Parse(text string) *Doc {
	p := &parser{doc: &Doc{}, used: map[string]bool{}}
	p.doc.Sections = append(p.doc.Sections, Section{Key: "h0", Parent: -1, Sentences: []Sentence{{Block: 0}}, Blocks: []Block{{Kind: KindHeading}}})
	headings := 0
	inCode := false
	for n, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		p.line = n + 1
		if inCode {
			if fenceLine.MatchString(line) {
				p.closeCode()
				inCode = false
				continue
			}
			if strings.TrimSpace(line) != "" {
				p.codeLine(line)
			}
			continue
		}
		switch {
		case headingLine.MatchString(line):
			p.flush()
			headings++
			m := headingLine.FindStringSubmatch(line)
			p.openSection(len(m[1]), m[2], headings)
		case fenceLine.MatchString(line):
			p.flush()
			p.openCode()
			inCode = true
		case strings.TrimSpace(line) == "" || ruleLine.MatchString(line):
			p.flush()
		case strings.HasPrefix(strings.TrimSpace(line), "|"):
			p.flush()
			if !separatorRow.MatchString(line) {
				p.add(KindRow, 0, p.line, p.line, []string{fold(line)})
			}
		case itemLine.MatchString(line):
			p.flush()
			m := itemLine.FindStringSubmatch(line)
			p.open(KindItem, len(strings.ReplaceAll(m[1], "\t", "    ")), m[2])
		case boldID.MatchString(strings.TrimSpace(line)):
			p.flush()
			p.open(KindParagraph, 0, line)
		case p.pending != nil:
			p.pending.text = append(p.pending.text, line)
			p.pending.end = p.line
		default:
			p.open(KindParagraph, 0, line)
		}
	}
	p.flush()
	if inCode {
		p.closeCode()
	}
	return p.doc
}

type pendingBlock struct {
	kind      Kind
	indent    int
	text      []string
	line, end int
}

type parser struct {
	doc     *Doc
	pending *pendingBlock
	code    *Block
	used    map[string]bool
	line    int // the source line being read
}

func (p *parser) cur() *Section { return &p.doc.Sections[len(p.doc.Sections)-1] }

func (p *parser) openSection(level int, title string, ordinal int) {
	key := ""
	if m := headingNumber.FindStringSubmatch(title); m != nil && !p.used[m[1]] {
		key = m[1]
	}
	if key == "" {
		key = "h" + strconv.Itoa(ordinal)
	}
	p.used[key] = true
	parent := len(p.doc.Sections) - 1
	for parent > 0 && p.doc.Sections[parent].Level >= level {
		parent = p.doc.Sections[parent].Parent
	}
	p.doc.Sections = append(p.doc.Sections, Section{Key: key, Level: level, Parent: parent,
		Sentences: []Sentence{{Text: fold(title), Block: 0, Line: p.line}},
		Blocks:    []Block{{Kind: KindHeading, Line: p.line, EndLine: p.line}}})
}

func (p *parser) open(kind Kind, indent int, first string) {
	p.pending = &pendingBlock{kind: kind, indent: indent, text: []string{first}, line: p.line, end: p.line}
}

func (p *parser) flush() {
	if p.pending == nil {
		return
	}
	b := p.pending
	p.pending = nil
	p.add(b.kind, b.indent, b.line, b.end, Split(fold(strings.Join(b.text, " "))))
}

// add appends a block of the given sentences (none empty) to the section.
func (p *parser) add(kind Kind, indent, line, end int, sentences []string) {
	if len(sentences) == 0 {
		return
	}
	s := p.cur()
	b := Block{Kind: kind, First: len(s.Sentences), Indent: indent, Line: line, EndLine: end}
	for _, t := range sentences {
		sn := Sentence{Text: t, Block: len(s.Blocks)}
		if kind == KindRow {
			sn.Line = line
		}
		s.Sentences = append(s.Sentences, sn)
	}
	b.Last = len(s.Sentences) - 1
	s.Blocks = append(s.Blocks, b)
}

func (p *parser) openCode() { p.code = &Block{Kind: KindCode, First: -1, Line: p.line} }

func (p *parser) codeLine(line string) {
	s := p.cur()
	if p.code.First < 0 {
		p.code.First = len(s.Sentences)
	}
	s.Sentences = append(s.Sentences, Sentence{Text: fold(line), Block: len(s.Blocks), Line: p.line})
	p.code.Last = len(s.Sentences) - 1
	p.code.EndLine = p.line
}

func (p *parser) closeCode() {
	if p.code != nil && p.code.First >= 0 {
		p.cur().Blocks = append(p.cur().Blocks, *p.code)
	}
	p.code = nil
}

// fold folds white space: runs become one space, the ends are trimmed.
func fold(s string) string { return strings.Join(strings.Fields(s), " ") }

var abbreviations = map[string]bool{"e.g": true, "i.e": true, "etc": true, "vs": true, "cf": true}

// Split splits folded paragraph text into sentences by the rule of the
// package doc.
func Split(text string) []string {
	var out []string
	start := 0
	inCode := false
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		i += n
		switch {
		case r == '`':
			inCode = !inCode
			continue
		case inCode:
			continue
		case r == '。' || r == '！' || r == '？':
			end := skipClosers(text, i)
			out = appendSentence(out, text[start:end])
			start = end
			i = end
			continue
		case r != '.' && r != '!' && r != '?':
			continue
		}
		if r == '.' && abbreviations[strings.ToLower(lastWord(text[start:i-1]))] {
			continue
		}
		end := skipClosers(text, i)
		if end >= len(text) || text[end] != ' ' {
			continue
		}
		next, _ := utf8.DecodeRuneInString(text[end+1:])
		if unicode.IsLower(next) {
			continue
		}
		out = appendSentence(out, text[start:end])
		start = end + 1
		i = end + 1
	}
	return appendSentence(out, text[start:])
}

func appendSentence(out []string, s string) []string {
	if s = strings.TrimSpace(s); s != "" {
		out = append(out, s)
	}
	return out
}

// skipClosers returns the index after the closing punctuation at text[i:].
func skipClosers(text string, i int) int {
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !strings.ContainsRune(`)"'*]”’）`, r) {
			break
		}
		i += n
	}
	return i
}

// lastWord is the run of letters and dots that text ends with.
func lastWord(text string) string {
	i := len(text)
	for i > 0 {
		c := text[i-1]
		if c != '.' && !('a' <= c && c <= 'z') && !('A' <= c && c <= 'Z') {
			break
		}
		i--
	}
	return text[i:]
}

// Fingerprint is "sha256:" and the first 16 hex digits of the SHA-256 of
// the texts joined with "\n".
func Fingerprint(texts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(texts, "\n")))
	return "sha256:" + hex.EncodeToString(sum[:])[:16]
}
