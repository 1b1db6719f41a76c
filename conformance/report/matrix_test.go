package report_test

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/conformance/diff"
	"github.com/forge-conform/forge-conform/conformance/report"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// passingRun is sampleRun as an implementation that passes every case it
// ran would report it.
func passingRun() *runner.Run {
	run := sampleRun()
	run.Implementation = fcp.Implementation{Name: "forge-reference", Version: "0.1.0", Language: "go"}
	run.Notes = nil
	for _, r := range run.Results {
		if r.Status == runner.Failed || r.Status == runner.Errored {
			r.Status, r.Message, r.Failures, r.Warnings, r.Stderr = runner.Passed, "", nil, nil, ""
		}
	}
	for i := range run.IDs {
		if s := run.IDs[i].Status; s == runner.Failed || s == runner.Errored {
			run.IDs[i].Status = runner.Passed
		}
	}
	return run
}

func sampleMatrix() report.Matrix {
	return report.BuildMatrix([]report.Column{
		{Command: "forge-conform ref", Run: passingRun()},
		{Command: "./target/release/my-impl --fcp", Run: sampleRun()},
	})
}

// checkGolden compares got with testdata/name (go test -update rewrites it).
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := "testdata/" + name
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if d := diff.Text(string(want), string(got)); d != "" {
		t.Errorf("the output differs from %s (go test -update rewrites it after review):\n%s", path, d)
	}
}

func TestMatrixGoldens(t *testing.T) {
	tests := []struct {
		golden string
		render func(*bytes.Buffer) error
	}{
		{"matrix.html", func(b *bytes.Buffer) error { return report.HTML(b, sampleMatrix()) }},
		{"matrix.md", func(b *bytes.Buffer) error { return report.Markdown(b, sampleMatrix()) }},
		{"run.html", func(b *bytes.Buffer) error { return report.RunHTML(b, sampleRun(), "") }},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tt.render(&buf); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tt.golden, buf.Bytes())
		})
	}
}

func TestBuildMatrix(t *testing.T) {
	ref := passingRun()
	for i := range ref.IDs {
		if ref.IDs[i].ID == "FR-LD-DEF-01" {
			ref.IDs[i].Status = runner.Passed
		}
	}
	m := report.BuildMatrix([]report.Column{{Command: "forge-conform ref", Run: ref}, {Command: "my-impl", Run: sampleRun()}})
	if len(m.Columns) != 2 || m.Columns[0].Label != "forge-reference 0.1.0" || m.Columns[1].Label != "my-impl 1.2.3" {
		t.Fatalf("columns are named as hello names them, got %+v", m.Columns)
	}
	if !m.Columns[0].OK || m.Columns[1].OK {
		t.Errorf("OK: reference %v, my-impl %v; want true, false", m.Columns[0].OK, m.Columns[1].OK)
	}
	rows := map[string]report.MatrixRow{}
	for _, s := range m.Specs {
		for _, r := range s.Rows {
			rows[s.Spec+":"+r.ID] = r
		}
	}
	tests := []struct {
		id                 string
		ref, impl          runner.Status
		evidence           int
		differs, attention bool
	}{
		{"list_directory:T-LD-05", runner.Passed, runner.Failed, 1, true, true},
		{"list_directory:T-LD-02", runner.Passed, runner.Errored, 1, true, true},
		{"list_directory:T-LD-01", runner.Passed, runner.Passed, 0, false, false},
		{"codex_list_dir:CX-LD-FMT-02", runner.Passed, runner.Failed, 1, true, true},
		// skipped against passed is no difference in behaviour
		{"list_directory:FR-LD-DEF-01", runner.Passed, runner.Skipped, 0, false, false},
	}
	for _, tt := range tests {
		r, ok := rows[tt.id]
		if !ok {
			t.Errorf("no row %s", tt.id)
			continue
		}
		if r.Cells[0].Status != tt.ref || r.Cells[1].Status != tt.impl {
			t.Errorf("%s: cells %s, %s; want %s, %s", tt.id, r.Cells[0].Status, r.Cells[1].Status, tt.ref, tt.impl)
		}
		if len(r.Cells[0].Evidence) != 0 || len(r.Cells[1].Evidence) != tt.evidence {
			t.Errorf("%s: evidence %d, %d; want 0, %d", tt.id, len(r.Cells[0].Evidence), len(r.Cells[1].Evidence), tt.evidence)
		}
		if r.Differs != tt.differs || r.Attention != tt.attention {
			t.Errorf("%s: differs %v attention %v; want %v %v", tt.id, r.Differs, r.Attention, tt.differs, tt.attention)
		}
	}
	// --run/--skip left a case out: IDs no selected case covers are left
	// out too.
	for _, id := range []string{"list_directory:C-01", "list_directory:T-LD-14"} {
		if _, ok := rows[id]; ok {
			t.Errorf("%s is covered by no selected case, but has a row", id)
		}
	}
	ev := rows["list_directory:T-LD-05"].Cells[1].Evidence[0]
	if ev.Case != "list_directory/dfs-truncation-4" || len(ev.Failures) != 1 || !strings.HasPrefix(ev.Failures[0].Diff, "--- want\n+++ got\n") {
		t.Errorf("T-LD-05's evidence is the failing case with its diff, got %+v", ev)
	}
	if !strings.Contains(ev.Request, `"working_dir":"$ROOT"`) || !strings.HasPrefix(ev.Response, "ok, 108 bytes") {
		t.Errorf("the evidence carries the request and response, got %q and %q", ev.Request, ev.Response)
	}
}

