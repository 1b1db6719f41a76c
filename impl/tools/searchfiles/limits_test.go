package searchfiles

import (
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/impl/internal/tooltest"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

func TestLimits(t *testing.T) {
	root := tooltest.Build(t,
		tooltest.Dir("a"), tooltest.File("a/x", "n n n\n"), tooltest.File("a-b", "n\nn\n"), tooltest.File("b", "n\n"),
		tooltest.File("c", "none\n"), tooltest.File("d", "x\n"), tooltest.File("big", strings.Repeat("n", 100)),
		tooltest.File("fit", strings.Repeat("n", 99)+"\n"),
	)
	type want struct {
		hits                    []string
		reason                  string
		scanned, matched, total int64
		errs                    []string
	}
	tests := []struct {
		name, args string
		want       want
	}{
		{"everything", `{"path":".","query":"n","case":"sensitive","max_file_size_bytes":100,"max_matches_per_file":3}`, want{
			[]string{"a-b:1:1:n", "a-b:2:1:n", "a/x:1:1:n", "a/x:1:3:n", "a/x:1:5:n", "b:1:1:n", "big:1:1:n", "big:1:2:n", "big:1:3:n",
				"c:1:1:n", "c:1:3:n", "fit:1:1:n", "fit:1:2:n", "fit:1:3:n"}, "", 7, 6, 14, nil}},
		{"max_file_size_bytes (FR-SF-SRC-07)", `{"path":".","query":"n","case":"sensitive","max_file_size_bytes":99,"include_globs":["big","fit","b"]}`, want{
			[]string{"b:1:1:n"}, "", 3, 1, 1,
			[]string{"big: skipped: file size 100 bytes exceeds max_file_size_bytes 99", "fit: skipped: file size 100 bytes exceeds max_file_size_bytes 99"}}},
		// The traversal follows output order: a-b before a/x (I-SF-11).
		{"max_results cuts the sorted prefix (T-SF-06)", `{"path":".","query":"n","max_results":3}`, want{
			[]string{"a-b:1:1:n", "a-b:2:1:n", "a/x:1:1:n"}, "max_results", 2, 2, 3, nil}},
		{"max_results reached exactly is not truncation", `{"path":".","query":"n","max_results":6,"include_globs":["a*","a/*","b"]}`, want{
			[]string{"a-b:1:1:n", "a-b:2:1:n", "a/x:1:1:n", "a/x:1:3:n", "a/x:1:5:n", "b:1:1:n"}, "", 3, 3, 6, nil}},
		{"one more match truncates, found in a later file", `{"path":".","query":"n","max_results":5,"include_globs":["a*","a/*","b"]}`, want{
			[]string{"a-b:1:1:n", "a-b:2:1:n", "a/x:1:1:n", "a/x:1:3:n", "a/x:1:5:n"}, "max_results", 3, 2, 5, nil}},
		{"max_matches_per_file is a silent cap", `{"path":".","query":"n","max_matches_per_file":1,"include_globs":["a*","a/*"]}`, want{
			[]string{"a-b:1:1:n", "a/x:1:1:n"}, "", 2, 2, 2, nil}},
		{"max_files (I-SF-04)", `{"path":".","query":"n","max_files":2}`, want{
			[]string{"a-b:1:1:n", "a-b:2:1:n", "a/x:1:1:n", "a/x:1:3:n", "a/x:1:5:n"}, "max_files", 2, 2, 5, nil}},
		{"max_files reached exactly is not truncation", `{"path":".","query":"n","max_files":3,"include_globs":["a*","a/*","b"]}`, want{
			[]string{"a-b:1:1:n", "a-b:2:1:n", "a/x:1:1:n", "a/x:1:3:n", "a/x:1:5:n", "b:1:1:n"}, "", 3, 3, 6, nil}},
		{"skipped files count as scanned", `{"path":".","query":"x","max_files":2,"max_file_size_bytes":1,"include_globs":["a*","a/*"]}`, want{
			[]string{}, "", 2, 0, 0,
			[]string{"a-b: skipped: file size 4 bytes exceeds max_file_size_bytes 1", "a/x: skipped: file size 6 bytes exceeds max_file_size_bytes 1"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := mustRun(t, root, tooltest.Call{Args: tc.args})
			o := decode(t, out)
			if got := hits(t, out); !reflect.DeepEqual(got, tc.want.hits) {
				t.Errorf("got  %q\nwant %q", got, tc.want.hits)
			}
			if reason(o) != tc.want.reason || o.Truncated != (tc.want.reason != "") {
				t.Errorf("truncated %v %q, want %q", o.Truncated, reason(o), tc.want.reason)
			}
			s := o.Stats
			if s.FilesScanned != tc.want.scanned || s.FilesMatched != tc.want.matched || s.MatchesTotal != tc.want.total {
				t.Errorf("stats %+v, want scanned %d matched %d total %d", s, tc.want.scanned, tc.want.matched, tc.want.total)
			}
			if got := errs(t, out); !reflect.DeepEqual(got, append([]string{}, tc.want.errs...)) {
				t.Errorf("errors %q, want %q", got, tc.want.errs)
			}
		})
	}
}

// TestBudget covers FR-SF-OUT-03..05 and T-SF-07 with every budget from
// one above the full output down to below the smallest result: the
// longest prefix of matches that fits is kept.
func TestBudget(t *testing.T) {
	root := tooltest.Build(t,
		tooltest.File("one", "needle 1\n"), tooltest.File("two", "needle 22\nneedle 22b\n"), tooltest.File("three", "needle 333\n"),
		tooltest.File("bad", "needle\x00"),
	)
	args := `{"path":".","query":"needle"}`
	full := mustRun(t, root, tooltest.Call{Args: args})
	var raw struct {
		Matches []json.RawMessage `json:"matches"`
	}
	if err := json.Unmarshal([]byte(full), &raw); err != nil {
		t.Fatal(err)
	}
	expect := func(k int) string {
		parts := make([]string, k)
		for i := range parts {
			parts[i] = string(raw.Matches[i])
		}
		return `{"path":".","query":"needle","mode":"exact","case":"smart","matches":[` + strings.Join(parts, ",") +
			fmt.Sprintf(`],"returned":%d,"max_results":200,"truncated":true,"truncated_reason":"max_output_bytes",`, k) +
			`"stats":{"files_scanned":4,"files_matched":3,"matches_total":4,"elapsed_ms":0},"errors":[]}`
	}
	minimal := int64(len(expect(0)))
	for budget := int64(len(full)) + 1; budget >= minimal-1; budget-- {
		out, ctx, err := run(t, root, tooltest.Call{Args: args, Budget: budget})
		switch {
		case budget >= int64(len(full)):
			if err != nil || out != full {
				t.Fatalf("budget %d: got %q, %v; want the full output", budget, out, err)
			}
		case budget < minimal:
			tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "output budget too small")
			if !ctx.AllowTruncation {
				t.Errorf("allow_truncation changed on failure")
			}
		default:
			k := len(raw.Matches) - 1
			for int64(len(expect(k))) > budget {
				k--
			}
			if want := expect(k); err != nil || out != want {
				t.Fatalf("budget %d: got %q, %v; want %q", budget, out, err, want)
			}
		}
	}
	// Exactly the full size fits; one byte less drops the last match.
	if o := decode(t, mustRun(t, root, tooltest.Call{Args: args, Budget: int64(len(full)) - 1})); o.Returned != 3 {
		t.Errorf("one under: returned %d", o.Returned)
	}
	// available_capacity_bytes counts too (effective_max is the minimum).
	if o := decode(t, mustRun(t, root, tooltest.Call{Args: args, Capacity: int64(len(full)) - 1})); o.Returned != 3 || reason(o) != "max_output_bytes" {
		t.Errorf("capacity: %+v", o)
	}
	// Output truncation overrides max_results truncation.
	out := mustRun(t, root, tooltest.Call{Args: `{"path":".","query":"needle","max_results":3}`, Budget: minimal})
	if o := decode(t, out); reason(o) != "max_output_bytes" || o.Returned != 0 || o.Stats.MatchesTotal != 3 {
		t.Errorf("reason override: %s", out)
	}
	// Errors are never dropped: a result whose errors alone exceed the
	// budget fails.
	_, _, err := run(t, root, tooltest.Call{Args: `{"path":".","query":"needle","max_file_size_bytes":1}`, Budget: minimal})
	tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "output budget too small")
}

