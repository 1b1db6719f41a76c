// Package report renders a run: a human report that shows each failing
// case first (text.go), the JSON report whose shape CI scripts rely on
// (spec/report.schema.json), and JUnit XML.
package report

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/forge-conform/forge-conform/conformance/check"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// JSONReport is the machine-readable report. Its field names are a
// user-facing interface: extend, never rename.
// The shape is spec/report.schema.json; cases --run/--skip left out are
// not listed.
type JSONReport struct {
	Implementation fcp.Implementation `json:"implementation"`
	Notes          []string           `json:"notes"`
	Summary        JSONSummary        `json:"summary"`
	Cases          []JSONCase         `json:"cases"`
	IDs            []JSONID           `json:"ids"`
	Conflicts      []JSONConflict     `json:"conflicts"`
	ElapsedMs      int64              `json:"elapsed_ms"`
	// Stopped is set when the run stopped early (runner.Stop).
	Stopped *JSONStop `json:"stopped,omitempty"`
	// Versions are the SRD versions checked, by spec (runner.Version).
	Versions []runner.Version `json:"versions,omitempty"`
}

// JSONStop says why a run stopped before checking anything.
type JSONStop struct {
	Cause     string   `json:"cause"`
	Cases     []string `json:"cases"`
	Hello     string   `json:"hello,omitempty"`
	Stderr    string   `json:"stderr,omitempty"`
	Reproduce []string `json:"reproduce,omitempty"`
}

// JSONConflict is a spec conflict the run's cases touched, with the
// selected cases that name it.
type JSONConflict struct {
	ID    string   `json:"id"`
	Title string   `json:"title"`
	Cases []string `json:"cases"`
}

// JSONSummary counts cases by status, and the warnings (failed SHOULD/MAY
// and advice checks) and notes (golden differences that are not
// normative) of the selected cases.
type JSONSummary struct {
	Passed   int `json:"passed"`
	Failed   int `json:"failed"`
	Skipped  int `json:"skipped"`
	Errored  int `json:"errored"`
	Warnings int `json:"warnings"`
	Notes    int `json:"notes"`
}

// JSONCase is one case's verdict. Failed and errored cases carry the
// evidence: the request as sent and the response as received, the
// fixture's absolute paths replaced by $ROOT and $OUTSIDE.
type JSONCase struct {
	Name            string        `json:"name"`
	Spec            string        `json:"spec"`
	IDs             []string      `json:"ids"`
	Interpretations []string      `json:"interpretations,omitempty"`
	File            string        `json:"file,omitempty"` // relative to conformance/cases
	Line            int           `json:"line,omitempty"`
	Doc             string        `json:"doc,omitempty"`
	Status          runner.Status `json:"status"`
	Message         string        `json:"message"`
	Failures        []JSONFailure `json:"failures,omitempty"`
	Warnings        []JSONFailure `json:"warnings,omitempty"`
	Notes           []JSONFailure `json:"notes,omitempty"`
	Request         *fcp.Request  `json:"request,omitempty"`
	Response        *fcp.Response `json:"response,omitempty"`
	// Turn is a turn case's transcript, an event an object (TurnEvent);
	// its Response then holds only ok.
	Turn   []TurnEvent `json:"turn,omitempty"`
	Stderr string      `json:"stderr,omitempty"`
	// Hint says what an errored case's error usually means (Hint).
	Hint       string `json:"hint,omitempty"`
	DurationUs int64  `json:"duration_us"`
	// Review is the case's review mark: the SRD revision whose change to
	// the IDs it names nobody has reviewed since (spec/review.jsonl).
	Review *JSONReview `json:"review,omitempty"`
}

// JSONFailure is one violated check.
type JSONFailure struct {
	IDs     []string `json:"ids"`
	Kind    string   `json:"kind"`
	Message string   `json:"message"`
	// Diff is a unified diff ("--- want", "+++ got") of text or of
	// pretty-printed JSON.
	Diff     string `json:"diff,omitempty"`
	Severity string `json:"severity,omitempty"`
	// Requirements say what the SRD says for each ID of IDs (when the run
	// has quotes: the SRD's own sentence with --srd-dir, else the summary).
	Requirements []JSONRequirement `json:"requirements,omitempty"`
}

// JSONID is one requirement's verdict.
type JSONID struct {
	ID       string        `json:"id"`
	Spec     string        `json:"spec"`
	Level    string        `json:"level"`
	Status   runner.Status `json:"status"`
	Cases    []string      `json:"cases"`
	Testable bool          `json:"testable"`
}

