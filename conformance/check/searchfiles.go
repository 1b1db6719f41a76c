package check

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The search_files output, as SEARCH_FILES_SRD.md §3.5 defines it.
type sfOutput struct {
	Path            string    `json:"path"`
	Query           string    `json:"query"`
	Mode            string    `json:"mode"`
	Case            string    `json:"case"`
	Matches         []sfMatch `json:"matches"`
	Returned        int64     `json:"returned"`
	MaxResults      int64     `json:"max_results"`
	Truncated       bool      `json:"truncated"`
	TruncatedReason *string   `json:"truncated_reason"`
	Stats           sfStats   `json:"stats"`
	Errors          []sfError `json:"errors"`
}

type sfMatch struct {
	Path      string   `json:"path"`
	Line      int64    `json:"line"`
	Column    int64    `json:"column"`
	MatchText string   `json:"match_text"`
	LineText  string   `json:"line_text"`
	Before    []string `json:"before"`
	After     []string `json:"after"`
	Score     *float64 `json:"score"`
}

type sfStats struct {
	FilesScanned int64 `json:"files_scanned"`
	FilesMatched int64 `json:"files_matched"`
	MatchesTotal int64 `json:"matches_total"`
	ElapsedMs    int64 `json:"elapsed_ms"`
}

type sfError struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

var (
	sfTopKeys   = []string{"path", "query", "mode", "case", "matches", "returned", "max_results", "truncated", "truncated_reason", "stats", "errors"}
	sfMatchKeys = []string{"path", "line", "column", "match_text", "line_text", "before", "after", "score"}
	sfStatsKeys = []string{"files_scanned", "files_matched", "matches_total", "elapsed_ms"}
	sfErrorKeys = []string{"path", "error"}
	sfReasons   = map[string]bool{"max_results": true, "max_output_bytes": true, "max_files": true}
)

// sfParams are the effective parameters of a call: explicit args >
// [tools.search_files] > the built-in values of CFG-SF-01's example (I-SF-02).
type sfParams struct {
	maxResults, maxFiles, contextLines int64
	// fuzzyThreshold is CFG-SF-04's fuzzy_threshold (0.8 in CFG-SF-01's
	// example); "Requests for fuzzy search MUST use this threshold".
	fuzzyThreshold float64
}

func sfParamsOf(in Input) sfParams {
	a, t := in.Args, table(in.Config, "search_files")
	return sfParams{
		maxResults:     intOf(intOf(200, t["max_results"]), a["max_results"]),
		maxFiles:       intOf(intOf(5000, t["max_files"]), a["max_files"]),
		contextLines:   intOf(0, a["context_lines"]),
		fuzzyThreshold: floatOf(0.8, t["fuzzy_threshold"]),
	}
}

// searchFilesChecks registers search_files's checks.
func searchFilesChecks() (string, ToolChecks) {
	return "search_files", ToolChecks{Invariants: searchFilesInvariants}
}

