// Package conformance_test is the Ginkgo suite: one spec per corpus case,
// labelled with the requirement IDs it covers (ginkgo --label-filter=T-LD-05
// runs exactly those), run against the built-in reference in-process and,
// when FORGE_CONFORM_BINARY is set, against that command through FCP/1.
// Beside the cases: traceability (every testable ID covered, no unknown IDs
// or interpretations, a golden per case) and the mutants (deliberately
// broken references the suite must catch, naming the right ID).
package conformance_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/forge-conform/forge-conform/conformance/cases"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/fixtures"
	"github.com/forge-conform/forge-conform/golden"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/impl/tools/applypatch"
	"github.com/forge-conform/forge-conform/impl/tools/listdir"
	"github.com/forge-conform/forge-conform/impl/tools/readfile"
	"github.com/forge-conform/forge-conform/impl/tools/writefile"
	"github.com/forge-conform/forge-conform/scripts/gen-fixtures/fixture"
	"github.com/forge-conform/forge-conform/spec"
)

func TestConformance(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "forge-conform")
}

// suiteData is everything the suite reads, loaded once at tree construction.
type suiteData struct {
	corpus   *corpus.Corpus
	specs    *spec.Set
	fixtures map[string]*fixture.Fixture
}

func load() suiteData {
	c, err := corpus.Load(cases.FS)
	if err != nil {
		panic(fmt.Sprintf("loading the corpus: %v", err))
	}
	s, err := spec.Load()
	if err != nil {
		panic(fmt.Sprintf("loading the catalogs: %v", err))
	}
	fx, err := fixture.LoadFS(fixtures.FS)
	if err != nil {
		panic(fmt.Sprintf("loading the fixtures: %v", err))
	}
	return suiteData{corpus: c, specs: s, fixtures: fx}
}

func (d suiteData) options() runner.Options {
	return runner.Options{Corpus: d.corpus, Specs: d.specs, Fixtures: d.fixtures, Golden: golden.FS, Timeout: 20 * time.Second}
}

// explain renders a failed result for the Gomega message.
func explain(res *runner.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s\n", res.Status, res.Case.FullName(), res.Message)
	for _, f := range res.Failures {
		fmt.Fprintf(&b, "  %s [%s]: %s\n", f.Kind, strings.Join(f.IDs, ", "), f.Message)
		if f.Diff != "" {
			fmt.Fprintf(&b, "%s\n", f.Diff)
		}
	}
	if res.Stderr != "" {
		fmt.Fprintf(&b, "stderr: %s\n", res.Stderr)
	}
	if len(res.Case.Interpretations) > 0 {
		fmt.Fprintf(&b, "relies on %s (spec/INTERPRETATIONS.md)\n", strings.Join(res.Case.Interpretations, ", "))
	}
	return b.String()
}

var _ = Describe("conformance", func() {
	data := load()
	type target struct {
		name   string
		binary []string
	}
	targets := []target{{name: "reference in-process"}}
	if bin := os.Getenv("FORGE_CONFORM_BINARY"); bin != "" {
		targets = append(targets, target{name: "binary " + bin, binary: strings.Fields(bin)})
	}
	for _, tgt := range targets {
		Describe(tgt.name, Ordered, func() {
			var r *runner.Runner
			BeforeAll(func(ctx SpecContext) {
				opts := data.options()
				opts.Binary = tgt.binary
				var err error
				r, err = runner.New(context.Background(), opts)
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(r.Close)
				for _, n := range r.Notes() {
					AddReportEntry("note", n)
				}
			})
			for _, c := range data.corpus.Cases {
				It(c.FullName(), Label(labels(c)...), func(ctx SpecContext) {
					res := r.RunCase(ctx, c)
					if res.Status == runner.Skipped {
						Skip(res.Message)
					}
					Expect(res.Status).To(Equal(runner.Passed), explain(res))
				})
			}
		})
	}
})

