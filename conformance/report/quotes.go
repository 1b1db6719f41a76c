package report

import (
	"fmt"
	"strings"

	"github.com/forge-conform/forge-conform/conformance/check"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/spec/quote"
)

// quotesOf returns the quotes of the IDs the failures are charged to, in
// order, each once; nil when the run has no quote book.
func quotesOf(run *runner.Run, fs []check.Failure) []quote.Quote {
	if run.Quotes == nil {
		return nil
	}
	var out []quote.Quote
	seen := map[string]bool{}
	for _, f := range fs {
		for _, id := range f.IDs {
			if seen[id] {
				continue
			}
			seen[id] = true
			if q, ok := run.Quotes.Quote(id); ok {
				out = append(out, q)
			}
		}
	}
	return out
}

// quoteLines renders a quote: a "SRD:" line per sentence read from the
// user's SRD, else one "summary:" line with our paraphrase and where the
// sentence is. clip shortens texts (nil: whole).
func quoteLines(q quote.Quote, given bool, clip func(string) string) []string {
	if clip == nil {
		clip = func(s string) string { return s }
	}
	var out []string
	for _, s := range q.Sentences {
		if s.Text == "" {
			continue
		}
		where := s.Where
		if s.Stale {
			where += ", changed since the catalog was written: the catalog is out of date"
		}
		out = append(out, fmt.Sprintf("SRD: %s (%s): %s", q.ID, where, clip(clean(s.Text))))
	}
	if len(out) > 0 {
		return out
	}
	why := "no SRDs given; --srd-dir DIR quotes them"
	if given {
		var reasons []string
		for _, s := range q.Sentences {
			reasons = append(reasons, s.Missing)
		}
		why = strings.Join(reasons, "; ")
	}
	where := q.Where()
	if where == "" {
		where = "not anchored"
	}
	return []string{fmt.Sprintf("summary: %s (%s; %s): %s", q.ID, where, why, clip(clean(q.Summary)))}
}

// JSONRequirement is what the SRD says for an ID a failure is charged to:
// its sentences read from the user's SRD (--srd-dir), else the catalog's
// summary and where the sentence is.
type JSONRequirement struct {
	ID        string         `json:"id"`
	Summary   string         `json:"summary"`
	Sentences []JSONSentence `json:"sentences"`
}

// JSONSentence is one anchored sentence of a requirement.
type JSONSentence struct {
	Where    string `json:"where"`
	Document string `json:"document"`
	Section  string `json:"section"`
	Text     string `json:"text,omitempty"`
	Stale    bool   `json:"stale,omitempty"`
	Missing  string `json:"missing,omitempty"`
}

func jsonRequirements(run *runner.Run, f check.Failure) []JSONRequirement {
	var out []JSONRequirement
	for _, q := range quotesOf(run, []check.Failure{f}) {
		jr := JSONRequirement{ID: q.ID, Summary: q.Summary, Sentences: []JSONSentence{}}
		for _, s := range q.Sentences {
			jr.Sentences = append(jr.Sentences, JSONSentence{Where: s.Where, Document: s.Document, Section: s.Section,
				Text: s.Text, Stale: s.Stale, Missing: s.Missing})
		}
		out = append(out, jr)
	}
	return out
}
