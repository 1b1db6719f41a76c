package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/forge-conform/forge-conform/conformance/check"
	"github.com/forge-conform/forge-conform/conformance/corpus"
)

var hiddenCase = &corpus.Case{Spec: "list_directory", Name: "hidden-omitted", IDs: []string{"T-LD-07", "FR-LD-LST-06"}}

func TestSelectorMatch(t *testing.T) {
	tests := []struct {
		name      string
		run, skip []string
		want      bool
	}{
		{"no globs", nil, nil, true},
		{"full name", []string{"list_directory/hidden-omitted"}, nil, true},
		{"full name glob", []string{"list_directory/hidden-*"}, nil, true},
		{"spec glob", []string{"list_directory/*"}, nil, true},
		{"short name", []string{"hidden-omitted"}, nil, true},
		{"short name glob", []string{"hid*"}, nil, true},
		{"star matches every short name", []string{"*"}, nil, true},
		{"ID", []string{"T-LD-07"}, nil, true},
		{"second ID", []string{"FR-LD-LST-06"}, nil, true},
		{"ID glob", []string{"T-LD-0?"}, nil, true},
		{"ID class", []string{"T-LD-0[6-8]"}, nil, true},
		{"one of several", []string{"T-LD-05", "FR-LD-*"}, nil, true},
		{"other ID", []string{"T-LD-05"}, nil, false},
		{"other spec", []string{"codex_list_dir/*"}, nil, false},
		{"spec name alone", []string{"list_directory"}, nil, false},
		{"prefix is not a match", []string{"hidden"}, nil, false},
		{"case-sensitive", []string{"t-ld-07"}, nil, false},
		{"malformed glob matches nothing", []string{"["}, nil, false},
		{"skip by ID", nil, []string{"T-LD-07"}, false},
		{"skip by full name", nil, []string{"list_directory/hidden-omitted"}, false},
		{"skip by short glob", nil, []string{"hidden-*"}, false},
		{"skip of another case", nil, []string{"T-LD-05", "list_directory/other"}, true},
		{"skip wins over run by name", []string{"list_directory/hidden-omitted"}, []string{"T-LD-07"}, false},
		{"skip wins over run by ID", []string{"T-LD-07"}, []string{"list_directory/*"}, false},
	}
	for _, tt := range tests {
		s := &Selector{Run: tt.run, Skip: tt.skip}
		if got := s.Match(hiddenCase); got != tt.want {
			t.Errorf("%s: Selector{Run: %q, Skip: %q}.Match(%s) = %v, want %v", tt.name, tt.run, tt.skip, hiddenCase.FullName(), got, tt.want)
		}
	}
}

func TestSelectorValidate(t *testing.T) {
	tests := []struct {
		name      string
		run, skip []string
		bad       string // the glob the error must quote; "" = valid
	}{
		{"empty", nil, nil, ""},
		{"good globs", []string{"T-LD-*", "list_directory/[a-c]*", `list_directory/a\*b`}, []string{"?"}, ""},
		{"bad run", []string{"T-LD-*", "[T-LD"}, nil, "[T-LD"},
		{"bad skip", nil, []string{"list_directory/x[", "ok"}, "list_directory/x["},
		{"trailing backslash", []string{`a\`}, nil, `a\`},
	}
	for _, tt := range tests {
		err := (&Selector{Run: tt.run, Skip: tt.skip}).Validate()
		switch {
		case tt.bad == "" && err != nil:
			t.Errorf("%s: Validate() = %v, want nil", tt.name, err)
		case tt.bad != "" && err == nil:
			t.Errorf("%s: Validate() = nil, want an error naming %q", tt.name, tt.bad)
		case tt.bad != "" && !strings.Contains(err.Error(), `bad glob "`+strings.ReplaceAll(tt.bad, `\`, `\\`)+`"`):
			t.Errorf("%s: Validate() = %v, want it to quote the bad glob %q", tt.name, err, tt.bad)
		}
	}
}

func TestParseSkipFile(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "skip.txt"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseSkipFile("skip.txt", data)
	if err != nil {
		t.Fatalf("ParseSkipFile: %v", err)
	}
	want := []Expected{
		{Glob: "list_directory/non-utf8-*", Reason: "we store names as WTF-8 (issue #12)", Line: 4},
		{Glob: "T-LD-13", Reason: "budget errors not implemented yet", Line: 5},
		{Glob: "T-LD-14", Reason: "listed in skip.txt", Line: 6},
		{Glob: "indented-case", Reason: "reason with  inner  spaces", Line: 8},
		{Glob: "tabbed", Reason: "reason after a tab", Line: 9},
		{Glob: "tab-then-space", Reason: "reason one two", Line: 10},
		{Glob: "T-LD-1[0-2]", Reason: "two tabs", Line: 11},
		{Glob: "crlf", Reason: "windows line ending", Line: 13},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ParseSkipFile(testdata/skip.txt) differs (-want +got):\n%s", d)
	}
}

func TestParseSkipFileErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"bad glob", "ok reason\n\n[bad reason\n", `skips.txt:3: bad glob "[bad"`},
		{"bad glob after a tab", "# c\nx[\treason\n", `skips.txt:2: bad glob "x["`},
	}
	for _, tt := range tests {
		got, err := ParseSkipFile("skips.txt", []byte(tt.data))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: ParseSkipFile = %v, %v; want an error containing %q", tt.name, got, err, tt.want)
		}
	}
	if got, err := ParseSkipFile("empty", nil); err != nil || len(got) != 0 {
		t.Errorf("ParseSkipFile(empty) = %v, %v; want nothing", got, err)
	}
}

func TestApplyExpected(t *testing.T) {
	expected := []Expected{
		{Glob: "T-LD-07", Reason: "hidden files not done", Line: 3},
		{Glob: "list_directory/*", Reason: "everything", Line: 9},
	}
	tests := []struct {
		name     string
		c        *corpus.Case
		status   Status
		want     Status
		message  string // substring of the new message
		failures int    // failures kept
	}{
		{"failure becomes a skip", hiddenCase, Failed, Skipped, "expected failure (skip file line 3: hidden files not done): boom", 1},
		{"error becomes a skip", hiddenCase, Errored, Skipped, "expected failure (skip file line 3: hidden files not done): boom", 1},
		{"pass becomes a failure", hiddenCase, Passed, Failed, "listed as an expected failure (skip file line 3: hidden files not done) but passes: remove the line", 0},
		{"skip stays", hiddenCase, Skipped, Skipped, "boom", 1},
		{"first matching line wins", &corpus.Case{Spec: "list_directory", Name: "other", IDs: []string{"T-LD-01"}}, Failed, Skipped, "skip file line 9: everything", 1},
		{"unlisted case untouched", &corpus.Case{Spec: "codex_list_dir", Name: "other", IDs: []string{"CX-LD-FMT-01"}}, Failed, Failed, "boom", 1},
	}
	for _, tt := range tests {
		r := &Runner{opts: Options{Expected: expected}}
		res := &Result{Case: tt.c, Status: tt.status, Message: "boom"}
		if tt.status != Passed {
			res.Failures = []check.Failure{{IDs: []string{"T-LD-07"}, Kind: check.KindExpect, Message: "boom"}}
		}
		r.applyExpected(res)
		if res.Status != tt.want || !strings.Contains(res.Message, tt.message) || len(res.Failures) != tt.failures {
			t.Errorf("%s: got status %s message %q (%d failures), want %s with %q", tt.name, res.Status, res.Message, len(res.Failures), tt.want, tt.message)
		}
	}
}
