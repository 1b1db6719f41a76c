// Package evolve follows an SRD from one revision to the next: which
// requirements it adds, removes or changes (by the catalog's anchors),
// what rests on each changed or removed one (cases, goldens,
// interpretations), and how each anchored sentence reads before and after
// (a word diff).
package evolve

import (
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/spec"
	"github.com/forge-conform/forge-conform/spec/anchor"
)

// Kind is what happened to a requirement between the catalog and a
// revision of its SRD.
type Kind string

// The kinds of change.
const (
	// Added: the document prints an ID the catalog lacks.
	Added Kind = "added"
	// Removed: a catalogued srd ID the document no longer prints.
	Removed Kind = "removed"
	// Changed: an anchored sentence reads differently.
	Changed Kind = "changed"
	// NotFound: an anchor finds no sentence (its section or ordinal is
	// gone), while the ID is still printed or is derived.
	NotFound Kind = "not found"
	// Moved: every lost anchor is a sentence found unchanged elsewhere
	// (anchor.Relocate); `spec update` follows it, nothing to review.
	Moved Kind = "moved"
)

// Change is one requirement that differs.
type Change struct {
	Spec, ID string
	Kind     Kind
	// Problems are the anchors that did not resolve (Changed, NotFound,
	// Moved).
	Problems []anchor.Result
	// MovedTo holds, per problem, the anchor its unchanged sentence moved
	// to (the zero Anchor where it did not move).
	MovedTo []anchor.Anchor
}

// Changes compares catalog c (of set) with the text of a revision of its
// document: added and removed IDs, then the requirements (of every catalog)
// whose anchors into c.Document changed or are lost, by catalog and ID.
func Changes(set *spec.Set, c *spec.Catalog, text string) []Change {
	d := set.CheckDocument(c, text)
	var out []Change
	for _, id := range d.Missing {
		out = append(out, Change{Spec: c.Spec, ID: id, Kind: Added})
	}
	removed := map[string]bool{}
	for _, id := range d.Extra {
		removed[id] = true
		out = append(out, Change{Spec: c.Spec, ID: id, Kind: Removed})
	}
	doc := anchor.Parse(text)
	idx := map[string]int{}
	for _, p := range d.Anchors {
		if p.Spec == c.Spec && removed[p.ID] {
			continue
		}
		k := p.Spec + ":" + p.ID
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, Change{Spec: p.Spec, ID: p.ID, Kind: Moved})
		}
		ch := &out[i]
		ch.Problems = append(ch.Problems, p.Result)
		moved, ok := doc.Relocate(p.Anchor, p.Anchor.Fingerprint)
		if !ok {
			moved = anchor.Anchor{}
		}
		ch.MovedTo = append(ch.MovedTo, moved)
		switch {
		case ok:
		case p.Status == anchor.NotFound:
			ch.Kind = NotFound
		case ch.Kind != NotFound:
			ch.Kind = Changed
		}
	}
	return out
}

// Impact is what rests on a changed or removed requirement.
type Impact struct {
	// Cases are the full names of the cases naming the ID.
	Cases []string
	// Keys are the configuration keys a changed CFG-* requirement's
	// sentence names (`max_entries`), and Defaults the cases of its
	// catalog's tools that leave one of them unset: they rely on the
	// built-in value the sentence may have changed.
	Keys, Defaults []string
	// Goldens are the golden files of those cases that exist, as paths
	// of the golden tree (<spec>/<case>.golden).
	Goldens []string
	// Interpretations are the interpretations those cases rely on and
	// the INTERPRETATIONS.md entries citing the ID, sorted.
	Interpretations []string
}

// Empty reports whether nothing rests on the requirement.
func (im Impact) Empty() bool {
	return len(im.Cases) == 0 && len(im.Defaults) == 0 && len(im.Goldens) == 0 && len(im.Interpretations) == 0
}

// All lists the cases naming the ID, then those relying on a default.
func (im Impact) All() []string { return append(append([]string(nil), im.Cases...), im.Defaults...) }

