package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/conformance/suite"
	"github.com/forge-conform/forge-conform/golden"
	"github.com/forge-conform/forge-conform/internal/scratch"
)

// wantFailed are the cases an implementation behaving as Forge does must
// fail, with the exact IDs their failures name: the 30 LP1 grammar
// deviations (Forge's parser accepts what LP1's EBNF forbids), read_file
// requiring approval (FR-TOOL-READ-01), summaries that redact "sk-" keys
// only (FR-APR-01), LP1 parse errors pre-resolved as BadArgs in a turn
// (FR-TOOL-PATCH-01), the result deviations (no JSON error passthrough,
// FR-ERR-JSON-TOOL-01/02; error results, the engine's own pre-resolved
// ones included, never truncated, FR-OUT-04) and the sandbox's (a path
// under a missing directory is PathOutsideSandbox: FR-VAL-04 step 4, and
// the missing-path requirements of list_directory and search_files).
// Every other case must pass: the emulation takes every reading Forge's
// own code takes (readings.Forge()), and the suite must accept each of
// them.
var wantFailed = map[string][]string{
	// text after END
	"lp1/after-footer-blank-line":   {"LP1-STR-06"},
	"lp1/after-footer-comment":      {"LP1-STR-06"},
	"lp1/after-footer-second-patch": {"LP1-STR-06"},
	"lp1/after-footer-spaces":       {"LP1-STR-06"},
	// blank line or comment before LP1
	"lp1/header-after-blank-line": {"LP1-STR-02"},
	"lp1/header-after-comment":    {"LP1-STR-02"},
	// U+00A0 (and every Unicode White_Space: U+2028, form feed) as whitespace
	"lp1/header-nbsp":            {"LP1-STR-03"},
	"lp1/nbsp-before-command":    {"LP1-GRM-03"},
	"lp1/nbsp-separator":         {"LP1-GRM-03"},
	"lp1/nbsp-after-path":        {"LP1-GRM-03"},
	"lp1/nbsp-in-path":           {"LP1-GRM-04"},
	"lp1/path-begins-with-nbsp":  {"LP1-GRM-04"},
	"lp1/line-separator-in-path": {"LP1-GRM-04"},
	"lp1/form-feed-line":         {"LP1-GRM-03"},
	// a bare CR in a row (a block row, a comment, after END)
	"lp1/bare-cr-in-row":       {"LP1-GRM-02"},
	"lp1/bare-cr-in-comment":   {"LP1-GRM-02"},
	"lp1/bare-cr-after-footer": {"LP1-GRM-02"},
	// "01", "+1" (and "R1") as occurrence
	"lp1/occurrence-leading-zero":  {"LP1-GRM-07"},
	"lp1/occurrence-plus-sign":     {"LP1-GRM-07"},
	"lp1/occurrence-not-separated": {"LP1-GRM-07"},
	// "T x": T and B ignore the rest of their line
	"lp1/append-with-argument":    {"LP1-CMD-09"},
	"lp1/prepend-with-argument":   {"LP1-CMD-09"},
	"lp1/append-trailing-comment": {"LP1-CMD-10"},
	// "N+"
	"lp1/n-without-blank": {"LP1-GRM-08"},
	// unquoted path with a space or a '"' (the first word is the path), "Fa.txt"
	"lp1/bare-path-with-space":       {"LP1-GRM-04"},
	"lp1/bare-path-with-quote":       {"LP1-GRM-04"},
	"lp1/bare-path-trailing-comment": {"LP1-GRM-04"},
	"lp1/f-without-separator":        {"LP1-STR-09"},
	// text after a quoted path
	"lp1/quoted-path-text-after": {"LP1-GRM-06"},
	"lp1/quoted-path-word-after": {"LP1-GRM-06"},

	// read_file requires approval at Medium risk (its definition, and so a
	// confirmation for it in a turn)
	"tool_executor/read-file-no-approval":     {"FR-TOOL-READ-01"},
	"tool_executor/turn-approval-mixed-batch": {"T-APR-01"},
	// summaries redact "sk-" keys only
	"tool_executor/summary-argument-holds-secrets": {"tool_executor:FR-APR-01"},
	"tool_executor/summary-quoted-password":        {"tool_executor:FR-APR-01"},
	"tool_executor/summary-single-quoted-token":    {"tool_executor:FR-APR-01"},
	"tool_executor/summary-unquoted-password":      {"tool_executor:FR-APR-01"},
	"tool_executor/summary-bearer-token":           {"tool_executor:FR-APR-01"},
	// the planner pre-resolves an LP1 parse error as BadArgs
	"tool_executor/turn-exec-patch-parse-error": {"FR-TOOL-PATCH-01"},

	// executor: no JSON error passthrough, error results never truncated
	"tool_executor/turn-exec-json-passthrough":       {"FR-ERR-JSON-TOOL-01"},
	"tool_executor/turn-exec-json-bytes-kept":        {"FR-ERR-JSON-TOOL-02"},
	"tool_executor/turn-output-truncate-error":       {"FR-OUT-04"},
	"tool_executor/turn-output-truncate-error-kinds": {"FR-OUT-04"},
	"tool_executor/turn-output-truncate-disabled":    {"FR-OUT-04"},
	// the same for the engine's own pre-resolved errors
	"tool_executor/turn-limit-iterations-truncated": {"FR-OUT-04"},

	// sandbox: a path under a missing directory is PathOutsideSandbox
	"tool_executor/read-missing-nested":  {"FR-VAL-04"},
	"list_directory/path-missing-nested": {"FR-LD-VAL-08"},
	"search_files/missing-nested":        {"T-SF-04"},
}

