package readings_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/conformance/suite"
	"github.com/forge-conform/forge-conform/golden"
	"github.com/forge-conform/forge-conform/impl/inproc"
	"github.com/forge-conform/forge-conform/impl/readings"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/internal/scratch"
	"github.com/forge-conform/forge-conform/spec"
)

// TestMain keeps the tests' files on tmpfs where it can (internal/scratch).
func TestMain(m *testing.M) { os.Exit(scratch.Wrap(m).Run()) }

// TestTableMatchesInterpretations: every interpretation that leaves room
// (allowed, declared, conflict) lists its readings; every reading it lists
// as realized is a reading of this package and the other way round.
func TestTableMatchesInterpretations(t *testing.T) {
	set, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	table := map[string]readings.Reading{}
	for _, r := range readings.All() {
		if _, dup := table[r.Key()]; dup {
			t.Errorf("%s is in the table twice", r.Key())
		}
		table[r.Key()] = r
		switch set.Classes[r.Interp] {
		case spec.ClassAllowed, spec.ClassDeclared, spec.ClassConflict:
		default:
			t.Errorf("%s: %s is of class %q: only an interpretation that leaves room (allowed, declared, conflict) has readings", r.Key(), r.Interp, set.Classes[r.Interp])
		}
		if r.Doc == "" || len(r.Specs) == 0 || r.Apply == nil {
			t.Errorf("%s: a reading needs a Doc, its Specs and an Apply", r.Key())
		}
		for _, s := range r.Specs {
			if set.Catalogs[s] == nil {
				t.Errorf("%s: unknown spec %q", r.Key(), s)
			}
		}
		decls := set.Readings[r.Interp]
		i := slices.IndexFunc(decls, func(d spec.ReadingDecl) bool { return d.Name == r.Name })
		switch {
		case i < 0:
			t.Errorf("%s: INTERPRETATIONS.md's Readings line of %s does not list `%s`", r.Key(), r.Interp, r.Name)
		case decls[i].Reference:
			t.Errorf("%s: marked (reference) on its Readings line, but the reference's default reading needs no entry here", r.Key())
		case decls[i].NotRealized != "":
			t.Errorf("%s: marked (not realized) on its Readings line, but the reference realizes it", r.Key())
		}
	}
	for id, class := range set.Classes {
		if class == spec.ClassForced {
			if _, ok := set.Readings[id]; ok {
				t.Errorf("%s is forced: the text decides it, so it has no Readings line", id)
			}
			continue
		}
		decls, ok := set.Readings[id]
		if !ok {
			t.Errorf("%s (%s) has no Readings line in INTERPRETATIONS.md: list the readings the text allows", id, class)
			continue
		}
		for _, d := range decls {
			if !d.Reference && d.NotRealized == "" {
				if _, ok := table[id+"="+d.Name]; !ok {
					t.Errorf("%s: reading `%s` is listed as realized, but impl/readings has no %s=%s", id, d.Name, id, d.Name)
				}
			}
		}
	}
}

// TestSuitePassesUnderEveryReading runs the corpus of each reading's specs
// against the reference taking that reading: a case that fails asserts
// more than the SRD states. Forge's readings are also run all together.
func TestSuitePassesUnderEveryReading(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the corpus once per reading")
	}
	d, err := suite.Load()
	if err != nil {
		t.Fatal(err)
	}
	c, specs, fx := d.Corpus, d.Specs, d.Fixtures
	base := runner.Options{Corpus: c, Specs: specs, Fixtures: fx, Golden: golden.FS, Jobs: 2, Timeout: 30 * time.Second}
	type variant struct {
		name  string
		rs    []readings.Reading
		specs []string
	}
	var vs []variant
	for _, r := range readings.All() {
		vs = append(vs, variant{r.Key(), []readings.Reading{r}, r.Specs})
	}
	vs = append(vs, variant{"forge", readings.Forge(), specs.Names()})
	for _, v := range vs {
		t.Run(v.name, func(t *testing.T) {
			var opts reference.Options
			if err := readings.Apply(&opts, v.rs...); err != nil {
				t.Fatal(err)
			}
			target, err := inproc.New(opts)
			if err != nil {
				t.Fatal(err)
			}
			o := base
			o.Target = target
			o.Select = &runner.Selector{}
			for _, s := range v.specs {
				o.Select.Run = append(o.Select.Run, s+"/*")
			}
			r, err := runner.New(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			run := r.RunAll(context.Background())
			ran := 0
			for _, res := range run.Results {
				switch res.Status {
				case runner.Failed, runner.Errored:
					t.Errorf("%s", explain(res))
				case runner.Passed:
					ran++
				}
			}
			if ran == 0 {
				t.Fatalf("no case of %s passed: the reading was checked against nothing", strings.Join(v.specs, ", "))
			}
		})
	}
}

// explain renders a failed result.
func explain(res *runner.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (%s:%d): %s", res.Status, res.Case.FullName(), res.Case.File, res.Case.Line, res.Message)
	for _, f := range res.Failures {
		fmt.Fprintf(&b, "\n  %s [%s]: %s", f.Kind, strings.Join(f.IDs, ", "), f.Message)
		if f.Diff != "" {
			fmt.Fprintf(&b, "\n%s", f.Diff)
		}
	}
	if len(res.Case.Interpretations) > 0 {
		fmt.Fprintf(&b, "\n  relies on %s", strings.Join(res.Case.Interpretations, ", "))
	}
	return b.String()
}
