// Package spec holds the requirement catalogs: one per specification
// document, every requirement ID with its level, section, a one-line summary
// in our own words, and how it is verified. The catalogs are data
// (spec/catalog/*.json, embedded); INTERPRETATIONS.md records the readings
// chosen where a document is ambiguous, and PROTOCOL.md specifies FCP/1.
package spec

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/forge-conform/forge-conform/spec/anchor"
)

// Files embeds the catalogs and the interpretations.
//
//go:embed catalog/*.json INTERPRETATIONS.md
var Files embed.FS

// Level is a requirement keyword of RFC 2119.
type Level string

// Requirement is one catalogued ID.
type Requirement struct {
	ID      string `json:"id"`
	Level   Level  `json:"level"`
	Section string `json:"section"`
	Summary string `json:"summary"`
	// Testable is false when FCP/1 cannot observe the requirement;
	// Verified then says why and where it is verified instead.
	Testable bool   `json:"testable"`
	Verified string `json:"verified,omitempty"`
	// Planned, on a testable requirement, says why no case covers it yet
	// and what will (for example an FCP/1 op still to be specified).
	// Reports list such IDs as "planned", never as passed.
	Planned string `json:"planned,omitempty"`
	// Origin is "srd" for IDs printed in the document and "derived" for
	// stable IDs we gave to unnumbered rules or behaviours.
	Origin string `json:"origin"`
	// Anchors say where the requirement's sentence is in the SRD: for an
	// "srd" ID the block that defines it, for a "derived" one the
	// sentence(s) it rests on (spec/anchor, spec/README.md).
	Anchors []anchor.Anchor `json:"anchors,omitempty"`
}

// Catalog is the catalog of one specification document.
type Catalog struct {
	Spec     string `json:"spec"`
	Document string `json:"document"`
	Title    string `json:"title"`
	// Version is the SRD revision the catalog's anchors were taken from,
	// as the document states it (DocumentVersion; "" when it states none).
	Version string   `json:"version"`
	Tools   []string `json:"tools"`
	// MutatingTools are the tools of the spec that change files; their
	// cases each get a fresh copy of their fixture.
	MutatingTools []string      `json:"mutating_tools,omitempty"`
	Requirements  []Requirement `json:"requirements"`
}

// Lookup returns the requirement with the given ID.
func (c *Catalog) Lookup(id string) (Requirement, bool) {
	for _, r := range c.Requirements {
		if r.ID == id {
			return r, true
		}
	}
	return Requirement{}, false
}

// Set is every catalog, keyed by spec name.
type Set struct {
	Catalogs map[string]*Catalog
	// Interpretations lists the I-* numbers defined in INTERPRETATIONS.md.
	Interpretations map[string]string
	// Classes holds each interpretation's class, read from its "Class:"
	// line; an interpretation without one is absent here (a test of the
	// embedded document requires every one to have it).
	Classes map[string]Class
	// Readings holds each interpretation's "Readings:" line: the readings
	// the text allows there, the reference's default first among them
	// marked Reference (package impl/readings realizes the others).
	Readings map[string][]ReadingDecl
}

// ReadingDecl is one reading of an interpretation as INTERPRETATIONS.md
// lists it: "`name` (reference)", "`name`", or "`name` (not realized:
// why)" for a reading the text allows that the reference cannot take yet.
type ReadingDecl struct {
	Name      string
	Reference bool
	// NotRealized says why the reference cannot take this reading; empty
	// for a reading it can take.
	NotRealized string
}

// Class says how an interpretation relates to the SRD text (the rule at the
// top of INTERPRETATIONS.md), and so what its cases may assert.
type Class string

// The classes of interpretation.
const (
	// ClassForced: the text decides it; cases assert it exactly.
	ClassForced Class = "forced"
	// ClassAllowed: one of several readings the text allows; the reference
	// implements it, cases accept every allowed reading (any_of, words).
	ClassAllowed Class = "allowed"
	// ClassDeclared: implementation-defined; the implementation declares
	// its choice in hello's policies and only the matching cases run.
	ClassDeclared Class = "declared"
	// ClassConflict: two sentences of the SRD disagree; cases accept both
	// sides and reports name the conflict.
	ClassConflict Class = "conflict"
)

// Classes lists the valid classes.
func Classes() []Class { return []Class{ClassForced, ClassAllowed, ClassDeclared, ClassConflict} }

