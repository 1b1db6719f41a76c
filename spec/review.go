package spec

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// ReviewFile is where the review marks live, relative to spec/ (and to a
// --spec-dir laid out like it).
const ReviewFile = "review.jsonl"

//go:embed review.jsonl
var embeddedReview []byte

// ReviewMark says a case rests on requirements whose SRD sentence changed
// (or is gone) in a revision of the SRD, and nobody has reviewed it since:
// the case still runs, and reports list it as "unreviewed since SRD vN".
type ReviewMark struct {
	// Case is the case's full name, spec/name.
	Case string `json:"case"`
	// Version is the SRD revision whose change put the mark ("" when the
	// document states none).
	Version string `json:"srd_version"`
	// Document is the SRD's file name.
	Document string `json:"document"`
	// IDs are the changed or removed requirement IDs the case names
	// ("spec:ID" for another catalog's), sorted.
	IDs []string `json:"ids"`
}

// Review is the set of review marks: spec/review.jsonl, one JSON object
// per line, so deleting a line clears a mark (as does `forge-conform spec
// review --clear CASE`).
type Review struct {
	Marks []ReviewMark
}

// EmbeddedReview returns the review marks compiled into the binary.
func EmbeddedReview() (*Review, error) { return ParseReview(embeddedReview) }

// ParseReview reads review marks: JSON Lines, blank lines ignored.
func ParseReview(data []byte) (*Review, error) {
	r := &Review{}
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m ReviewMark
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&m); err != nil {
			return nil, fmt.Errorf("%s:%d: %w (want one {\"case\":..,\"srd_version\":..,\"document\":..,\"ids\":[..]} per line; delete the line to clear the mark)", ReviewFile, i+1, err)
		}
		if m.Case == "" || !strings.Contains(m.Case, "/") {
			return nil, fmt.Errorf("%s:%d: case %q: want the case's full name, spec/name", ReviewFile, i+1, m.Case)
		}
		r.Mark(m)
	}
	return r, nil
}

// Lookup returns the mark of a case (by full name), or nil.
func (r *Review) Lookup(fullName string) *ReviewMark {
	if r == nil {
		return nil
	}
	for i := range r.Marks {
		if r.Marks[i].Case == fullName {
			return &r.Marks[i]
		}
	}
	return nil
}

// Mark adds a mark; a case marked already keeps one mark with the IDs of
// both and the later version.
func (r *Review) Mark(m ReviewMark) {
	m.IDs = sortedUnique(m.IDs)
	if old := r.Lookup(m.Case); old != nil {
		old.IDs = sortedUnique(append(old.IDs, m.IDs...))
		if c, err := CompareVersions(m.Version, old.Version); err == nil && c > 0 || old.Version == "" {
			old.Version, old.Document = m.Version, m.Document
		}
		return
	}
	r.Marks = append(r.Marks, m)
	sort.Slice(r.Marks, func(i, j int) bool { return r.Marks[i].Case < r.Marks[j].Case })
}

// Clear removes the marks of the named cases and returns the names that
// had none.
func (r *Review) Clear(cases ...string) (unmarked []string) {
	for _, c := range cases {
		i := slices.IndexFunc(r.Marks, func(m ReviewMark) bool { return m.Case == c })
		if i < 0 {
			unmarked = append(unmarked, c)
			continue
		}
		r.Marks = slices.Delete(r.Marks, i, i+1)
	}
	return unmarked
}

// Format renders the marks as review.jsonl: one line each, by case name.
func (r *Review) Format() []byte {
	var b bytes.Buffer
	for _, m := range r.Marks {
		if m.IDs == nil {
			m.IDs = []string{}
		}
		line, _ := json.Marshal(m)
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Label is how reports show a mark: "unreviewed since SRD v1.1 (CFG-X-01)".
func (m *ReviewMark) Label() string {
	v := "an SRD revision"
	if m.Version != "" {
		v = "SRD v" + m.Version
	}
	return fmt.Sprintf("unreviewed since %s (%s changed)", v, strings.Join(m.IDs, ", "))
}

func sortedUnique(ids []string) []string {
	out := slices.Clone(ids)
	sort.Strings(out)
	return slices.Compact(out)
}
