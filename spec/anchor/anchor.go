package anchor

import (
	"fmt"
	"strings"
)

// How an anchor finds its text.
const (
	// ByID: the block of the section that defines the ID (origin "srd"):
	// a list item or paragraph opening with the ID in bold or followed by a
	// colon, a table row whose first cell is the ID, or a heading naming
	// the ID in parentheses. A block ending in ':' takes the list or code
	// block right after it; an item takes its nested items; a heading takes
	// its first body block unless that block defines another ID, and so
	// does a paragraph all in bold naming the ID in parentheses.
	ByID = "id"
	// BySentence: sentences Sentence..Through (Through 0: Sentence alone)
	// of the section, by ordinal (origin "derived").
	BySentence = "sentence"
)

// Anchor records where a requirement's sentence is in its SRD.
type Anchor struct {
	Document string `json:"document"`
	Section  string `json:"section"`
	By       string `json:"by"`
	// Sentence is the first sentence's ordinal in the section (0 is the
	// heading); for ByID it records where the ID was found, for reading.
	Sentence    int    `json:"sentence"`
	Through     int    `json:"through,omitempty"`
	Fingerprint string `json:"fingerprint"`
}

// String is the anchor's locator: "DOC §3.1 sentence 4" (or "4-6").
func (a Anchor) String() string {
	s := fmt.Sprintf("%s §%s", a.Document, a.Section)
	if a.By == ByID {
		return s
	}
	if a.Through > a.Sentence {
		return fmt.Sprintf("%s sentences %d-%d", s, a.Sentence, a.Through)
	}
	return fmt.Sprintf("%s sentence %d", s, a.Sentence)
}

// Status is the outcome of resolving an anchor against a document.
type Status string

// The statuses.
const (
	OK       Status = "ok"
	Changed  Status = "changed"   // found, but its fingerprint differs
	NotFound Status = "not found" // the section, sentence or ID is gone
)

// Result is an anchor resolved against a document.
type Result struct {
	Anchor Anchor
	Status Status
	// Text is the anchored text (sentences joined by a space) when found.
	Text string
	// Fingerprint is the text's fingerprint now.
	Fingerprint string
	// Reason says what was not found.
	Reason string
	// First and Last are the sentences found (when found).
	First, Last int
}

// Resolve finds the text anchor a names for requirement id in d.
func (d *Doc) Resolve(id string, a Anchor) Result {
	res := Result{Anchor: a, Status: NotFound}
	s, ok := d.Section(a.Section)
	if !ok {
		res.Reason = fmt.Sprintf("no section §%s", a.Section)
		return res
	}
	var first, last int
	switch a.By {
	case ByID:
		b, ok := s.definition(id)
		if !ok {
			res.Reason = fmt.Sprintf("§%s no longer defines %s", a.Section, id)
			return res
		}
		first, last = s.span(b)
	case BySentence:
		first, last = a.Sentence, max(a.Through, a.Sentence)
		if first < 0 || last >= len(s.Sentences) {
			res.Reason = fmt.Sprintf("§%s has %d sentences, not %d", a.Section, len(s.Sentences)-1, last)
			return res
		}
	default:
		res.Reason = fmt.Sprintf("unknown anchor kind %q (want %q or %q)", a.By, ByID, BySentence)
		return res
	}
	res.First, res.Last = first, last
	texts := s.texts(first, last)
	res.Text = strings.Join(texts, " ")
	res.Fingerprint = Fingerprint(texts...)
	res.Status = OK
	if res.Fingerprint != a.Fingerprint {
		res.Status = Changed
	}
	return res
}

func (s *Section) texts(first, last int) []string {
	out := make([]string, 0, last-first+1)
	for i := first; i <= last; i++ {
		out = append(out, s.Sentences[i].Text)
	}
	return out
}

