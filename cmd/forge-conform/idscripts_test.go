package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/forge-conform/forge-conform/conformance/idscript"
	"github.com/forge-conform/forge-conform/impl/mutants"
)

// TestIDScripts runs a testscript scenario per verification ID (T-*, IT-*
// of the SRDs' test tables), generated from the catalogs and the mutant
// table by package idscript: the suite run for that ID alone passes on the
// reference and fails, naming the ID, on a mutant that breaks it. A
// subtest is SPEC/ID, so `go test -run TestIDScripts/list_directory/T-LD-05`
// runs one; `forge-conform trace` names it under its ID.
func TestIDScripts(t *testing.T) {
	t.Parallel() // beside TestScripts
	if testing.Short() {
		t.Skip("the ID scenarios run the suite twice per verification ID")
	}
	d, err := loadData()
	if err != nil {
		t.Fatal(err)
	}
	plan := idscript.Plan(d.specs, d.corpus, scenarioMutants())
	if len(plan) == 0 {
		t.Fatal("no verification ID has cases")
	}
	bySpec := map[string][]idscript.Scenario{}
	var specs []string
	for _, s := range plan {
		if bySpec[s.Spec] == nil {
			specs = append(specs, s.Spec)
		}
		bySpec[s.Spec] = append(bySpec[s.Spec], s)
	}
	for _, sp := range specs {
		t.Run(sp, func(t *testing.T) {
			t.Parallel() // the specs' scripts share the -parallel slots
			dir := t.TempDir()
			for _, s := range bySpec[sp] {
				if err := os.WriteFile(filepath.Join(dir, s.ID+".txtar"), []byte(s.Script()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			testscript.Run(t, testscript.Params{
				Dir:                 dir,
				RequireExplicitExec: true,
				Setup: func(env *testscript.Env) error {
					// As root the built-in reference runs the fixtures as
					// an unprivileged user, who must reach $WORK/.tmp.
					return os.Chmod(filepath.Dir(env.WorkDir), 0o755)
				},
				Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
					"exitcode":  cmdExitCode,
					"id-status": cmdIDStatus,
				},
			})
		})
	}
}

// TestIDScriptPlan checks the table: every verification ID with cases has
// a scenario, and the scenarios' mutants exist.
func TestIDScriptPlan(t *testing.T) {
	d, err := loadData()
	if err != nil {
		t.Fatal(err)
	}
	plan := idscript.Plan(d.specs, d.corpus, scenarioMutants())
	got := map[string]idscript.Scenario{}
	for _, s := range plan {
		got[s.Ref()] = s
		if s.Mutant != "" {
			if _, ok := mutants.Lookup(s.Mutant); !ok {
				t.Errorf("%s: unknown mutant %q", s.Ref(), s.Mutant)
			}
			if !regexp.MustCompile(`(?m)^exitcode 1 forge-conform .*--mutant ` + regexp.QuoteMeta(s.Mutant) + `\b.* --run ` + regexp.QuoteMeta(s.Ref()) + ` `).MatchString(s.Script()) {
				t.Errorf("%s: the script does not run the mutant:\n%s", s.Ref(), s.Script())
			}
		} else if !strings.Contains(s.Script(), "checks the pass side only") {
			t.Errorf("%s: a scenario without a mutant must say it checks the pass side only:\n%s", s.Ref(), s.Script())
		}
	}
	for _, want := range []string{"list_directory:T-LD-01", "search_files:T-SF-01", "tool_executor:T-SBX-01",
		"tool_executor:T-READ-01", "tool_executor:T-PATCH-01", "write_file:T-WR-01", "tool_executor:T-TMO-01", "tool_executor:IT-CMD-01"} {
		if _, ok := got[want]; !ok {
			t.Errorf("no scenario for %s", want)
		}
	}
	for _, s := range plan {
		if !idscript.IsVerification(s.ID) {
			t.Errorf("%s is not a verification ID", s.Ref())
		}
	}
}

// cmdIDStatus checks one ID's verdict in a JSON report (--report-json):
//
//	id-status FILE SPEC:ID STATUS
func cmdIDStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: id-status FILE SPEC:ID STATUS")
	}
	var rep struct {
		IDs []struct {
			ID     string   `json:"id"`
			Spec   string   `json:"spec"`
			Status string   `json:"status"`
			Cases  []string `json:"cases"`
		} `json:"ids"`
	}
	if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &rep); err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
	specName, id, _ := strings.Cut(args[1], ":")
	for _, r := range rep.IDs {
		if r.Spec == specName && r.ID == id {
			if r.Status != args[2] {
				ts.Fatalf("%s: %s is %s, want %s (cases %v)", args[0], args[1], r.Status, args[2], r.Cases)
			}
			return
		}
	}
	ts.Fatalf("%s: no ID %s", args[0], args[1])
}