// Names returns the spec names, sorted.
func (s *Set) Names() []string {
	out := make([]string, 0, len(s.Catalogs))
	for n := range s.Catalogs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

var (
	interpretationHeading = regexp.MustCompile(`(?m)^### (I-[A-Z]+-\d+) (.+)$`)
	classLine             = regexp.MustCompile(`(?m)^Class: ([a-z]+)\b`)
	readingsLine          = regexp.MustCompile(`(?m)^Readings: (.+)$`)
	readingItem           = regexp.MustCompile("^`([a-z0-9][a-z0-9-]*)`(?: \\((reference|not realized: [^)]+)\\))?$")
)

// Load reads the embedded catalogs.
func Load() (*Set, error) { return LoadFS(Files) }

// LoadFS reads catalog/*.json and INTERPRETATIONS.md from fsys.
func LoadFS(fsys fs.FS) (*Set, error) {
	set := &Set{Catalogs: map[string]*Catalog{}, Interpretations: map[string]string{}, Classes: map[string]Class{},
		Readings: map[string][]ReadingDecl{}}
	names, err := fs.Glob(fsys, "catalog/*.json")
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		c, err := parseCatalog(name, data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		set.Catalogs[c.Spec] = c
	}
	if md, err := fs.ReadFile(fsys, "INTERPRETATIONS.md"); err == nil {
		errs = append(errs, parseInterpretations(md, set))
	}
	return set, errors.Join(errs...)
}

// parseInterpretations reads the headings of INTERPRETATIONS.md and the
// "Class: <class>" line of each entry (the first such line between its
// heading and the next).
func parseInterpretations(md []byte, set *Set) error {
	heads := interpretationHeading.FindAllSubmatchIndex(md, -1)
	var errs []error
	for i, h := range heads {
		id := string(md[h[2]:h[3]])
		set.Interpretations[id] = string(md[h[4]:h[5]])
		end := len(md)
		if i+1 < len(heads) {
			end = heads[i+1][0]
		}
		if next := bytes.Index(md[h[1]:end], []byte("\n## ")); next >= 0 {
			end = h[1] + next
		}
		if rl := readingsLine.FindSubmatch(md[h[1]:end]); rl != nil {
			decls, err := parseReadings(string(rl[1]))
			if err != nil {
				errs = append(errs, fmt.Errorf("INTERPRETATIONS.md: %s: %w", id, err))
			}
			set.Readings[id] = decls
		}
		m := classLine.FindSubmatch(md[h[1]:end])
		if m == nil {
			continue
		}
		c := Class(m[1])
		if !slices.Contains(Classes(), c) {
			errs = append(errs, fmt.Errorf("INTERPRETATIONS.md: %s has class %q (want forced, allowed, declared or conflict)", id, c))
			continue
		}
		set.Classes[id] = c
	}
	return errors.Join(errs...)
}

// parseReadings reads a Readings line: items separated by "; ", the line
// ending in a full stop.
func parseReadings(line string) ([]ReadingDecl, error) {
	var out []ReadingDecl
	refs := 0
	for _, item := range strings.Split(strings.TrimSuffix(strings.TrimSpace(line), "."), "; ") {
		m := readingItem.FindStringSubmatch(item)
		if m == nil {
			return nil, fmt.Errorf("reading %q: want `name`, `name` (reference) or `name` (not realized: why)", item)
		}
		d := ReadingDecl{Name: m[1], Reference: m[2] == "reference"}
		if r, ok := strings.CutPrefix(m[2], "not realized: "); ok {
			d.NotRealized = r
		}
		if d.Reference {
			refs++
		}
		out = append(out, d)
	}
	if refs != 1 {
		return out, fmt.Errorf("the Readings line marks %d readings (reference): want exactly one", refs)
	}
	return out, nil
}

func parseCatalog(name string, data []byte) (*Catalog, error) {
	var c Catalog
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if want := strings.TrimSuffix(path.Base(name), ".json"); c.Spec != want {
		return nil, fmt.Errorf("%s: spec %q must match the file name %q", name, c.Spec, want)
	}
	seen := map[string]bool{}
	var errs []error
	for _, r := range c.Requirements {
		switch {
		case seen[r.ID]:
			errs = append(errs, fmt.Errorf("%s: %s is listed twice", name, r.ID))
		case r.Summary == "":
			errs = append(errs, fmt.Errorf("%s: %s has no summary", name, r.ID))
		case !r.Testable && r.Planned != "":
			errs = append(errs, fmt.Errorf("%s: %s is planned but not testable: planned applies to testable requirements", name, r.ID))
		case !r.Testable && r.Verified == "":
			errs = append(errs, fmt.Errorf("%s: %s is not testable but says nowhere how it is verified (set \"verified\")", name, r.ID))
		case r.Origin != "srd" && r.Origin != "derived":
			errs = append(errs, fmt.Errorf("%s: %s has origin %q (want srd or derived)", name, r.ID, r.Origin))
		}
		for _, a := range r.Anchors {
			switch {
			case a.By != anchor.ByID && a.By != anchor.BySentence:
				errs = append(errs, fmt.Errorf("%s: %s has an anchor by %q (want id or sentence)", name, r.ID, a.By))
			case a.Document == "" || a.Section == "":
				errs = append(errs, fmt.Errorf("%s: %s has an anchor without document or section", name, r.ID))
			}
		}
		switch r.Level {
		case "MUST", "SHOULD", "MAY", "INFO":
		default:
			errs = append(errs, fmt.Errorf("%s: %s has level %q (want MUST, SHOULD, MAY or INFO)", name, r.ID, r.Level))
		}
		seen[r.ID] = true
	}
	return &c, errors.Join(errs...)
}

// requirementID matches the requirement IDs the Forge SRDs print:
// FR-LD-LST-05, NFR-LD-PERF-01, CFG-LD-01, T-LD-01, IT-E2E-01, FR-VAL-04a,
// and the constraint/assumption rows C-01, A-01.
var requirementID = regexp.MustCompile(`\b(?:(?:FR|NFR|CFG|T|IT)(?:-[A-Z0-9]+)+[a-z]?|[CAD]-\d{2})\b`)

// ExtractIDs returns the sorted, distinct requirement IDs an SRD's text names.
func ExtractIDs(text string) []string {
	set := map[string]bool{}
	for _, m := range requirementID.FindAllString(text, -1) {
		set[m] = true
	}
	out := make([]string, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// Diff compares a catalog with the IDs of a document's text: Missing are in
// the document but not the catalog; Extra are catalogued with origin "srd"
// but absent from the document (removed or renamed upstream).
type Diff struct {
	Catalog string
	Missing []string
	Extra   []string
	// Anchors are the anchors into this document that no longer find
	// their sentence or whose sentence changed, in catalog order (with
	// Set.CheckDocument, those of every catalog, by catalog name).
	Anchors []AnchorProblem
}

// AnchorProblem is an anchor of requirement ID (of catalog Spec) that does
// not resolve as recorded.
type AnchorProblem struct {
	Spec, ID string
	anchor.Result
}

// Empty reports whether catalog and document agree.
func (d Diff) Empty() bool { return len(d.Missing) == 0 && len(d.Extra) == 0 && len(d.Anchors) == 0 }

// CheckDocument diffs catalog c against the text of its document: the IDs
// it prints, and the anchors of c into c.Document (resolved in text).
func CheckDocument(c *Catalog, text string) Diff {
	d := diffIDs(c, text)
	d.Anchors = checkAnchors(c, c.Document, anchor.Parse(text))
	return d
}

// diffIDs is CheckDocument without the anchors.
func diffIDs(c *Catalog, text string) Diff {
	printed := map[string]bool{}
	for _, id := range ExtractIDs(text) {
		printed[id] = true
	}
	d := Diff{Catalog: c.Spec}
	cat := map[string]bool{}
	for _, r := range c.Requirements {
		cat[r.ID] = true
		if r.Origin == "srd" && !printed[r.ID] {
			d.Extra = append(d.Extra, r.ID)
		}
	}
	for id := range printed {
		if !cat[id] {
			d.Missing = append(d.Missing, id)
		}
	}
	sort.Strings(d.Missing)
	sort.Strings(d.Extra)
	return d
}

// CheckDocument is the package's CheckDocument, and also checks the anchors
// of the other catalogs into c.Document (a derived ID may rest on a
// sentence of another document).
func (s *Set) CheckDocument(c *Catalog, text string) Diff {
	d := diffIDs(c, text)
	doc := anchor.Parse(text)
	d.Anchors = checkAnchors(c, c.Document, doc)
	for _, n := range s.Names() {
		if o := s.Catalogs[n]; o != c {
			d.Anchors = append(d.Anchors, checkAnchors(o, c.Document, doc)...)
		}
	}
	return d
}

// checkAnchors resolves the anchors of c's requirements into document.
func checkAnchors(c *Catalog, document string, doc *anchor.Doc) []AnchorProblem {
	var out []AnchorProblem
	for _, r := range c.Requirements {
		for _, a := range r.Anchors {
			if a.Document != document {
				continue
			}
			if res := doc.Resolve(r.ID, a); res.Status != anchor.OK {
				out = append(out, AnchorProblem{Spec: c.Spec, ID: r.ID, Result: res})
			}
		}
	}
	return out
}

// ForDocument picks the catalog for a document: the one whose Document has
// the same base name, else the one sharing the most IDs with the text,
// provided it holds at least half of them (a renamed copy of the SRD);
// otherwise nil.
func (s *Set) ForDocument(fileName, text string) *Catalog {
	base := path.Base(strings.ReplaceAll(fileName, "\\", "/"))
	for _, n := range s.Names() {
		if s.Catalogs[n].Document == base {
			return s.Catalogs[n]
		}
	}
	ids := ExtractIDs(text)
	var best *Catalog
	bestN := 0
	for _, n := range s.Names() {
		c := s.Catalogs[n]
		k := 0
		for _, id := range ids {
			if _, ok := c.Lookup(id); ok {
				k++
			}
		}
		if k > bestN {
			best, bestN = c, k
		}
	}
	if 2*bestN < len(ids) {
		return nil
	}
	return best
}

// verificationID matches the IDs of the SRDs' test tables (T-*, IT-*).
var verificationID = regexp.MustCompile(`^(T|IT)-[A-Z0-9]+(-[A-Z0-9]+)*$`)

// IsVerification reports whether id names a test of an SRD's test table
// (T-LD-01, IT-E2E-01) rather than a requirement: a case tagged with it
// is that test, written down.
func IsVerification(id string) bool { return verificationID.MatchString(id) }
