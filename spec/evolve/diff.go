package evolve

import (
	"slices"

	"github.com/forge-conform/forge-conform/spec"
	"github.com/forge-conform/forge-conform/spec/anchor"
)

// SentenceDiff is how one requirement's sentence reads in two revisions
// of an SRD.
type SentenceDiff struct {
	Spec, ID string
	// Kind is Added or Removed for an ID only one revision prints,
	// Changed when the anchored text differs, NotFound when the new
	// revision has no sentence there (Old set, New empty).
	Kind Kind
	// Where locates the sentence in the old revision (in the new one for
	// an added ID).
	Where    anchor.Anchor
	Old, New string
	// Moved is set when the sentence moved unchanged to NewWhere.
	Moved    bool
	NewWhere anchor.Anchor
	Ops      []Op
}

// Diff resolves every anchor into c.Document (of every catalog of set) in
// the old and the new text of the document, and returns the requirements
// whose sentence differs, then the IDs only one revision prints, with
// their defining text. A BySentence anchor whose sentence moved unchanged
// is followed (anchor.Relocate) and reported only as moved.
func Diff(set *spec.Set, c *spec.Catalog, oldText, newText string) []SentenceDiff {
	oldDoc, newDoc := anchor.Parse(oldText), anchor.Parse(newText)
	var out []SentenceDiff
	for _, name := range set.Names() {
		k := set.Catalogs[name]
		for _, r := range k.Requirements {
			for _, a := range r.Anchors {
				if a.Document != c.Document {
					continue
				}
				if d, ok := diffAnchor(oldDoc, newDoc, k.Spec, r.ID, a); ok {
					out = append(out, d)
				}
			}
		}
	}
	oldIDs, newIDs := spec.ExtractIDs(oldText), spec.ExtractIDs(newText)
	for _, id := range oldIDs {
		if !slices.Contains(newIDs, id) {
			out = append(out, defined(oldDoc, c, id, Removed))
		}
	}
	for _, id := range newIDs {
		if !slices.Contains(oldIDs, id) {
			out = append(out, defined(newDoc, c, id, Added))
		}
	}
	return out
}

func diffAnchor(oldDoc, newDoc *anchor.Doc, specName, id string, a anchor.Anchor) (SentenceDiff, bool) {
	was := oldDoc.Resolve(id, a)
	if was.Status == anchor.NotFound {
		// The old revision is not the one the catalog is anchored to
		// here; nothing to compare.
		return SentenceDiff{}, false
	}
	d := SentenceDiff{Spec: specName, ID: id, Where: a, Old: was.Text}
	at := a
	at.Fingerprint = was.Fingerprint
	now := newDoc.Resolve(id, at)
	if now.Status == anchor.OK {
		return d, false
	}
	if moved, ok := newDoc.Relocate(at, was.Fingerprint); ok {
		d.Kind, d.Moved, d.NewWhere, d.New = Changed, true, moved, was.Text
		return d, true
	}
	if now.Status == anchor.NotFound {
		d.Kind = NotFound
		return d, true
	}
	d.Kind, d.New, d.Ops = Changed, now.Text, WordDiff(was.Text, now.Text)
	return d, true
}

// defined is the text defining an ID the other revision lacks.
func defined(doc *anchor.Doc, c *spec.Catalog, id string, kind Kind) SentenceDiff {
	d := SentenceDiff{Spec: c.Spec, ID: id, Kind: kind}
	a, ok := doc.Propose(c.Document, []string{id})[id]
	if !ok {
		return d
	}
	d.Where = a
	text := doc.Resolve(id, a).Text
	if kind == Removed {
		d.Old = text
	} else {
		d.New = text
	}
	return d
}
