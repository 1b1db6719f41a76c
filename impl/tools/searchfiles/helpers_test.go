package searchfiles

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/internal/tooltest"
	"github.com/forge-conform/forge-conform/impl/tool"
	scratchdir "github.com/forge-conform/forge-conform/internal/scratch"
)

// TestMain fixes the clock, so elapsed_ms is 0 and outputs are
// byte-for-byte comparable (TestElapsed checks the real measurement).
func TestMain(m *testing.M) {
	fixed := time.Date(2026, 1, 8, 0, 0, 0, 0, time.UTC)
	now = func() time.Time { return fixed }
	os.Exit(scratchdir.Wrap(m).Run()) // trees on tmpfs where it can (internal/scratch)
}

// run executes c with Tool{} on the tree at root and checks every
// successful output against checkInvariants.
func run(tb testing.TB, root string, c tooltest.Call) (string, *tool.Ctx, error) {
	tb.Helper()
	out, ctx, err := tooltest.Run(tb, Tool{}, root, c)
	if err == nil {
		checkInvariants(tb, out, ctx.EffectiveMax())
		if ctx.AllowTruncation {
			tb.Errorf("allow_truncation left true (FR-SF-OUT-04)")
		}
	}
	return out, ctx, err
}

// mustRun is run for calls that must succeed; it returns the output.
func mustRun(tb testing.TB, root string, c tooltest.Call) string {
	tb.Helper()
	out, _, err := run(tb, root, c)
	if err != nil {
		tb.Fatalf("%s: %v", c.Args, err)
	}
	return out
}

type outMatch struct {
	Path      string   `json:"path"`
	Line      int64    `json:"line"`
	Column    int64    `json:"column"`
	MatchText string   `json:"match_text"`
	LineText  string   `json:"line_text"`
	Before    []string `json:"before"`
	After     []string `json:"after"`
	Score     *float64 `json:"score"`
}

type outError struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

type output struct {
	Path            string     `json:"path"`
	Query           string     `json:"query"`
	Mode            string     `json:"mode"`
	Case            string     `json:"case"`
	Matches         []outMatch `json:"matches"`
	Returned        int        `json:"returned"`
	MaxResults      int64      `json:"max_results"`
	Truncated       bool       `json:"truncated"`
	TruncatedReason *string    `json:"truncated_reason"`
	Stats           struct {
		FilesScanned int64 `json:"files_scanned"`
		FilesMatched int64 `json:"files_matched"`
		MatchesTotal int64 `json:"matches_total"`
		ElapsedMs    int64 `json:"elapsed_ms"`
	} `json:"stats"`
	Errors []outError `json:"errors"`
}

func decode(tb testing.TB, s string) output {
	tb.Helper()
	var o output
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		tb.Fatalf("output is not the expected JSON object: %v\n%s", err, s)
	}
	return o
}

func reason(o output) string {
	if o.TruncatedReason == nil {
		return ""
	}
	return *o.TruncatedReason
}

// checkInvariants checks the rules every successful output obeys.
func checkInvariants(tb testing.TB, s string, budget int64) {
	tb.Helper()
	if int64(len(s)) > budget {
		tb.Errorf("output is %d bytes, budget %d", len(s), budget)
	}
	if !utf8.ValidString(s) || !json.Valid([]byte(s)) {
		tb.Fatalf("output is not valid UTF-8 JSON: %q", s)
	}
	o := decode(tb, s)
	if o.Returned != len(o.Matches) {
		tb.Errorf("returned %d, matches %d", o.Returned, len(o.Matches))
	}
	if o.Truncated != (o.TruncatedReason != nil) {
		tb.Errorf("truncated %v with reason %v", o.Truncated, o.TruncatedReason)
	}
	if int64(o.Returned) != o.Stats.MatchesTotal && reason(o) != reasonMaxOutputBytes {
		tb.Errorf("returned %d of matches_total %d without output truncation", o.Returned, o.Stats.MatchesTotal)
	}
	if o.Stats.MatchesTotal > o.MaxResults || o.Stats.FilesMatched > o.Stats.FilesScanned {
		tb.Errorf("stats %+v exceed max_results %d", o.Stats, o.MaxResults)
	}
	if o.Matches == nil || o.Errors == nil {
		tb.Errorf("matches or errors is not an array")
	}
	if !slices.IsSortedFunc(o.Matches, func(a, b outMatch) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		if a.Line != b.Line {
			return int(a.Line - b.Line)
		}
		return int(a.Column - b.Column)
	}) {
		tb.Errorf("matches are not ordered by path, line, column (FR-SF-OUT-01): %s", s)
	}
	if !slices.IsSortedFunc(o.Errors, func(a, b outError) int { return strings.Compare(a.Path, b.Path) }) {
		tb.Errorf("errors are not ordered by path: %s", s)
	}
	for _, m := range o.Matches {
		if m.Line < 1 || m.Column < 1 || m.Column-1 > int64(len(m.LineText)) || !strings.HasPrefix(m.LineText[m.Column-1:], m.MatchText) {
			tb.Errorf("match %+v: match_text is not at column in line_text", m)
		}
		if (m.Score != nil) != (o.Mode == modeFuzzy) {
			tb.Errorf("match %+v: score for mode %s", m, o.Mode)
		}
		if m.Before == nil || m.After == nil {
			tb.Errorf("match %+v: before/after not arrays", m)
		}
	}
}

// hits summarizes the matches as "path:line:column:match_text".
func hits(tb testing.TB, s string) []string {
	tb.Helper()
	out := []string{}
	for _, m := range decode(tb, s).Matches {
		out = append(out, fmt.Sprintf("%s:%d:%d:%s", m.Path, m.Line, m.Column, m.MatchText))
	}
	return out
}

// files summarizes the matches as the sorted set of their paths.
func files(tb testing.TB, s string) []string {
	tb.Helper()
	out := []string{}
	for _, m := range decode(tb, s).Matches {
		if len(out) == 0 || out[len(out)-1] != m.Path {
			out = append(out, m.Path)
		}
	}
	return out
}

// errs summarizes the errors as "path: error".
func errs(tb testing.TB, s string) []string {
	tb.Helper()
	out := []string{}
	for _, e := range decode(tb, s).Errors {
		out = append(out, e.Path+": "+e.Error)
	}
	return out
}

// noReadDir hides the ReadDir method of opened directories, so the walker
// takes its lstat path (as it does behind fsys.PermFs) and lstat faults
// apply.
type noReadDir struct{ afero.Fs }

type plainFile struct{ afero.File }

func (n noReadDir) Open(name string) (afero.File, error) {
	f, err := n.Fs.Open(name)
	if err != nil {
		return nil, err
	}
	return plainFile{f}, nil
}

func (n noReadDir) LstatIfPossible(name string) (fs.FileInfo, bool, error) {
	return n.Fs.(afero.Lstater).LstatIfPossible(name)
}

func (n noReadDir) ReadlinkIfPossible(name string) (string, error) {
	return n.Fs.(afero.LinkReader).ReadlinkIfPossible(name)
}