func TestMatrixSameHello(t *testing.T) {
	m := report.BuildMatrix([]report.Column{{Run: sampleRun()}, {Run: sampleRun()}, {Run: sampleRun()}})
	var got []string
	for _, c := range m.Columns {
		got = append(got, c.Label)
	}
	if want := "my-impl 1.2.3|my-impl 1.2.3 #2|my-impl 1.2.3 #3"; strings.Join(got, "|") != want {
		t.Errorf("labels %q, want %q", strings.Join(got, "|"), want)
	}
}

// The page stands alone (no script, no external style sheet, font or
// image) and every failing cell opens on its diff.
func TestHTMLSelfContained(t *testing.T) {
	var buf bytes.Buffer
	if err := report.HTML(&buf, sampleMatrix()); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, re := range []string{`(?i)<script`, `(?i)<link`, `(?i)\ssrc=`, `(?i)href="(https?:)?//`, `(?i)@import`, `(?i)url\(`} {
		if regexp.MustCompile(re).MatchString(page) {
			t.Errorf("the page must be self-contained, but it matches %s", re)
		}
	}
	for _, want := range []string{
		"<style>",
		`<th class="col" title="./target/release/my-impl --fcp">my-<wbr>impl 1.<wbr>2.<wbr>3</th>`,
		`<details><summary><span class="s-failed">✗ failed</span> T-LD-05 in my-impl 1.2.3 <span class="n">(1 case)</span></summary>`,
		`<input type="radio" name="filter" id="f-differs" class="filter">`,
		`<label for="f-col1" class="l-col1">failures of my-<wbr>impl 1.<wbr>2.<wbr>3 (5)</label>`,
		`#f-col1:checked ~ main tbody tr:not(.fails-1) { display: none; }`,
		`<tr class="attention differs fails-1" id="list_directory-T-LD-05">`,
		`<tr class="ev attention differs fails-1" id="list_directory-T-LD-05-ev">`,
		`<pre class="events">  1 message user &#34;do it&#34;`,
		`<span class="del">-      &#34;path&#34;: &#34;a/x&#34;</span>`,
		`<span class="add">&#43;      &#34;path&#34;: &#34;b&#34;</span>`,
		`panic: boom`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// A failing case's message is its first failure's: shown once.
	if n := strings.Count(page, "result differs from the expectation (only the fields the case lists are compared)"); n != 2 {
		t.Errorf("the failure's message appears %d times, want twice (once for each ID it blames)", n)
	}
	if strings.Contains(page, "\x1b") || strings.Contains(page, "\x00") {
		t.Error("control characters from the implementation reach the page")
	}
}