var _ = Describe("traceability", func() {
	data := load()

	It("covers every testable ID of every catalog with at least one case", func() {
		covered := map[corpus.Ref]bool{}
		for _, c := range data.corpus.Cases {
			for _, ref := range c.Refs() {
				covered[ref] = true
			}
		}
		var missing []string
		for _, name := range data.specs.Names() {
			for _, r := range data.specs.Catalogs[name].Requirements {
				if r.Testable && r.Planned == "" && !covered[corpus.Ref{Spec: name, ID: r.ID}] {
					missing = append(missing, name+" "+r.ID)
				}
			}
		}
		Expect(missing).To(BeEmpty(), "testable IDs without a case: add a case or say in the catalog why FCP/1 cannot observe it")
	})

	It("names only catalogued IDs, known interpretations and the spec's own tools", func() {
		var problems []string
		for _, c := range data.corpus.Cases {
			cat := data.specs.Catalogs[c.Spec]
			if cat == nil {
				problems = append(problems, c.FullName()+": no catalog spec/catalog/"+c.Spec+".json")
				continue
			}
			for _, ref := range c.Refs() {
				refCat := data.specs.Catalogs[ref.Spec]
				if refCat == nil {
					problems = append(problems, fmt.Sprintf("%s: unknown catalog %q in ID %s:%s", c.FullName(), ref.Spec, ref.Spec, ref.ID))
					continue
				}
				if r, ok := refCat.Lookup(ref.ID); !ok {
					problems = append(problems, fmt.Sprintf("%s: unknown ID %s in catalog %s", c.FullName(), ref.ID, ref.Spec))
				} else if !r.Testable {
					problems = append(problems, fmt.Sprintf("%s: covers %s, which catalog %s calls untestable", c.FullName(), ref.ID, ref.Spec))
				}
			}
			for _, i := range c.Interpretations {
				if _, ok := data.specs.Interpretations[i]; !ok {
					problems = append(problems, fmt.Sprintf("%s: unknown interpretation %s (spec/INTERPRETATIONS.md)", c.FullName(), i))
				}
			}
			if c.Op == "call" && !contains(cat.Tools, c.Tool) {
				problems = append(problems, fmt.Sprintf("%s: tool %s is not one of spec %s's tools %v", c.FullName(), c.Tool, c.Spec, cat.Tools))
			}
			if c.Op == "call" && data.fixtures[c.Fixture] == nil {
				problems = append(problems, fmt.Sprintf("%s: unknown fixture %q", c.FullName(), c.Fixture))
			}
		}
		Expect(problems).To(BeEmpty())
	})

	It("has exactly one golden file per case", func() {
		want := map[string]bool{}
		var missing, stale []string
		for _, c := range data.corpus.Cases {
			name := c.Spec + "/" + c.Name + ".golden"
			want[name] = true
			if _, err := fs.Stat(golden.FS, name); err != nil {
				missing = append(missing, name)
			}
		}
		_ = fs.WalkDir(golden.FS, ".", func(p string, e fs.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(p, ".golden") && !want[p] {
				stale = append(stale, p)
			}
			return nil
		})
		Expect(missing).To(BeEmpty(), "run `make golden` and review the new files")
		Expect(stale).To(BeEmpty(), "golden files without a case: delete them")
	})

	It("uses every fixture", func() {
		used := map[string]bool{}
		for _, c := range data.corpus.Cases {
			used[c.Fixture] = true
		}
		var unused []string
		for name := range data.fixtures {
			if !used[name] {
				unused = append(unused, name)
			}
		}
		Expect(unused).To(BeEmpty())
	})
})

