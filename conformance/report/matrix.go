package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// A matrix sets several runs side by side, the way Bowtie reports JSON
// Schema validators: a row per requirement ID, a column per
// implementation, and in each cell the ID's verdict with the evidence of
// its failing cases (html.go, markdown.go). A single run is a matrix of
// one column.

// Column is one implementation of a matrix.
type Column struct {
	// Command is how the implementation was started ("" for the built-in
	// reference); reports show it under the column's label.
	Command string
	Run     *runner.Run
}

// Matrix is the model the HTML and Markdown renderers share.
type Matrix struct {
	Columns []MatrixColumn
	Specs   []MatrixSpec
}

// MatrixColumn is a column's heading and its counts.
type MatrixColumn struct {
	// Label names the implementation as its hello does ("name version");
	// two columns with the same hello get " #2", " #3".
	Label          string
	Command        string
	Implementation fcp.Implementation
	// IDs counts the column's ID verdicts, Cases its selected cases'.
	IDs, Cases map[runner.Status]int
	ElapsedMs  int64
	OK         bool
}

// MatrixSpec is one catalog's rows.
type MatrixSpec struct {
	Spec string
	Rows []MatrixRow
}

// MatrixRow is one requirement ID across the columns.
type MatrixRow struct {
	Spec, ID, Level, Summary string
	Testable                 bool
	Cells                    []MatrixCell
	// Differs is set when one column passed the ID and another failed or
	// errored it (a skipped, uncovered or absent verdict is set aside: it
	// says nothing about the implementation's behaviour).
	Differs bool
	// Attention is set when some column failed or errored the ID.
	Attention bool
	// Says is what the SRD says for an ID some column failed (quoteLines:
	// the SRD's sentences, or the summary and anchor without the SRDs),
	// from the first run with quotes.
	Says []string
}

// MatrixCell is one ID's verdict for one implementation.
type MatrixCell struct {
	Status runner.Status
	// Cases are the cases covering the ID; Evidence the failing or
	// errored cases that blame it, with what went wrong.
	Cases    int
	Evidence []Evidence
}

// Evidence is one failing or errored case behind a cell.
type Evidence struct {
	Case, File string
	Status     runner.Status
	Message    string
	Failures   []EvidenceFailure
	// Request and Response are the exchange on one line each ($ROOT for
	// the fixture root), long values cut in the middle; Wanted the case's
	// expectation. A turn case has Events instead of a Response: its
	// transcript, an event a line.
	Request, Response, Wanted string
	Events                    []string
	Stderr                    string
	// Hint says what an errored case's last-seen facts usually mean.
	Hint string
}

// EvidenceFailure is one check that blames the ID.
type EvidenceFailure struct {
	Kind, Message, Diff string
	IDs                 []string
}

// evidenceLimit bounds the evidence a cell carries: a broken
// implementation must not make a page of megabytes.
const (
	evidenceCases  = 5
	evidenceBytes  = 4000 // of a diff or stderr
	evidenceValue  = 600  // of a request, response or expectation
	evidenceEvents = 60   // lines of a turn's transcript
	evidenceLine   = 300  // of a diff line
	evidenceDiff   = 40   // lines of a diff
)