// TestMain keeps the tests' files on tmpfs where it can (internal/scratch).
func TestMain(m *testing.M) { os.Exit(scratch.Wrap(m).Run()) }

// TestForgeLikePassesEverythingButItsDeviations builds the emulation, runs
// the whole corpus against it through FCP/1, and asserts that exactly the
// cases of wantFailed fail, each naming its ID.
func TestForgeLikePassesEverythingButItsDeviations(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary and runs the whole corpus")
	}
	// A directory every user can reach: as root the runner runs the
	// implementation as nobody.
	dir, err := os.MkdirTemp("", "forgelike-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "forgelike")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building the emulation: %v\n%s", err, out)
	}
	d, err := suite.Load()
	if err != nil {
		t.Fatal(err)
	}
	c, specs, fx := d.Corpus, d.Specs, d.Fixtures
	r, err := runner.New(context.Background(), runner.Options{Corpus: c, Specs: specs, Fixtures: fx, Golden: golden.FS,
		Binary: []string{bin}, Jobs: 2, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	run := r.RunAll(context.Background())

	failed := map[string][]string{}
	skippedForPolicy, skippedForOp := 0, 0
	for _, res := range run.Results {
		switch res.Status {
		case runner.Failed, runner.Errored:
			var ids []string
			for _, f := range res.Failures {
				for _, id := range f.IDs {
					if !slices.Contains(ids, id) {
						ids = append(ids, id)
					}
				}
			}
			sort.Strings(ids)
			failed[res.Case.FullName()] = ids
			if _, want := wantFailed[res.Case.FullName()]; !want {
				t.Errorf("%s %s: %s", res.Case.FullName(), res.Status, res.Message)
				for _, f := range res.Failures {
					t.Logf("  %s %v: %s\n%s", f.Kind, f.IDs, f.Message, f.Diff)
				}
			}
		case runner.Skipped:
			switch {
			case res.Case.Policy != nil:
				skippedForPolicy++
			case strings.Contains(res.Message, `does not declare op "recover"`):
				skippedForOp++
			case strings.Contains(res.Message, "unsupported"):
				t.Errorf("%s skipped: %s (the emulation declares every tool and op but recover)", res.Case.FullName(), res.Message)
			default:
				t.Logf("%s skipped: %s", res.Case.FullName(), res.Message)
			}
		}
	}
	if d := cmp.Diff(wantFailed, failed); d != "" {
		t.Errorf("failed cases and the IDs they name (-want +got):\n%s", d)
	}
	if skippedForPolicy == 0 {
		t.Error("no case was skipped for its policy: the emulation declares lp1_missing_file=refuse, so the create cases must be skipped")
	}
	if skippedForOp == 0 {
		t.Error("no case was skipped for want of recover: the emulation does not declare it, so the durability cases must be skipped")
	}
	var notes, warnings int
	for _, res := range run.Results {
		notes += len(res.Notes)
		warnings += len(res.Warnings)
	}
	if warnings == 0 {
		t.Error("no warnings: Forge's LP1 messages carry no line numbers, so the advice checks must warn")
	}
	var conflicts []string
	for _, c := range run.Conflicts {
		conflicts = append(conflicts, c.ID)
	}
	sort.Strings(conflicts)
	if d := cmp.Diff([]string{"I-EXE-19", "I-EXE-33", "I-LD-04", "I-LP-01", "I-LP-11", "I-SF-04"}, conflicts); d != "" {
		t.Errorf("conflicts touched (-want +got):\n%s", d)
	}
	t.Logf("%d cases, %d failed, %d warnings, %d golden notes", len(run.Results), len(failed), warnings, notes)
}
