package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/diff"
	"github.com/forge-conform/forge-conform/spec"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// A golden file holds one normalized response: a JSON header line, then
// (for successful calls) the exact content bytes.
//
//	{"ok":true,"allow_truncation":false}
//	{"path":".","entries":[...],...}
//
// For errors the header carries kind and denial; the message is free text
// unless the SRD fixes it, and the case's expectation checks the words that
// matter. Inside content, free-text fields are masked before comparing
// (list_directory's per-entry "error" messages, which the SRD only asks to
// be "short, non-localized").

type goldenHeader struct {
	OK              bool           `json:"ok"`
	AllowTruncation *bool          `json:"allow_truncation,omitempty"`
	Kind            string         `json:"kind,omitempty"`
	Denial          *fcp.Denial    `json:"denial,omitempty"`
	Definitions     []goldenDefRef `json:"definitions,omitempty"`
}

type goldenDefRef struct {
	Name string `json:"name"`
}

// Golden renders the golden file for a normalized response.
func Golden(tool string, r fcp.Response) []byte {
	h := goldenHeader{OK: r.OK != nil && *r.OK, AllowTruncation: r.AllowTruncation}
	if r.Error != nil {
		h.Kind, h.Denial = r.Error.Kind, r.Error.Denial
	}
	var body []byte
	if r.Definitions != nil {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		_ = enc.Encode(r.Definitions)
		body = bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	} else if r.Summary != nil {
		body = []byte(r.RiskLevel + "\n" + *r.Summary)
	} else if r.Content != nil {
		body = []byte(*r.Content)
		if tool == "search_files" {
			// Stored masked, so regenerating goldens does not churn.
			body = elapsedField.ReplaceAll(body, []byte(`"elapsed_ms":0`))
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(h)
	buf.Write(body)
	return buf.Bytes()
}

var entryErrorField = regexp.MustCompile(`"error":"(?:[^"\\]|\\.)*"`)

// elapsedField is search_files' stats.elapsed_ms, the one field that varies
// between runs (I-SF-18).
var elapsedField = regexp.MustCompile(`"elapsed_ms":-?[0-9]+`)

// mask hides free-text fields of a tool's content.
func mask(tool string, golden []byte) []byte {
	switch tool {
	case "list_directory":
		return entryErrorField.ReplaceAll(golden, []byte(`"error":"<free text>"`))
	case "search_files":
		return elapsedField.ReplaceAll(golden, []byte(`"elapsed_ms":0`))
	}
	return golden
}

// normativeTools are the tools whose SRD fixes the bytes of a successful
// call's output: list_directory's JSON (FR-LD-OUT-*) and Codex list_dir's
// text (the handler's format).
var normativeTools = map[string]bool{"list_directory": true, "list_dir": true}

// GoldenNormative reports whether the SRD fixes the golden bytes of c's
// response, so that a golden difference is a failure for any
// implementation: a successful call of a normativeTools tool whose case
// names only interpretations of class forced. Elsewhere the golden pins the
// reference's choices, and a difference is a note (spec/INTERPRETATIONS.md,
// the rule).
func GoldenNormative(c *corpus.Case, r fcp.Response, classes map[string]spec.Class) bool {
	if c.Op != fcp.OpCall || !normativeTools[c.Tool] || r.OK == nil || !*r.OK {
		return false
	}
	for _, id := range c.Interpretations {
		if classes[id] != spec.ClassForced {
			return false
		}
	}
	return true
}

// CompareGolden compares the golden file want with the rendering of the
// response. ids are the case's IDs.
func CompareGolden(tool string, want []byte, r fcp.Response, ids []string) []Failure {
	got := Golden(tool, r)
	w, g := mask(tool, want), mask(tool, got)
	if bytes.Equal(w, g) {
		return nil
	}
	return []Failure{{IDs: ids, Kind: KindGolden,
		Message: fmt.Sprintf("response differs from the golden bytes (%d bytes want, %d got)", len(w), len(g)),
		Diff:    goldenDiff(w, g)}}
}

// goldenDiff is a unified diff, line by line; one-line JSON bodies are
// indented first so the diff points at the entry that differs.
func goldenDiff(want, got []byte) string {
	return diff.Text(strings.Join(goldenLines(want), "\n")+"\n", strings.Join(goldenLines(got), "\n")+"\n")
}

func goldenLines(b []byte) []string {
	head, body, _ := bytes.Cut(b, []byte("\n"))
	lines := []string{string(head)}
	var ind bytes.Buffer
	if json.Valid(body) && json.Indent(&ind, body, "", "  ") == nil && !bytes.Contains(body, []byte("\n")) {
		return append(lines, strings.Split(ind.String(), "\n")...)
	}
	return append(lines, strings.Split(string(body), "\n")...)
}

// GoldenDiffOf diffs the golden renderings of two responses.
func GoldenDiffOf(tool string, want, got fcp.Response) string {
	return goldenDiff(mask(tool, Golden(tool, want)), mask(tool, Golden(tool, got)))
}