// BuildMatrix sets the columns' runs side by side. Rows follow the first
// run's catalog order; an ID only a later run knows is appended to its
// spec. When --run/--skip left cases out, the IDs no selected case covers
// in any column are left out too, and the columns' ID counts are those of
// the rows shown.
func BuildMatrix(cols []Column) Matrix {
	var m Matrix
	selection := false
	seenLabel := map[string]int{}
	type key struct{ spec, id string }
	rowAt := map[key][2]int{} // spec index, row index
	specAt := map[string]int{}
	for ci, col := range cols {
		run := col.Run
		im := run.Implementation
		label := strings.TrimSpace(orDash(im.Name) + " " + im.Version)
		seenLabel[label]++
		if n := seenLabel[label]; n > 1 {
			label = fmt.Sprintf("%s #%d", label, n)
		}
		m.Columns = append(m.Columns, MatrixColumn{Label: label, Command: col.Command, Implementation: im,
			IDs: map[runner.Status]int{}, Cases: selectedSummary(run), ElapsedMs: run.Elapsed.Milliseconds(), OK: run.OK()})
		evidence := cellEvidence(run)
		selected := map[corpus.Ref]int{}
		for _, r := range run.Results {
			if r != nil && !r.Unselected {
				for _, ref := range r.Case.Refs() {
					selected[ref]++
				}
			} else if r != nil {
				selection = true
			}
		}
		for _, ir := range run.IDs {
			si, ok := specAt[ir.Spec]
			if !ok {
				si = len(m.Specs)
				specAt[ir.Spec] = si
				m.Specs = append(m.Specs, MatrixSpec{Spec: ir.Spec})
			}
			k := key{ir.Spec, ir.ID}
			at, ok := rowAt[k]
			if !ok {
				at = [2]int{si, len(m.Specs[si].Rows)}
				rowAt[k] = at
				m.Specs[si].Rows = append(m.Specs[si].Rows, MatrixRow{Spec: ir.Spec, ID: ir.ID, Level: string(ir.Level),
					Summary: ir.Summary, Testable: ir.Testable, Cells: make([]MatrixCell, len(cols))})
			}
			ref := corpus.Ref{Spec: ir.Spec, ID: ir.ID}
			m.Specs[at[0]].Rows[at[1]].Cells[ci] = MatrixCell{Status: ir.Status, Cases: selected[ref], Evidence: evidence[ref]}
		}
	}
	specs := m.Specs[:0]
	for _, sp := range m.Specs {
		rows := sp.Rows[:0]
		for _, row := range sp.Rows {
			ran := false
			for _, c := range row.Cells {
				ran = ran || c.Cases > 0 || len(c.Evidence) > 0
			}
			if !selection || ran {
				rows = append(rows, row)
			}
		}
		if sp.Rows = rows; len(rows) > 0 {
			specs = append(specs, sp)
		}
	}
	m.Specs = specs
	for si := range m.Specs {
		for ri := range m.Specs[si].Rows {
			row := &m.Specs[si].Rows[ri]
			passed := false
			for ci, c := range row.Cells {
				m.Columns[ci].IDs[c.Status]++
				if c.Status == "" {
					row.Cells[ci].Status = "absent"
				}
				passed = passed || c.Status == runner.Passed
				if c.Status == runner.Failed || c.Status == runner.Errored {
					row.Attention = true
				}
			}
			row.Differs = passed && row.Attention
			if row.Attention {
				row.Says = says(cols, row.ID)
			}
		}
	}
	return m
}

// says renders the quote of id from the first column's run with quotes.
func says(cols []Column, id string) []string {
	for _, c := range cols {
		if q, ok := c.Run.Quotes.Quote(id); ok {
			return quoteLines(q, c.Run.Quotes.Given(), nil)
		}
	}
	return nil
}

// cellEvidence collects, per ID, the failing and errored cases that blame
// it: a failure blames the IDs it names (runner.Charge), an errored case
// every ID it covers, as runner.Aggregate does.
func cellEvidence(run *runner.Run) map[corpus.Ref][]Evidence {
	out := map[corpus.Ref][]Evidence{}
	for _, r := range run.Results {
		if r == nil || r.Unselected || (r.Status != runner.Failed && r.Status != runner.Errored) {
			continue
		}
		byRef := map[corpus.Ref][]EvidenceFailure{}
		var refs []corpus.Ref
		add := func(ref corpus.Ref, f *EvidenceFailure) {
			if _, ok := byRef[ref]; !ok {
				refs = append(refs, ref)
				byRef[ref] = nil
			}
			if f != nil {
				byRef[ref] = append(byRef[ref], *f)
			}
		}
		if r.Status == runner.Errored || len(r.Failures) == 0 {
			for _, ref := range r.Case.Refs() {
				add(ref, nil)
			}
		}
		for _, f := range ordered(r.Failures) {
			ef := EvidenceFailure{Kind: f.Kind, Message: clipMiddle(clean(f.Message), evidenceBytes), IDs: f.IDs}
			if f.Diff != "" {
				ef.Diff = shortDiff(clean(f.Diff), evidenceLine, evidenceDiff)
			}
			for _, id := range f.IDs {
				add(corpus.ParseRef(r.Case.Spec, id), &ef)
			}
		}
		for _, ref := range refs {
			if len(out[ref]) >= evidenceCases {
				continue
			}
			out[ref] = append(out[ref], evidenceOf(r, byRef[ref]))
		}
	}
	return out
}

