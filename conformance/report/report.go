// Package report renders a run: a human report grouped by spec and ID, the
// JSON report whose shape CI scripts rely on, and JUnit XML.
package report

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// TextOptions tune the human report.
type TextOptions struct {
	// Verbose lists every ID and every case, not only the ones that need
	// attention.
	Verbose bool
}

// Text writes the human report.
func Text(w io.Writer, run *runner.Run, o TextOptions) {
	im := run.Implementation
	fmt.Fprintf(w, "forge-conform: checking %s %s (%s)\n", orDash(im.Name), im.Version, orDash(im.Language))
	for _, n := range run.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	bySpec := map[string][]runner.IDResult{}
	var specs []string
	for _, ir := range run.IDs {
		if _, ok := bySpec[ir.Spec]; !ok {
			specs = append(specs, ir.Spec)
		}
		bySpec[ir.Spec] = append(bySpec[ir.Spec], ir)
	}
	for _, s := range specs {
		ids := bySpec[s]
		counts := map[runner.Status]int{}
		for _, ir := range ids {
			counts[ir.Status]++
		}
		fmt.Fprintf(w, "\n%s: %s\n", s, countLine(counts, []runner.Status{runner.Passed, runner.Failed, runner.Errored, runner.Skipped, runner.Uncovered, runner.Planned, runner.Untestable}))
		for _, ir := range ids {
			attention := ir.Status == runner.Failed || ir.Status == runner.Errored || ir.Status == runner.Uncovered
			if !attention && !o.Verbose {
				continue
			}
			fmt.Fprintf(w, "  %-10s %-16s %s\n", strings.ToUpper(string(ir.Status)), ir.ID, ir.Summary)
			if !attention {
				continue
			}
			for _, r := range blamed(run.Results, ir) {
				writeCase(w, r, ir)
			}
		}
	}
	fmt.Fprintln(w)
	skips := map[string]int{}
	for _, r := range run.Results {
		switch {
		case r.Status == runner.Skipped:
			skips[r.Message]++
		case o.Verbose:
			fmt.Fprintf(w, "%-8s %s (%s)\n", strings.ToUpper(string(r.Status)), r.Case.FullName(), r.Duration.Round(10000))
		}
	}
	reasons := make([]string, 0, len(skips))
	for m := range skips {
		reasons = append(reasons, m)
	}
	sort.Strings(reasons)
	for _, m := range reasons {
		fmt.Fprintf(w, "skipped %d case(s): %s\n", skips[m], m)
	}
	idCounts := map[runner.Status]int{}
	for _, ir := range run.IDs {
		idCounts[ir.Status]++
	}
	fmt.Fprintf(w, "IDs: %s\n", countLine(idCounts, []runner.Status{runner.Passed, runner.Failed, runner.Errored, runner.Skipped, runner.Uncovered, runner.Planned, runner.Untestable}))
	s := run.Summary()
	fmt.Fprintf(w, "cases: %d passed, %d failed, %d skipped, %d errored in %s\n", s[runner.Passed], s[runner.Failed], s[runner.Skipped], s[runner.Errored], run.Elapsed.Round(1000000))
}

// blamed returns the failed or errored cases behind an ID's verdict: the
// cases covering it, and any case with a failure naming it (an invariant
// tagged with the ID can fail on a case that covers other IDs).
func blamed(results []*runner.Result, ir runner.IDResult) []*runner.Result {
	covers := map[string]bool{}
	for _, c := range ir.Cases {
		covers[c] = true
	}
	var out []*runner.Result
	for _, r := range results {
		switch {
		case r.Status != runner.Failed && r.Status != runner.Errored:
		case covers[r.Case.FullName()]:
			out = append(out, r)
		default:
			for _, f := range r.Failures {
				if names(r, f.IDs, ir) {
					out = append(out, r)
					break
				}
			}
		}
	}
	return out
}

// names reports whether ids (as a failure of r names them) include ir's ID.
func names(r *runner.Result, ids []string, ir runner.IDResult) bool {
	want := corpus.Ref{Spec: ir.Spec, ID: ir.ID}
	for _, id := range ids {
		if corpus.ParseRef(r.Case.Spec, id) == want {
			return true
		}
	}
	return false
}

func writeCase(w io.Writer, r *runner.Result, ir runner.IDResult) {
	fmt.Fprintf(w, "             %s %s\n", strings.ToUpper(string(r.Status)), r.Case.FullName())
	if r.Status == runner.Errored {
		fmt.Fprintf(w, "               %s\n", r.Message)
		if r.Stderr != "" {
			fmt.Fprintf(w, "               stderr: %s\n", indent(strings.TrimSpace(r.Stderr), "               "))
		}
		return
	}
	for _, f := range r.Failures {
		if !names(r, f.IDs, ir) {
			continue
		}
		fmt.Fprintf(w, "               %s: %s\n", f.Kind, f.Message)
		if f.Diff != "" {
			fmt.Fprintf(w, "               diff (-want +got):\n               %s\n", indent(strings.TrimRight(f.Diff, "\n"), "               "))
		}
	}
	if len(r.Failures) == 0 {
		fmt.Fprintf(w, "               %s\n", r.Message)
	}
	if len(r.Case.Interpretations) > 0 {
		fmt.Fprintf(w, "               relies on %s (spec/INTERPRETATIONS.md)\n", strings.Join(r.Case.Interpretations, ", "))
	}
}