// BuildJSON assembles the JSON report.
func BuildJSON(run *runner.Run) JSONReport {
	s := selectedSummary(run)
	rep := JSONReport{Implementation: run.Implementation, Notes: run.Notes, ElapsedMs: run.Elapsed.Milliseconds(),
		Summary: JSONSummary{Passed: s[runner.Passed], Failed: s[runner.Failed], Skipped: s[runner.Skipped], Errored: s[runner.Errored]}}
	if rep.Notes == nil {
		rep.Notes = []string{}
	}
	rep.Cases, rep.IDs, rep.Conflicts = []JSONCase{}, []JSONID{}, []JSONConflict{}
	for _, r := range run.Results {
		if r.Unselected {
			continue
		}
		jc := JSONCase{Name: r.Case.FullName(), Spec: r.Case.Spec, IDs: r.Case.IDs, Interpretations: r.Case.Interpretations,
			File: r.Case.File, Line: r.Case.Line, Doc: r.Case.Doc,
			Status: r.Status, Message: r.Message, Stderr: r.Stderr, DurationUs: r.Duration.Microseconds(),
			Failures: jsonFailures(run, r.Failures), Warnings: jsonFailures(run, r.Warnings), Notes: jsonFailures(nil, r.Notes)}
		if r.Status == runner.Failed || r.Status == runner.Errored || r.ExpectedFailure {
			jc.Request, jc.Response = r.Request, received(r)
			if r.Turn != nil {
				jc.Turn = turnEvents(r.Turn)
				if jc.Response != nil {
					jc.Response = &fcp.Response{Seq: jc.Response.Seq, OK: jc.Response.OK}
				}
			}
		}
		if r.Status == runner.Errored {
			jc.Hint = Hint(seenResult(r))
		}
		jc.Review = jsonReview(r)
		rep.Cases = append(rep.Cases, jc)
		rep.Summary.Warnings += len(r.Warnings)
		rep.Summary.Notes += len(r.Notes)
	}
	for _, ir := range run.IDs {
		cases := ir.Cases
		if cases == nil {
			cases = []string{}
		}
		rep.IDs = append(rep.IDs, JSONID{ID: ir.ID, Spec: ir.Spec, Level: string(ir.Level), Status: ir.Status, Cases: cases, Testable: ir.Testable})
	}
	for _, c := range run.Conflicts {
		rep.Conflicts = append(rep.Conflicts, JSONConflict{ID: c.ID, Title: c.Title, Cases: conflictCases(run, c.ID)})
	}
	rep.Versions = checkedVersions(run)
	if st := run.Stopped; st != nil {
		rep.Stopped = &JSONStop{Cause: st.Cause, Cases: st.Cases, Hello: st.Hello, Stderr: st.Stderr, Reproduce: st.Reproduce}
	}
	return rep
}

// conflictCases names the selected cases that rely on the conflict id.
func conflictCases(run *runner.Run, id string) []string {
	out := []string{}
	for _, r := range run.Results {
		if !r.Unselected && has(r.Case.Interpretations, id) {
			out = append(out, r.Case.FullName())
		}
	}
	return out
}

// jsonFailures converts failures, with the requirements they are charged
// to when run (nil: none) has quotes.
func jsonFailures(run *runner.Run, fs []check.Failure) []JSONFailure {
	var out []JSONFailure
	for _, f := range fs {
		jf := JSONFailure{IDs: f.IDs, Kind: f.Kind, Message: f.Message, Diff: f.Diff, Severity: f.Severity}
		if run != nil {
			jf.Requirements = jsonRequirements(run, f)
		}
		out = append(out, jf)
	}
	return out
}

// selectedSummary counts the selected cases by status.
func selectedSummary(run *runner.Run) map[runner.Status]int {
	s := run.Summary()
	for _, r := range run.Results {
		if r.Unselected {
			s[r.Status]--
		}
	}
	return s
}

// JSON writes the JSON report.
func JSON(w io.Writer, run *runner.Run) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(BuildJSON(run))
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     float64      `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string           `xml:"name,attr"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Errors     int              `xml:"errors,attr"`
	Skipped    int              `xml:"skipped,attr"`
	Cases      []junitCase      `xml:"testcase"`
}