func evidenceOf(r *runner.Result, fs []EvidenceFailure) Evidence {
	e := Evidence{Case: r.Case.FullName(), Status: r.Status, Message: clean(r.Message), Failures: fs,
		Wanted: wantedText(r.Case, evidenceValue)}
	if r.Case.File != "" {
		e.File = fmt.Sprintf("conformance/cases/%s:%d", r.Case.File, r.Case.Line)
	}
	if r.Request != nil {
		raw, _ := json.Marshal(r.Request)
		e.Request = clipMiddle(clean(string(raw)), evidenceValue)
	}
	if evs := turnEvents(r.Turn); len(evs) > 0 {
		e.Events = eventLines(evs, evidenceEvents)
	} else if resp := received(r); resp != nil {
		e.Response = responseText(resp, evidenceValue)
	}
	if r.Stderr != "" {
		e.Stderr = clipMiddle(tail(clean(r.Stderr), 20), evidenceBytes)
	}
	if r.Status == runner.Errored {
		e.Hint = Hint(seenResult(r))
	}
	return e
}

// statusOrder is the order counts are shown in.
func statusOrder() []runner.Status {
	return []runner.Status{runner.Passed, runner.Failed, runner.Errored, runner.Skipped,
		runner.Uncovered, runner.Planned, runner.Untestable}
}

// Counts is a column's counts in statusOrder, leaving out zeros (but
// passed and failed).
func Counts(m map[runner.Status]int) []Count {
	var out []Count
	for _, s := range statusOrder() {
		if m[s] > 0 || s == runner.Passed || s == runner.Failed {
			out = append(out, Count{Status: s, N: m[s]})
		}
	}
	return out
}

// Count is how many IDs or cases have one status.
type Count struct {
	Status runner.Status
	N      int
}

// MatrixText writes the matrix for a terminal: a line per implementation
// with its counts, then the IDs that fail somewhere (and so those some
// pass and others fail), a column per implementation (the HTML and
// Markdown reports have every ID and the evidence).
func MatrixText(w io.Writer, m Matrix) {
	for i, c := range m.Columns {
		cmd := c.Command
		if cmd == "" {
			cmd = "built-in reference"
		}
		fmt.Fprintf(w, "[%d] %s (%s): %s\n", i+1, c.Label, cmd, countsText(c.IDs))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	n := 0
	for _, s := range m.Specs {
		for _, r := range s.Rows {
			if !r.Attention && !r.Differs {
				continue
			}
			if n == 0 {
				fmt.Fprintf(tw, "\nID\tspec")
				for i := range m.Columns {
					fmt.Fprintf(tw, "\t[%d]", i+1)
				}
				fmt.Fprintf(tw, "\n")
			}
			n++
			fmt.Fprintf(tw, "%s\t%s", r.ID, r.Spec)
			for _, c := range r.Cells {
				fmt.Fprintf(tw, "\t%s", c.Status)
			}
			fmt.Fprintf(tw, "\n")
		}
	}
	tw.Flush()
	if n == 0 {
		fmt.Fprintf(w, "\nno ID fails anywhere\n")
	} else {
		fmt.Fprintf(w, "\n%d ID(s) fail somewhere, %d of them passed by another implementation\n", n, differing(m))
	}
}

// differing counts the rows one implementation passes and another fails.
func differing(m Matrix) int { return countRows(m, func(r MatrixRow) bool { return r.Differs }) }