func countLine(m map[runner.Status]int, order []runner.Status) string {
	var parts []string
	for _, s := range order {
		if m[s] > 0 || s == runner.Passed || s == runner.Failed {
			parts = append(parts, fmt.Sprintf("%d %s", m[s], s))
		}
	}
	return strings.Join(parts, ", ")
}

// JSONReport is the machine-readable report. Its field names are a
// user-facing interface: extend, never rename.
type JSONReport struct {
	Implementation fcp.Implementation `json:"implementation"`
	Notes          []string           `json:"notes"`
	Summary        JSONSummary        `json:"summary"`
	Cases          []JSONCase         `json:"cases"`
	IDs            []JSONID           `json:"ids"`
	ElapsedMs      int64              `json:"elapsed_ms"`
}

// JSONSummary counts cases by status.
type JSONSummary struct {
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	Errored int `json:"errored"`
}

// JSONCase is one case's verdict.
type JSONCase struct {
	Name            string        `json:"name"`
	Spec            string        `json:"spec"`
	IDs             []string      `json:"ids"`
	Interpretations []string      `json:"interpretations,omitempty"`
	Status          runner.Status `json:"status"`
	Message         string        `json:"message"`
	Failures        []JSONFailure `json:"failures,omitempty"`
	Stderr          string        `json:"stderr,omitempty"`
	DurationUs      int64         `json:"duration_us"`
}

// JSONFailure is one violated check.
type JSONFailure struct {
	IDs     []string `json:"ids"`
	Kind    string   `json:"kind"`
	Message string   `json:"message"`
	Diff    string   `json:"diff,omitempty"`
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
	s := run.Summary()
	rep := JSONReport{Implementation: run.Implementation, Notes: run.Notes, ElapsedMs: run.Elapsed.Milliseconds(),
		Summary: JSONSummary{Passed: s[runner.Passed], Failed: s[runner.Failed], Skipped: s[runner.Skipped], Errored: s[runner.Errored]}}
	if rep.Notes == nil {
		rep.Notes = []string{}
	}
	rep.Cases, rep.IDs = []JSONCase{}, []JSONID{}
	for _, r := range run.Results {
		jc := JSONCase{Name: r.Case.FullName(), Spec: r.Case.Spec, IDs: r.Case.IDs, Interpretations: r.Case.Interpretations,
			Status: r.Status, Message: r.Message, Stderr: r.Stderr, DurationUs: r.Duration.Microseconds()}
		for _, f := range r.Failures {
			jc.Failures = append(jc.Failures, JSONFailure(f))
		}
		rep.Cases = append(rep.Cases, jc)
	}
	for _, ir := range run.IDs {
		cases := ir.Cases
		if cases == nil {
			cases = []string{}
		}
		rep.IDs = append(rep.IDs, JSONID{ID: ir.ID, Spec: ir.Spec, Level: string(ir.Level), Status: ir.Status, Cases: cases, Testable: ir.Testable})
	}
	return rep
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
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      float64       `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemErr string        `xml:"system-err,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// JUnit writes JUnit XML: one testsuite per spec, one testcase per case,
// named "<case> [IDs]" so CI dashboards show the requirements.
func JUnit(w io.Writer, run *runner.Run) error {
	suites := map[string]*junitSuite{}
	var order []string
	top := junitSuites{Name: "forge-conform " + run.Implementation.Name, Time: run.Elapsed.Seconds()}
	for _, r := range run.Results {
		s := suites[r.Case.Spec]
		if s == nil {
			s = &junitSuite{Name: r.Case.Spec}
			suites[r.Case.Spec] = s
			order = append(order, r.Case.Spec)
		}
		jc := junitCase{Name: fmt.Sprintf("%s [%s]", r.Case.Name, strings.Join(r.Case.IDs, " ")), Classname: r.Case.Spec, Time: r.Duration.Seconds(), SystemErr: xmlSafe(r.Stderr)}
		switch r.Status {
		case runner.Failed:
			var body strings.Builder
			for _, f := range r.Failures {
				fmt.Fprintf(&body, "%s [%s]: %s\n", f.Kind, strings.Join(f.IDs, ", "), f.Message)
				if f.Diff != "" {
					fmt.Fprintf(&body, "%s\n", f.Diff)
				}
			}
			jc.Failure = &junitMessage{Message: xmlSafe(r.Message), Body: xmlSafe(body.String())}
			s.Failures++
			top.Failures++
		case runner.Errored:
			jc.Error = &junitMessage{Message: xmlSafe(r.Message)}
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
		top.Suites = append(top.Suites, *suites[n])
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