// searchFilesInvariants checks every search_files response against what
// §3.5-3.7 fix whatever the tree: canonical JSON with the §3.5 keys in order,
// sorted matches, consistent counts and truncation fields, the output budget,
// and matches that locate themselves in their line.
func searchFilesInvariants(in Input) []Failure {
	r := in.Resp
	if r.OK == nil || !*r.OK {
		return sfErrorInvariants(in)
	}
	var out []Failure
	inv := func(msg string, ids ...string) { out = append(out, fail(KindInvariant, msg, ids...)) }
	// warn reports a difference from the reference's reading where the SRD
	// allows others (spec/INTERPRETATIONS.md): a warning, never a failure.
	warn := func(msg string, ids ...string) {
		f := fail(KindInvariant, msg, ids...)
		f.Severity = SeverityWarn
		out = append(out, f)
	}
	if r.AllowTruncation == nil || *r.AllowTruncation {
		inv("allow_truncation must be false for search_files results", "FR-SF-OUT-04")
	}
	content := []byte(contentOf(r))
	if in.ContentBytes > in.Ctx.EffectiveMax() {
		inv(fmt.Sprintf("output is %d bytes, over effective_max %d", in.ContentBytes, in.Ctx.EffectiveMax()), "FR-SF-OUT-03")
	}
	if !json.Valid(content) {
		inv("content is not valid JSON: "+clip(string(content), 200), "NFR-SF-REL-01")
		return out
	}
	if !utf8.Valid(content) {
		inv("content is not valid UTF-8", "NFR-SF-REL-02", "T-SF-08")
	}
	for _, m := range canonicalProblems(content) {
		inv(m, "NFR-SF-REL-01")
	}
	var rawTop map[string]json.RawMessage
	if err := json.Unmarshal(content, &rawTop); err != nil {
		inv("content is not a JSON object", "NFR-SF-REL-01")
		return out
	}
	if m := keyProblems(content, sfTopKeys); m != "" {
		inv("top-level object: "+m, "NFR-SF-REL-01")
	}
	for _, k := range nullProblems(rawTop, "path", "query", "mode", "case", "matches", "returned", "max_results", "truncated", "stats", "errors") {
		inv("top-level "+k, "NFR-SF-REL-01")
	}
	if m := keyProblems(rawTop["stats"], sfStatsKeys); m != "" {
		inv("stats: "+m, "NFR-SF-REL-01")
	}
	var rawMatches, rawErrors []json.RawMessage
	_ = json.Unmarshal(rawTop["matches"], &rawMatches)
	_ = json.Unmarshal(rawTop["errors"], &rawErrors)
	for i, m := range rawMatches {
		if p := keyProblems(m, sfMatchKeys); p != "" {
			inv(fmt.Sprintf("matches[%d]: %s", i, p), "NFR-SF-REL-01")
		}
	}
	for i, e := range rawErrors {
		if p := keyProblems(e, sfErrorKeys); p != "" {
			inv(fmt.Sprintf("errors[%d]: %s", i, p), "FR-SF-ERR-04")
		}
	}
	var o sfOutput
	if err := json.Unmarshal(content, &o); err != nil {
		inv("a field has the wrong type: "+err.Error(), "NFR-SF-REL-01")
		return out
	}
	p := sfParamsOf(in)

	if o.Returned != int64(len(o.Matches)) {
		inv(fmt.Sprintf("returned is %d but matches has %d elements", o.Returned, len(o.Matches)), "NFR-SF-REL-01")
	}
	switch {
	case !o.Truncated && o.TruncatedReason != nil:
		inv(fmt.Sprintf("truncated=false but truncated_reason=%q (must be null)", *o.TruncatedReason), "FR-SF-SRC-08", "FR-SF-OUT-05")
	case o.Truncated && o.TruncatedReason == nil:
		inv("truncated=true but truncated_reason is null", "FR-SF-SRC-08", "FR-SF-OUT-05")
	case o.Truncated && !sfReasons[*o.TruncatedReason]:
		inv(fmt.Sprintf("truncated_reason %q is not max_results, max_output_bytes or max_files", *o.TruncatedReason), "FR-SF-SRC-08")
	case o.Truncated && *o.TruncatedReason == "max_results" && o.Returned != p.maxResults:
		inv(fmt.Sprintf("truncated for max_results but returned %d matches, not max_results=%d", o.Returned, p.maxResults), "FR-SF-SRC-08")
	}
	if o.MaxResults != p.maxResults {
		inv(fmt.Sprintf("max_results is %d, want the effective value %d", o.MaxResults, p.maxResults), "CFG-SF-02")
	}
	if int64(len(o.Matches)) > p.maxResults {
		inv(fmt.Sprintf("%d matches returned, more than max_results=%d", len(o.Matches), p.maxResults), "FR-SF-SRC-08", "NFR-SF-PERF-01")
	}
	if o.Stats.FilesScanned > p.maxFiles {
		inv(fmt.Sprintf("files_scanned %d is over max_files=%d", o.Stats.FilesScanned, p.maxFiles), "NFR-SF-PERF-01")
	}
	// "Total matches found before truncation": never fewer than returned.
	// Counting the kept matches only (so returned differs only after the
	// output-size cut) is the reference's reading (I-SF-18); counting the
	// match found beyond max_results, or those beyond max_matches_per_file,
	// is another.
	switch {
	case o.Stats.MatchesTotal < o.Returned:
		inv(fmt.Sprintf("matches_total %d is below returned %d: it counts the matches found before truncation", o.Stats.MatchesTotal, o.Returned), "FR-SF-OUT-05")
	case o.Stats.MatchesTotal != o.Returned && (o.TruncatedReason == nil || *o.TruncatedReason != "max_output_bytes"):
		warn(fmt.Sprintf("matches_total %d vs returned %d: the reference counts only the kept matches, so they differ only when truncated for max_output_bytes (I-SF-18)", o.Stats.MatchesTotal, o.Returned), "FR-SF-OUT-05")
	}
	// FR-SF-OUT-05: output-size truncation must "reduce `matches`", below
	// the matches_total found before it.
	if o.TruncatedReason != nil && *o.TruncatedReason == "max_output_bytes" && o.Returned >= o.Stats.MatchesTotal {
		inv(fmt.Sprintf("truncated for max_output_bytes but returned %d of matches_total %d: the cut must reduce matches", o.Returned, o.Stats.MatchesTotal), "FR-SF-OUT-05")
	}
	if o.Stats.FilesMatched > o.Stats.FilesScanned || o.Stats.FilesMatched > o.Stats.MatchesTotal || o.Stats.ElapsedMs < 0 {
		inv(fmt.Sprintf("stats are inconsistent: %+v", o.Stats), "NFR-SF-REL-01")
	}
	// "Normalized requested path (forward slashes)": FR-LD-VAL-10's
	// normalization is the reference's; the path as sent (or trimmed),
	// "/" being the only separator on Unix, is another reading (I-SF-01).
	if sent := strOf(in.Args["path"]); o.Path != normalizePath(sent) {
		if o.Path == sent || o.Path == strings.TrimFunc(sent, unicode.IsSpace) {
			warn(fmt.Sprintf("path is %q: the reference echoes the request normalized, %q (I-SF-01)", o.Path, normalizePath(sent)), "NFR-SF-PORT-01")
		} else {
			inv(fmt.Sprintf("path is %q, want the requested path %q normalized (%q) or as sent", o.Path, sent, normalizePath(sent)), "NFR-SF-PORT-01")
		}
	}
	// "Effective query": the query as sent or trimmed (VAL-02 trims only to
	// test blankness); the reference echoes it as sent (I-SF-02).
	if q, ok := in.Args["query"].(string); ok && o.Query != q {
		if o.Query == strings.TrimSpace(q) {
			warn(fmt.Sprintf("query is %q: the reference uses and echoes the query as sent, %q (I-SF-02)", o.Query, q), "NFR-SF-REL-01")
		} else {
			inv(fmt.Sprintf("query is %q, want the effective query: %q as sent or trimmed", o.Query, q), "NFR-SF-REL-01")
		}
	}
	modeID := map[string]string{"regex": "FR-SF-SRC-02", "fuzzy": "FR-SF-SRC-03"}[o.Mode]
	if modeID == "" {
		modeID = "FR-SF-SRC-01"
	}
	for i, m := range o.Matches {
		where := fmt.Sprintf("matches[%d] %s:%d:%d", i, m.Path, m.Line, m.Column)
		if i > 0 {
			prev := o.Matches[i-1]
			if prev.Path > m.Path || (prev.Path == m.Path && (prev.Line > m.Line || (prev.Line == m.Line && prev.Column > m.Column))) {
				inv(fmt.Sprintf("%s comes after %s:%d:%d: matches must be ordered by path, line, column", where, prev.Path, prev.Line, prev.Column), "FR-SF-OUT-01")
			}
		}
		if m.Line < 1 || m.Column < 1 {
			inv(where+": line and column are 1-based", "FR-SF-OUT-01")
			continue
		}
		// "1-based column number" counts bytes (the reference, I-SF-06) or
		// characters: the match must sit at that column either way.
		if !atColumn(m.LineText, m.MatchText, m.Column-1) {
			inv(fmt.Sprintf("%s: match_text %q is at neither byte nor character column %d of line_text", where, clip(m.MatchText, 60), m.Column), modeID)
		}
		if strings.ContainsRune(m.LineText, '\n') {
			inv(where+": line_text holds a line feed: matching is per line", modeID)
		}
		if strings.HasPrefix(m.Path, "/") || m.Path == "" {
			inv(where+": path must be relative to the requested root", "NFR-SF-PORT-01")
		}
		if int64(len(m.Before)) > p.contextLines || int64(len(m.After)) > p.contextLines {
			inv(fmt.Sprintf("%s: %d before and %d after lines, over context_lines=%d", where, len(m.Before), len(m.After), p.contextLines), modeID)
		}
		if int64(len(m.Before)) > m.Line-1 {
			inv(fmt.Sprintf("%s: %d before lines on line %d", where, len(m.Before), m.Line), modeID)
		}
		if (o.Mode == "fuzzy") != (m.Score != nil) {
			inv(fmt.Sprintf("%s: score must be a number in fuzzy mode and null otherwise", where), "FR-SF-SRC-03")
		}
		if m.Score != nil && (*m.Score < 0 || *m.Score > 1) {
			inv(fmt.Sprintf("%s: score %v outside 0..1", where, *m.Score), "FR-SF-SRC-03", "CFG-SF-04")
		}
		// FR-SF-SRC-03 returns "matches that meet the configured fuzzy
		// threshold": the score is the minimum's scale (CFG-SF-04).
		if m.Score != nil && *m.Score < p.fuzzyThreshold {
			inv(fmt.Sprintf("%s: score %v is below fuzzy_threshold %v", where, *m.Score, p.fuzzyThreshold), "FR-SF-SRC-03", "CFG-SF-04")
		}
	}
	for i, e := range o.Errors {
		if strings.TrimSpace(e.Error) == "" {
			inv(fmt.Sprintf("errors[%d] %q has an empty message", i, e.Path), "FR-SF-ERR-04")
		}
		if i > 0 && o.Errors[i-1].Path > e.Path {
			inv(fmt.Sprintf("errors[%d] %q sorts before %q", i, e.Path, o.Errors[i-1].Path), "FR-SF-OUT-02")
		}
	}
	return out
}

func sfErrorInvariants(in Input) []Failure {
	e := in.Resp.Error
	if e == nil {
		return nil
	}
	var out []Failure
	if strings.TrimSpace(e.Message) == "" {
		out = append(out, fail(KindInvariant, e.Kind+" has an empty message: errors need a clear message", "FR-SF-ERR-01"))
	}
	if e.Kind == "SandboxViolation" && e.Denial == nil {
		out = append(out, fail(KindInvariant, "SandboxViolation without a denial reason", "FR-SF-ERR-02"))
	}
	return out
}

// atColumn reports whether match starts at the 0-based byte offset c of
// line, or at its c-th character (counted in Unicode scalar values).
func atColumn(line, match string, c int64) bool {
	if c <= int64(len(line)) && strings.HasPrefix(line[c:], match) {
		return true
	}
	for i := range line {
		if c == 0 {
			return strings.HasPrefix(line[i:], match)
		}
		c--
	}
	return c == 0 && match == ""
}

func strOf(v any) string {
	s, _ := v.(string)
	return s
}
