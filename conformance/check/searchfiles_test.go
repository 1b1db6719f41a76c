package check

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/spec/fcp"
)

func TestAtColumn(t *testing.T) {
	tests := []struct {
		line, match string
		c           int64
		want        bool
	}{
		{"héllo needle", "needle", 7, true},  // byte offset
		{"héllo needle", "needle", 6, true},  // character offset
		{"héllo needle", "needle", 5, false}, // neither
		{"abc", "", 3, true},                 // empty match at the end
		{"abc", "", 4, false},
		{"", "", 0, true},
		{"\u212a k", "k", 2, true},  // characters (bytes: inside the sign)
		{"\u212a k", "k", 1, false}, // neither
		{"\u212a k", "k", 4, true},  // bytes
	}
	for _, tt := range tests {
		if got := atColumn(tt.line, tt.match, tt.c); got != tt.want {
			t.Errorf("atColumn(%q, %q, %d) = %v, want %v", tt.line, tt.match, tt.c, got, tt.want)
		}
	}
}

// The search_files invariants accept every reading the SRD allows: a
// trimmed query, character columns and a matches_total counting the match
// beyond max_results are warnings; what the text rules out fails.
func TestSearchFilesInvariantReadings(t *testing.T) {
	result := func(query string, column, total int, reason string) string {
		r := "null"
		if reason != "" {
			r = `"` + reason + `"`
		}
		return fmt.Sprintf(`{"path":".","query":%q,"mode":"exact","case":"smart","matches":[{"path":"u.txt","line":1,"column":%d,"match_text":"needle","line_text":"héllo needle","before":[],"after":[],"score":null}],"returned":1,"max_results":1,"truncated":%v,"truncated_reason":%s,"stats":{"files_scanned":1,"files_matched":1,"matches_total":%d,"elapsed_ms":0},"errors":[]}`,
			query, column, reason != "", r, total)
	}
	tests := []struct {
		name, query, content string
		fails, warns         []string
	}{
		{name: "reference", query: " needle", content: result(" needle", 8, 1, "")},
		{name: "trimmed query", query: " needle", content: result("needle", 8, 1, ""), warns: []string{"as sent"}},
		{name: "other query", query: " needle", content: result("needles", 8, 1, ""), fails: []string{"want the effective query"}},
		{name: "character column", query: "needle", content: result("needle", 7, 1, "")},
		{name: "wrong column", query: "needle", content: result("needle", 2, 1, ""), fails: []string{"neither byte nor character column"}},
		{name: "found beyond max_results", query: "needle", content: result("needle", 8, 2, "max_results"), warns: []string{"counts only the kept matches"}},
		{name: "total below returned", query: "needle", content: result("needle", 8, 0, ""), fails: []string{"below returned", "stats are inconsistent"}},
		{name: "output cut below the total", query: "needle", content: result("needle", 8, 2, "max_output_bytes")},
		{name: "output cut that keeps every match", query: "needle", content: result("needle", 8, 1, "max_output_bytes"), fails: []string{"must reduce matches"}},
	}
	budget := int64(1 << 20)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Input{Args: map[string]any{"path": ".", "query": tt.query, "max_results": float64(1)},
				Resp: okResp(tt.content), ContentBytes: int64(len(tt.content)),
				Ctx: fcp.Ctx{MaxOutputBytes: &budget, AvailableCapacityBytes: &budget}}
			var fails, warns []string
			for _, f := range searchFilesInvariants(in) {
				if f.Severity == SeverityWarn {
					warns = append(warns, f.Message)
				} else {
					fails = append(fails, f.Message)
				}
			}
			for _, set := range []struct {
				kind      string
				got, want []string
			}{{"failures", fails, tt.fails}, {"warnings", warns, tt.warns}} {
				if len(set.got) != len(set.want) {
					t.Fatalf("%s = %q, want %d matching %q", set.kind, set.got, len(set.want), set.want)
				}
				for i, w := range set.want {
					if !strings.Contains(set.got[i], w) {
						t.Errorf("%s[%d] = %q, want it to contain %q", set.kind, i, set.got[i], w)
					}
				}
			}
		})
	}
}

// Fuzzy matches must meet the configured threshold (FR-SF-SRC-03,
// CFG-SF-04), 0.8 unless configured; how a score is computed is open.
func TestSearchFilesFuzzyThreshold(t *testing.T) {
	result := func(score string) string {
		return `{"path":".","query":"abc","mode":"fuzzy","case":"smart","matches":[{"path":"f.txt","line":1,"column":1,"match_text":"ab","line_text":"abd","before":[],"after":[],"score":` + score + `}],"returned":1,"max_results":200,"truncated":false,"truncated_reason":null,"stats":{"files_scanned":1,"files_matched":1,"matches_total":1,"elapsed_ms":0},"errors":[]}`
	}
	tests := []struct {
		name, score string
		config      map[string]any
		fail        bool
	}{
		{name: "default met", score: "0.8"},
		{name: "default missed", score: "0.75", fail: true},
		{name: "configured met", score: "0.5", config: map[string]any{"tools": map[string]any{"search_files": map[string]any{"fuzzy_threshold": 0.5}}}},
		{name: "configured missed", score: "0.85", config: map[string]any{"tools": map[string]any{"search_files": map[string]any{"fuzzy_threshold": 0.9}}}, fail: true},
	}
	budget := int64(1 << 20)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			content := result(tt.score)
			in := Input{Args: map[string]any{"path": ".", "query": "abc", "mode": "fuzzy"}, Config: tt.config,
				Resp: okResp(content), ContentBytes: int64(len(content)),
				Ctx: fcp.Ctx{MaxOutputBytes: &budget, AvailableCapacityBytes: &budget}}
			var got []string
			for _, f := range searchFilesInvariants(in) {
				if f.Severity != SeverityWarn {
					got = append(got, f.Message)
				}
			}
			if failed := slices.ContainsFunc(got, func(m string) bool { return strings.Contains(m, "below fuzzy_threshold") }); failed != tt.fail {
				t.Errorf("threshold failure = %v, want %v (failures %q)", failed, tt.fail, got)
			}
		})
	}
}