// TestDeterminism covers FR-SF-OUT-02: the same tree and arguments give
// the same bytes, whatever the number of workers and their timing, also
// when limits cut the search.
func TestDeterminism(t *testing.T) {
	var nodes []tooltest.Node
	for d := range 12 {
		dn := fmt.Sprintf("d%02d", d)
		nodes = append(nodes, tooltest.Dir(dn))
		for f := range 40 {
			body := strings.Repeat(fmt.Sprintf("line %d of %s/%d needle\n", f, dn, f), f%5)
			if f%7 == 3 {
				body += "\x00binary"
			}
			nodes = append(nodes, tooltest.File(fmt.Sprintf("%s/f%02d.txt", dn, f), body))
		}
	}
	root := tooltest.Build(t, nodes...)
	calls := []tooltest.Call{
		{Args: `{"path":".","query":"needle","context_lines":1}`},
		{Args: `{"path":".","query":"needle","max_results":77}`},
		{Args: `{"path":".","query":"needle","max_files":101}`},
		{Args: `{"path":".","query":"nedle","mode":"fuzzy"}`},
		{Args: `{"path":".","query":"of d0[0-9]/1","mode":"regex"}`},
		{Args: `{"path":".","query":"needle"}`, Budget: 9000},
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, c := range calls {
		var first string
		for i, procs := range []int{1, 2, 8, 3, 16, 8, 8} {
			runtime.GOMAXPROCS(procs)
			out := mustRun(t, root, c)
			if i == 0 {
				first = out
				continue
			}
			if out != first {
				t.Fatalf("%s: run %d (GOMAXPROCS %d) differs:\n%s\n%s", c.Args, i, procs, out, first)
			}
		}
	}
}