// Sources are what a requirement's impact is looked up in.
type Sources struct {
	Corpus *corpus.Corpus
	Specs  *spec.Set
	// Goldens is the golden tree (nil: goldens are not listed).
	Goldens fs.FS
	// Interpretations is INTERPRETATIONS.md (nil: none).
	Interpretations []byte
}

// Affected finds what rests on requirement id of catalog specName: the
// cases naming it ("spec:ID" from another catalog); for a configuration
// requirement (CFG-*) whose sentence names keys in code spans, the cases
// of the catalog's tools that leave one of those keys unset in their
// arguments and configuration (they rely on its built-in value); pass the
// changed words rather than the whole sentence to narrow the keys to those
// it changed (see ChangedText); the golden files of
// all those cases; and the interpretations of those cases and of
// INTERPRETATIONS.md citing the ID.
func (src Sources) Affected(specName, id, sentence string) Impact {
	var im Impact
	interps := map[string]bool{}
	var tools []string
	if c := src.Specs.Catalogs[specName]; c != nil && strings.HasPrefix(id, "CFG-") {
		im.Keys = configKeys(sentence)
		tools = c.Tools
	}
	for _, c := range src.Corpus.Cases {
		switch {
		case names(c, specName, id):
			im.Cases = append(im.Cases, c.FullName())
		case len(im.Keys) > 0 && (c.Spec == specName || slices.Contains(tools, c.Tool)) && c.Tool != "" && !setsAll(c, im.Keys):
			im.Defaults = append(im.Defaults, c.FullName())
		default:
			continue
		}
		for _, i := range c.Interpretations {
			interps[i] = true
		}
		if src.Goldens == nil {
			continue
		}
		name := path.Join(c.Spec, c.Name+".golden")
		if _, err := fs.Stat(src.Goldens, name); err == nil {
			im.Goldens = append(im.Goldens, name)
		}
	}
	for _, i := range Citing(src.Interpretations, id) {
		interps[i] = true
	}
	for i := range interps {
		im.Interpretations = append(im.Interpretations, i)
	}
	sort.Strings(im.Interpretations)
	return im
}

var codeSpan = regexp.MustCompile("`([a-z][a-z0-9_]*)(?:\\s*[=:][^`]*)?`")

// configKeys are the key-like code spans of a sentence.
func configKeys(sentence string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(sentence, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// setsAll reports whether a case's arguments or configuration (its own or
// a before step's) name every one of keys: otherwise it relies on the
// built-in value of one.
func setsAll(c *corpus.Case, keys []string) bool {
	raws := [][]byte{c.Args, c.Config}
	for _, st := range c.Before {
		if st.Call != nil {
			raws = append(raws, st.Call.Args)
		}
	}
	for _, k := range keys {
		set := false
		for _, raw := range raws {
			set = set || strings.Contains(string(raw), `"`+k+`"`)
		}
		if !set {
			return false
		}
	}
	return true
}

func names(c *corpus.Case, specName, id string) bool {
	for _, r := range c.Refs() {
		if r.Spec == specName && r.ID == id {
			return true
		}
	}
	return false
}

var interpretationHeading = regexp.MustCompile(`(?m)^### (I-[A-Z]+-\d+)\b`)

// Citing returns the interpretations of an INTERPRETATIONS.md whose entry
// (heading to the next ### or ## heading) names id as a whole word.
func Citing(md []byte, id string) []string {
	word := regexp.MustCompile(`(^|[^A-Za-z0-9-])` + regexp.QuoteMeta(id) + `($|[^A-Za-z0-9-]|-[^A-Za-z0-9])`)
	heads := interpretationHeading.FindAllSubmatchIndex(md, -1)
	var out []string
	for i, h := range heads {
		end := len(md)
		if i+1 < len(heads) {
			end = heads[i+1][0]
		}
		body := md[h[0]:end]
		if j := strings.Index(string(body[1:]), "\n## "); j >= 0 {
			body = body[:j+1]
		}
		if word.Match(body) {
			out = append(out, string(md[h[2]:h[3]]))
		}
	}
	return out
}