type junitCase struct {
	Name       string           `xml:"name,attr"`
	Classname  string           `xml:"classname,attr"`
	Time       float64          `xml:"time,attr"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Failure    *junitMessage    `xml:"failure,omitempty"`
	Error      *junitMessage    `xml:"error,omitempty"`
	Skipped    *junitMessage    `xml:"skipped,omitempty"`
	SystemOut  string           `xml:"system-out,omitempty"`
	SystemErr  string           `xml:"system-err,omitempty"`
}

type junitProperties struct {
	Props []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// JUnit writes JUnit XML: one testsuite per spec, one testcase per
// selected case, named by the case (stable when a case gains an ID), with
// its IDs and interpretations as properties ("id", "interpretation") and
// where it is defined ("file"), and the spec conflicts it touches
// ("conflict"). A failure's body holds each failure, its diff, and the
// request and response. Warnings and notes, which do not fail a case, are
// lines of the testcase's system-out ("warning ...", "note ..."); each
// testsuite counts them in its properties "warnings" and "notes".
func JUnit(w io.Writer, run *runner.Run) error {
	suites := map[string]*junitSuite{}
	warnings, notes := map[string]int{}, map[string]int{}
	var order []string
	top := junitSuites{Name: "forge-conform " + run.Implementation.Name, Time: run.Elapsed.Seconds()}
	for _, r := range run.Results {
		if r.Unselected {
			continue
		}
		s := suites[r.Case.Spec]
		if s == nil {
			s = &junitSuite{Name: r.Case.Spec}
			suites[r.Case.Spec] = s
			order = append(order, r.Case.Spec)
		}
		jc := junitCase{Name: r.Case.Name, Classname: r.Case.Spec, Time: r.Duration.Seconds(), SystemErr: xmlSafe(r.Stderr),
			Properties: withReview(junitProps(r.Case, run.Conflicts), r), SystemOut: xmlSafe(softFailures(r))}
		warnings[r.Case.Spec] += len(r.Warnings)
		notes[r.Case.Spec] += len(r.Notes)
		switch r.Status {
		case runner.Failed:
			var body strings.Builder
			for _, f := range r.Failures {
				fmt.Fprintf(&body, "%s [%s]: %s\n", f.Kind, strings.Join(f.IDs, ", "), f.Message)
				for _, q := range quotesOf(run, []check.Failure{f}) {
					for _, l := range quoteLines(q, run.Quotes.Given(), nil) {
						fmt.Fprintf(&body, "  %s\n", l)
					}
				}
				if f.Diff != "" {
					fmt.Fprintf(&body, "%s", shortDiff(f.Diff, evidenceLine, evidenceDiff))
				}
			}
			writeEvidence(&body, r)
			jc.Failure = &junitMessage{Message: xmlSafe(r.Message), Body: xmlSafe(body.String())}
			s.Failures++
			top.Failures++
		case runner.Errored:
			var body strings.Builder
			writeEvidence(&body, r)
			jc.Error = &junitMessage{Message: xmlSafe(r.Message), Body: xmlSafe(body.String())}
			s.Errors++
			top.Errors++
		case runner.Skipped:
			jc.Skipped = &junitMessage{Message: xmlSafe(r.Message)}
			s.Skipped++
			top.Skipped++
		}
		s.Tests++
		top.Tests++
		s.Cases = append(s.Cases, jc)
	}
	for _, n := range order {
		s := suites[n]
		s.Properties = &junitProperties{Props: []junitProperty{
			{Name: "warnings", Value: fmt.Sprint(warnings[n])}, {Name: "notes", Value: fmt.Sprint(notes[n])}}}
		top.Suites = append(top.Suites, *s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(top); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// softFailures renders a case's warnings and notes, one per line.
func softFailures(r *runner.Result) string {
	var b strings.Builder
	for _, list := range []struct {
		label string
		fs    []check.Failure
	}{{"warning", r.Warnings}, {"note", r.Notes}} {
		for _, f := range list.fs {
			fmt.Fprintf(&b, "%s %s [%s]: %s\n", list.label, f.Kind, strings.Join(f.IDs, ", "), f.Message)
			if f.Diff != "" {
				fmt.Fprintf(&b, "%s\n", f.Diff)
			}
		}
	}
	return b.String()
}

func junitProps(c *corpus.Case, conflicts []runner.Conflict) *junitProperties {
	p := &junitProperties{}
	for _, id := range c.IDs {
		p.Props = append(p.Props, junitProperty{Name: "id", Value: id})
	}
	for _, i := range c.Interpretations {
		p.Props = append(p.Props, junitProperty{Name: "interpretation", Value: i})
	}
	for _, k := range conflicts {
		if has(c.Interpretations, k.ID) {
			p.Props = append(p.Props, junitProperty{Name: "conflict", Value: k.ID + " " + k.Title})
		}
	}
	if c.File != "" {
		p.Props = append(p.Props, junitProperty{Name: "file", Value: fmt.Sprintf("conformance/cases/%s:%d", c.File, c.Line)})
	}
	return p
}

// writeEvidence appends the request and response lines ($ROOT for the
// fixture root).
func writeEvidence(b *strings.Builder, r *runner.Result) {
	if r.Request != nil {
		raw, _ := json.Marshal(r.Request)
		fmt.Fprintf(b, "request: %s\n", raw)
	}
	if evs := turnEvents(r.Turn); len(evs) > 0 {
		fmt.Fprintf(b, "turn (%d events):\n", len(evs))
		for _, l := range eventLines(evs, evidenceEvents) {
			fmt.Fprintf(b, "  %s\n", l)
		}
	} else if resp := received(r); resp != nil {
		raw, _ := json.Marshal(resp)
		fmt.Fprintf(b, "response: %s\n", clipMiddle(string(raw), evidenceBytes))
	}
	if r.Status == runner.Errored {
		if h := Hint(seenResult(r)); h != "" {
			fmt.Fprintf(b, "hint: %s\n", h)
		}
	}
}

// xmlSafe drops characters XML 1.0 cannot carry (control characters from
// file names and stderr would make the whole file unreadable).
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' || (r >= 0x20 && r != 0xFFFE && r != 0xFFFF) {
			return r
		}
		return '?'
	}, s)
}

func indent(s, pad string) string { return strings.ReplaceAll(s, "\n", "\n"+pad) }

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