// Propose returns the ByID anchor of each id the document defines (see
// ByID), at the first block in document order that defines it.
func (d *Doc) Propose(document string, ids []string) map[string]Anchor {
	out := map[string]Anchor{}
	for _, id := range ids {
	sections:
		for _, s := range d.Sections {
			if b, ok := s.definition(id); ok {
				first, last := s.span(b)
				out[id] = Anchor{Document: document, Section: s.Key, By: ByID, Sentence: first,
					Fingerprint: Fingerprint(s.texts(first, last)...)}
				break sections
			}
		}
	}
	return out
}

// At returns the BySentence anchor of sentences first..last of a section,
// with the fingerprint of their text now.
func (d *Doc) At(document, section string, first, last int) (Anchor, error) {
	s, ok := d.Section(section)
	if !ok {
		return Anchor{}, fmt.Errorf("%s has no section §%s", document, section)
	}
	if first < 0 || last < first || last >= len(s.Sentences) {
		return Anchor{}, fmt.Errorf("%s §%s has sentences 0-%d, not %d-%d", document, section, len(s.Sentences)-1, first, last)
	}
	a := Anchor{Document: document, Section: section, By: BySentence, Sentence: first, Fingerprint: Fingerprint(s.texts(first, last)...)}
	if last > first {
		a.Through = last
	}
	return a, nil
}

// definition returns the index of the block of s that defines id.
func (s *Section) definition(id string) (int, bool) {
	paren := "(" + id + ")"
	for i, b := range s.Blocks {
		t := s.Sentences[b.First].Text
		switch b.Kind {
		case KindItem, KindParagraph:
			if opensWith(t, id) || b.Kind == KindParagraph && boldTitle(t) && strings.Contains(t, paren) {
				return i, true
			}
		case KindRow:
			cell, _, _ := strings.Cut(strings.Trim(t, "| "), "|")
			if strings.Trim(cell, " *`") == id {
				return i, true
			}
		case KindHeading:
			if strings.Contains(t, paren) {
				return i, true
			}
		}
	}
	return 0, false
}

// opensWith reports whether t opens with id in bold (**ID:**, **ID**,
// **ID (title):**) or with "ID:".
func opensWith(t, id string) bool {
	if rest, ok := strings.CutPrefix(t, "**"+id); ok {
		return rest == "" || strings.ContainsRune("*: (", rune(rest[0]))
	}
	return strings.HasPrefix(t, id+":")
}

// span returns the sentences a defining block covers (see ByID).
func (s *Section) span(i int) (first, last int) {
	b := s.Blocks[i]
	first, last = b.First, b.Last
	next := i + 1
	switch {
	case b.Kind == KindHeading || b.Kind == KindParagraph && boldTitle(s.Sentences[b.First].Text) && b.First == b.Last:
		if next < len(s.Blocks) && !s.defines(next) {
			last = s.Blocks[next].Last
			next++
		}
	case b.Kind == KindItem:
		for next < len(s.Blocks) && s.Blocks[next].Kind == KindItem && s.Blocks[next].Indent > b.Indent {
			last = s.Blocks[next].Last
			next++
		}
	}
	if !strings.HasSuffix(strings.TrimRight(s.Sentences[last].Text, "*"), ":") || next >= len(s.Blocks) {
		return first, last
	}
	if s.Blocks[next].Kind == KindCode {
		return first, s.Blocks[next].Last
	}
	for next < len(s.Blocks) && s.Blocks[next].Kind == KindItem && !s.defines(next) {
		last = s.Blocks[next].Last
		next++
	}
	return first, last
}

// boldTitle reports whether a paragraph is all bold, like **Title (ID)**:
// a sub-heading, which defines an ID it names in parentheses.
func boldTitle(t string) bool {
	return len(t) > 4 && strings.HasPrefix(t, "**") && strings.HasSuffix(t, "**") && !strings.Contains(t[2:len(t)-2], "**")
}

// defines reports whether block i opens with a bold ID.
func (s *Section) defines(i int) bool {
	b := s.Blocks[i]
	return (b.Kind == KindItem || b.Kind == KindParagraph) && boldID.MatchString(s.Sentences[b.First].Text)
}
