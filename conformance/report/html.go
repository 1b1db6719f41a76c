package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/forge-conform/forge-conform/conformance/runner"
)

// The page is one self-contained file: the style sheet is embedded and
// inlined, and there is no script (the filters are radio inputs that hide
// rows through CSS sibling selectors; the evidence sits in <details> in a
// full-width row under its ID's row).
var (
	//go:embed assets/matrix.css
	matrixCSS string
	//go:embed assets/matrix.html.tmpl
	matrixTmpl string
)

// HTML writes the matrix as one self-contained HTML page: a table per
// spec, a row per ID, a column per implementation, and in each failing
// cell the cases that blame the ID with their diffs, one click away.
func HTML(w io.Writer, m Matrix) error {
	t, err := template.New("matrix").Funcs(template.FuncMap{
		"counts":    Counts,
		"diffLines": diffLines,
		"symbol":    symbol,
		"rowClass":  rowClass,
		"anchor":    anchor,
		"specCount": specCount,
		"fails":     func(m Matrix) int { return countRows(m, func(r MatrixRow) bool { return r.Attention }) },
		"differs":   differing,
		"colFails":  func(m Matrix, i int) int { return countRows(m, func(r MatrixRow) bool { return failing(r.Cells[i]) }) },
		"add":       func(a, b int) int { return a + b },
		"breakable": breakable,
		"css":       func() template.CSS { return template.CSS(matrixCSS) },
	}).Parse(matrixTmpl)
	if err != nil {
		return err
	}
	return t.Execute(w, m)
}

// RunHTML writes a single run's page (a matrix of one column).
func RunHTML(w io.Writer, run *runner.Run, command string) error {
	return HTML(w, BuildMatrix([]Column{{Command: command, Run: run}}))
}

// DiffLine is one line of a unified diff with its class (add, del, hunk,
// head or ctx) for colouring.
type DiffLine struct{ Class, Text string }

func diffLines(d string) []DiffLine {
	var out []DiffLine
	for _, l := range strings.Split(strings.TrimRight(d, "\n"), "\n") {
		class := "ctx"
		switch {
		case strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ "):
			class = "head"
		case strings.HasPrefix(l, "@@"):
			class = "hunk"
		case strings.HasPrefix(l, "+"):
			class = "add"
		case strings.HasPrefix(l, "-"):
			class = "del"
		}
		out = append(out, DiffLine{class, l})
	}
	return out
}

// symbol is a status's sign, so that the table reads without colour too.
func symbol(s runner.Status) string {
	switch s {
	case runner.Passed:
		return "✓"
	case runner.Failed:
		return "✗"
	case runner.Errored:
		return "!"
	case runner.Skipped:
		return "–"
	case runner.Planned:
		return "…"
	case runner.Uncovered:
		return "?"
	}
	return "·"
}

// rowClass classes a row for the filters: attention (fails somewhere),
// differs (passed against failed), fails-N (column N fails it), else
// quiet.
func rowClass(r MatrixRow) string {
	var cs []string
	if r.Attention {
		cs = append(cs, "attention")
	}
	if r.Differs {
		cs = append(cs, "differs")
	}
	for i, c := range r.Cells {
		if failing(c) {
			cs = append(cs, fmt.Sprintf("fails-%d", i))
		}
	}
	if !r.Attention {
		cs = append(cs, "quiet")
	}
	return strings.Join(cs, " ")
}

func failing(c MatrixCell) bool { return c.Status == runner.Failed || c.Status == runner.Errored }

// countRows counts the matrix's rows that ok accepts.
func countRows(m Matrix, ok func(MatrixRow) bool) int {
	n := 0
	for _, s := range m.Specs {
		for _, r := range s.Rows {
			if ok(r) {
				n++
			}
		}
	}
	return n
}

// anchor is an element id for a spec or an ID.
func anchor(parts ...string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, strings.Join(parts, "-"))
}

// specCount is how many of a spec's rows need attention in some column.
func specCount(s MatrixSpec) int {
	n := 0
	for _, r := range s.Rows {
		if r.Attention {
			n++
		}
	}
	return n
}

// breakable lets a label wrap after the punctuation of its name and version
// ("forge-rust 2.0.0-beta.1+build.5") rather than anywhere.
func breakable(s string) template.HTML {
	var b strings.Builder
	for _, r := range s {
		b.WriteString(template.HTMLEscapeString(string(r)))
		if r == '-' || r == '.' || r == '+' || r == '/' || r == '_' {
			b.WriteString("<wbr>")
		}
	}
	return template.HTML(b.String())
}
