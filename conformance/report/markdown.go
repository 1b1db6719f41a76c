package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/forge-conform/forge-conform/conformance/runner"
)

// Markdown writes the matrix as GitHub-flavoured Markdown: a summary per
// implementation, a table per spec (a row per ID, a column per
// implementation), then the failing cells with their cases, each diff in a
// collapsed <details> block.
func Markdown(w io.Writer, m Matrix) error {
	var b strings.Builder
	b.WriteString("# forge-conform\n\n")
	b.WriteString("| implementation | language | command | IDs | cases |\n| --- | --- | --- | --- | --- |\n")
	for _, c := range m.Columns {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", mdCell(c.Label), mdCell(orDash(c.Implementation.Language)),
			mdCode(c.Command), countsText(c.IDs), countsText(c.Cases))
	}
	b.WriteString("\n✓ passed · ✗ failed · ! errored · – skipped · ? uncovered · … planned · · untestable through FCP/1\n")
	for _, s := range m.Specs {
		fmt.Fprintf(&b, "\n## %s\n\n| ID | level | requirement |", s.Spec)
		for _, c := range m.Columns {
			fmt.Fprintf(&b, " %s |", mdCell(c.Label))
		}
		b.WriteString("\n| --- | --- | --- |")
		b.WriteString(strings.Repeat(" --- |", len(m.Columns)))
		b.WriteString("\n")
		for _, r := range s.Rows {
			fmt.Fprintf(&b, "| %s | %s | %s |", r.ID, r.Level, mdCell(mdClip(r.Summary, 100)))
			for _, c := range r.Cells {
				cell := symbol(c.Status) + " " + string(c.Status)
				if c.Status == runner.Failed || c.Status == runner.Errored {
					cell = "**" + cell + "**"
				}
				fmt.Fprintf(&b, " %s |", cell)
			}
			b.WriteString("\n")
		}
	}
	failing := false
	for _, s := range m.Specs {
		for _, r := range s.Rows {
			for ci, c := range r.Cells {
				if len(c.Evidence) == 0 {
					continue
				}
				if !failing {
					b.WriteString("\n## Failures\n")
					failing = true
				}
				fmt.Fprintf(&b, "\n### %s %s: %s %s\n", s.Spec, r.ID, m.Columns[ci].Label, c.Status)
				for _, e := range c.Evidence {
					fmt.Fprintf(&b, "\n- **%s** `%s`", e.Status, e.Case)
					if e.File != "" {
						fmt.Fprintf(&b, " (%s)", e.File)
					}
					if len(e.Failures) == 0 {
						fmt.Fprintf(&b, ": %s", mdText(e.Message)) // else it is the first failure's
					}
					b.WriteString("\n")
					if e.Hint != "" {
						fmt.Fprintf(&b, "  - hint: %s\n", mdText(e.Hint))
					}
					for _, f := range e.Failures {
						fmt.Fprintf(&b, "  - %s [%s]: %s\n", f.Kind, strings.Join(f.IDs, " "), mdText(f.Message))
						if f.Diff != "" {
							fmt.Fprintf(&b, "\n    <details><summary>diff</summary>\n\n    ```diff\n%s    ```\n\n    </details>\n\n",
								indentLines(fence(f.Diff), "    "))
						}
					}
					if len(e.Events) > 0 {
						fmt.Fprintf(&b, "\n    <details><summary>turn (%d lines)</summary>\n\n    ```\n%s    ```\n\n    </details>\n\n",
							len(e.Events), indentLines(fence(strings.Join(e.Events, "\n")), "    "))
					}
					if e.Stderr != "" {
						fmt.Fprintf(&b, "\n    <details><summary>stderr</summary>\n\n    ```\n%s    ```\n\n    </details>\n\n",
							indentLines(fence(e.Stderr), "    "))
					}
				}
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// RunMarkdown writes a single run as Markdown (a matrix of one column).
func RunMarkdown(w io.Writer, run *runner.Run, command string) error {
	return Markdown(w, BuildMatrix([]Column{{Command: command, Run: run}}))
}

func countsText(m map[runner.Status]int) string {
	var parts []string
	for _, c := range Counts(m) {
		parts = append(parts, fmt.Sprintf("%d %s", c.N, c.Status))
	}
	return strings.Join(parts, ", ")
}

// mdCell makes text safe inside a table cell: one line, pipes escaped.
func mdCell(s string) string {
	s = strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ", "<", "&lt;", ">", "&gt;").Replace(s)
	return s
}

// mdText makes a message safe in running text.
func mdText(s string) string {
	return strings.NewReplacer("\n", " ", "<", "&lt;", ">", "&gt;", "`", "'").Replace(s)
}

// mdCode is a command in backticks ("built-in" when empty).
func mdCode(s string) string {
	if s == "" {
		return "built-in reference"
	}
	s = strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ", "`", "'").Replace(s)
	return "`" + s + "`"
}

// fence keeps a block from closing its code fence early.
func fence(s string) string { return strings.ReplaceAll(s, "```", "`\u200b``") }

// mdClip shortens s to about n bytes, at a rune boundary, with an ellipsis.
func mdClip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return strings.TrimRight(s[:n], " ") + "…"
}