// The mutants: one deliberate defect each. The suite must fail each one,
// and the failures must name the requirement the defect breaks. IDs are
// "spec:ID": a bare ID is ambiguous across catalogs (C-01 is in two).
var _ = Describe("mutants", func() {
	data := load()
	DescribeTable("the suite catches",
		func(ctx SpecContext, d reference.Defects, mustFail []string) {
			opts := data.options()
			opts.Defects = d
			opts.Jobs = 2
			r, err := runner.New(context.Background(), opts)
			Expect(err).NotTo(HaveOccurred())
			defer r.Close()
			run := r.RunAll(ctx)
			Expect(run.OK()).To(BeFalse(), "the mutant passed every case")
			failed := map[string]bool{}
			for _, ir := range run.IDs {
				if ir.Status == runner.Failed {
					failed[ir.Spec+":"+ir.ID] = true
				}
			}
			for _, id := range mustFail {
				Expect(id).To(MatchRegexp(`^[a-z0-9_]+:[A-Z]`), "qualify the ID with its catalog")
				Expect(data.specs.Catalogs).To(HaveKey(strings.SplitN(id, ":", 2)[0]), "unknown catalog in %s", id)
				Expect(failed).To(HaveKey(id), "the mutant should fail %s", id)
			}
		},
		Entry("following symlinks", ld(listdir.Defects{FollowSymlinks: true}), ids("list_directory", "FR-LD-VAL-09", "NFR-LD-SEC-03", "T-LD-08", "LD-ENT-01")),
		Entry("breadth-first traversal", ld(listdir.Defects{BreadthFirst: true}), ids("list_directory", "FR-LD-LST-05", "T-LD-05")),
		Entry("a wrong truncated_reason", ld(listdir.Defects{WrongTruncatedReason: true}), ids("list_directory", "FR-LD-OUT-07", "T-LD-14")),
		Entry("HTML escaping", ld(listdir.Defects{HTMLEscape: true}), ids("list_directory", "FR-LD-OUT-02a")),
		Entry("an off-by-one budget", ld(listdir.Defects{BudgetOffByOne: true}), ids("list_directory", "FR-LD-OUT-03", "T-LD-13", "T-LD-06")),
		Entry("traversing hidden dirs", ld(listdir.Defects{TraverseHidden: true}), ids("list_directory", "FR-LD-LST-06", "T-LD-11")),

		Entry("read_file sniffing the whole file", reference.Defects{ReadFile: readfile.Defects{SniffWholeFile: true}},
			ids("tool_executor", "RF-SNIFF-01")),
		Entry("read_file not clamping end_line at EOF", reference.Defects{ReadFile: readfile.Defects{NoRangeEndClamp: true}},
			ids("tool_executor", "T-READ-01", "FR-TOOL-READ-01")),
		Entry("read_file not recording reads", reference.Defects{ReadFile: readfile.Defects{NoCacheRecord: true}},
			ids("tool_executor", "FR-TOOL-PATCH-02c")),
		Entry("read_file binary output over budget", reference.Defects{ReadFile: readfile.Defects{BinaryOverBudget: true}},
			ids("tool_executor", "FR-TOOL-READ-01b")),
		Entry("write_file overwriting", reference.Defects{WriteFile: writefile.Defects{Overwrite: true}},
			ids("write_file", "FR-WR-03", "T-WR-02")),
		Entry("write_file following a symlink", reference.Defects{WriteFile: writefile.Defects{FollowSymlink: true}},
			ids("write_file", "WR-SYMLINK-01", "FR-WR-03")),
		Entry("apply_patch skipping the stale check", reference.Defects{ApplyPatch: applypatch.Defects{SkipStaleCheck: true}},
			ids("tool_executor", "FR-TOOL-PATCH-02a", "FR-TOOL-PATCH-02b")),
		Entry("apply_patch writing non-atomically", reference.Defects{ApplyPatch: applypatch.Defects{NonAtomic: true}},
			ids("tool_executor", "T-PATCH-01", "FR-TOOL-PATCH-01a")),
		Entry("apply_patch adding a newline on create", reference.Defects{ApplyPatch: applypatch.Defects{TrailingNewlineOnCreate: true}},
			append(ids("tool_executor", "AP-MISSING-01"), ids("lp1", "LP1-NL-08")...)),
		Entry("apply_patch counting occurrences from the end", reference.Defects{ApplyPatch: applypatch.Defects{OccFromEnd: true}},
			ids("lp1", "LP1-SEM-06")),
	)
})

// ld is a list_directory mutant.
func ld(d listdir.Defects) reference.Defects { return reference.Defects{ListDir: d} }

// ids qualifies bare IDs of one catalog: "spec:ID".
func ids(spec string, bare ...string) []string {
	out := make([]string, len(bare))
	for i, id := range bare {
		out[i] = spec + ":" + id
	}
	return out
}

// labels are the bare IDs of a case (Ginkgo labels cannot hold ':').
func labels(c *corpus.Case) []string {
	out := make([]string, 0, len(c.IDs))
	for _, r := range c.Refs() {
		out = append(out, r.ID)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
