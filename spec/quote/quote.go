// Package quote finds, for a requirement ID, the sentence of the user's SRD
// its catalog anchors it to (spec/anchor), so that a report can show what
// the document itself says next to a failure. The SRDs are read at run
// time from a directory the user names; without them a quote carries the
// catalog's summary (our paraphrase) and where the sentence is.
package quote

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/forge-conform/forge-conform/spec"
	"github.com/forge-conform/forge-conform/spec/anchor"
)

// Quote is what reports show for one requirement ID.
type Quote struct {
	ID string
	// Summary is the catalog's one-line paraphrase.
	Summary string
	// Sentences are the requirement's anchors in catalog order, each with
	// the document's text when the document was given and still holds it.
	Sentences []Sentence
}

// Sentence is one anchor of a requirement, resolved.
type Sentence struct {
	// Where is "DOCUMENT §section" (with the sentence ordinals of a
	// derived ID's anchor).
	Where    string
	Document string
	Section  string
	// Text is the SRD's own sentence, read from the user's copy; empty
	// when the document was not given or the sentence is gone.
	Text string
	// Stale: the sentence was found but reads differently from when it was
	// anchored (its fingerprint changed): the catalog is out of date.
	Stale bool
	// Missing says why Text is empty ("" when it is not).
	Missing string
}

// HasText reports whether any sentence carries the SRD's text.
func (q Quote) HasText() bool {
	for _, s := range q.Sentences {
		if s.Text != "" {
			return true
		}
	}
	return false
}

// Book quotes the requirements of a catalog set from the SRDs of a
// directory.
type Book struct {
	reqs map[string]spec.Requirement
	docs map[string]*anchor.Doc
	// given reports whether SRDs were given at all.
	given bool
}

// New reads, from srds (nil: none given), the document of every anchor of
// set. A document srds does not hold is left out: its IDs are quoted by
// summary.
func New(set *spec.Set, srds fs.FS) (*Book, error) {
	b := &Book{reqs: map[string]spec.Requirement{}, docs: map[string]*anchor.Doc{}, given: srds != nil}
	for _, name := range set.Names() {
		for _, r := range set.Catalogs[name].Requirements {
			b.reqs[r.ID] = r
			if srds == nil {
				continue
			}
			for _, a := range r.Anchors {
				if _, done := b.docs[a.Document]; done {
					continue
				}
				text, err := fs.ReadFile(srds, a.Document)
				switch {
				case errors.Is(err, fs.ErrNotExist):
					b.docs[a.Document] = nil
				case err != nil:
					return nil, fmt.Errorf("reading the SRD %s: %w (check --srd-dir or FORGE_CONFORM_SRD_DIR)", a.Document, err)
				default:
					b.docs[a.Document] = anchor.Parse(string(text))
				}
			}
		}
	}
	return b, nil
}

// Given reports whether SRDs were given (quotes may carry their text).
func (b *Book) Given() bool { return b != nil && b.given }

// Quote returns the quote of a catalogued ID.
func (b *Book) Quote(id string) (Quote, bool) {
	if b == nil {
		return Quote{}, false
	}
	r, ok := b.reqs[id]
	if !ok {
		return Quote{}, false
	}
	q := Quote{ID: id, Summary: r.Summary}
	for _, a := range r.Anchors {
		s := Sentence{Where: a.String(), Document: a.Document, Section: a.Section}
		doc := b.docs[a.Document]
		switch {
		case !b.given:
			s.Missing = "no SRDs given"
		case doc == nil:
			s.Missing = a.Document + " not among the SRDs given"
		default:
			res := doc.Resolve(id, a)
			switch res.Status {
			case anchor.NotFound:
				s.Missing = res.Reason + " (the catalog is out of date)"
			default:
				s.Text, s.Stale = res.Text, res.Status == anchor.Changed
			}
		}
		q.Sentences = append(q.Sentences, s)
	}
	return q, true
}

// Where lists a quote's anchors: "DOC §3.1; DOC §2".
func (q Quote) Where() string {
	var w []string
	for _, s := range q.Sentences {
		w = append(w, s.Where)
	}
	return strings.Join(w, "; ")
}
