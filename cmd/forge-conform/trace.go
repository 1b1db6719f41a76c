package main

import (
	"fmt"
	"io"

	"github.com/forge-conform/forge-conform/conformance/cases"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/idscript"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/impl/mutants"
	"github.com/forge-conform/forge-conform/spec"
)

// idScripts are the ID scenarios (package idscript) by "SPEC:ID", from
// the whole corpus: a --run selection does not change which tests exist.
func idScripts() map[string]idscript.Scenario {
	out := map[string]idscript.Scenario{}
	c, err := corpus.LoadTrusted(cases.FS)
	if err != nil {
		return out
	}
	s, err := spec.Load()
	if err != nil {
		return out
	}
	for _, sc := range idscript.Plan(s, c, scenarioMutants()) {
		out[sc.Ref()] = sc
	}
	return out
}

// traceTests writes, under an ID of `forge-conform trace`, the tests of
// this repository that check it: its Ginkgo specs (one per covering case,
// labelled with the ID, and the mutant specs whose defect breaks it) and
// its ID scenario (TestIDScripts).
func traceTests(w io.Writer, ir runner.IDResult, scripts map[string]idscript.Scenario) {
	g := idscript.Ginkgo(ir.Spec, ir.ID, ir.Cases, scenarioMutants())
	if len(g.Cases)+len(g.Mutants) > 0 {
		fmt.Fprintf(w, "      ginkgo   go test ./conformance -args -ginkgo.label-filter=%s  (%d case spec(s)", g.LabelFilter, len(g.Cases))
		for _, m := range g.Mutants {
			fmt.Fprintf(w, ", %q", m)
		}
		fmt.Fprintf(w, ")\n")
	}
	sc, ok := scripts[ir.Spec+":"+ir.ID]
	if !ok {
		return
	}
	side := "the reference passes, mutant " + sc.Mutant + " fails it"
	if sc.Mutant == "" {
		side = "pass side only: no mutant breaks it yet"
	}
	fmt.Fprintf(w, "      script   %s/%s  (%s)\n", idscript.TestName, sc.Name(), side)
}

// scenarioMutants is the mutant table as the ID scenarios need it.
func scenarioMutants() []idscript.Mutant {
	var out []idscript.Mutant
	for _, m := range mutants.All() {
		out = append(out, idscript.Mutant{Name: m.Name, Doc: m.Doc, Breaks: m.Breaks, Process: m.Process})
	}
	return out
}
