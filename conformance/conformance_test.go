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
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/conformance/suite"
	"github.com/forge-conform/forge-conform/golden"
	"github.com/forge-conform/forge-conform/impl/inproc"
	"github.com/forge-conform/forge-conform/impl/mutants"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/internal/scratch"
	"github.com/forge-conform/forge-conform/spec"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// TestMain runs the suite with its fixtures on tmpfs where it can
// (internal/scratch), and removes the reference binary it built.
func TestMain(m *testing.M) {
	code := scratch.Wrap(m).Run()
	if refBinPath != "" {
		_ = os.RemoveAll(filepath.Dir(refBinPath))
	}
	os.Exit(code)
}

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
	d, err := suite.Load()
	if err != nil {
		panic(err.Error())
	}
	return suiteData{corpus: d.Corpus, specs: d.Specs, fixtures: d.Fixtures}
}

// gate is the one measurement gate of every runner the suite starts: the
// mutants run in the background beside the reference's specs, and a
// scaling case, whichever runner's, must measure while none of them runs
// a case (runner.Gate).
var gate = runner.NewGate()

func (d suiteData) options() runner.Options {
	return runner.Options{Corpus: d.corpus, Specs: d.specs, Fixtures: d.fixtures, Golden: golden.FS, Timeout: 20 * time.Second, Gate: gate}
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
		// policies of the in-process reference; policyCases runs only the
		// cases that name a policy (the others ran on the first target).
		policies    map[string]string
		policyCases bool
	}
	targets := []target{{name: "reference in-process"}}
	// Every value of every policy, so that each policy case runs on a
	// reference that declares its value.
	for k, vals := range fcp.PolicyValues() {
		for _, v := range vals {
			if v != reference.DefaultPolicies()[k] {
				targets = append(targets, target{name: "reference in-process, policy " + k + "=" + v,
					policies: map[string]string{k: v}, policyCases: true})
			}
		}
	}
	if bin := os.Getenv("FORGE_CONFORM_BINARY"); bin != "" {
		targets = append(targets, target{name: "binary " + bin, binary: strings.Fields(bin)})
	}
	for _, tgt := range targets {
		Describe(tgt.name, Ordered, func() {
			var r *runner.Runner
			BeforeAll(func(ctx SpecContext) {
				opts := data.options()
				opts.Binary = tgt.binary
				if len(tgt.binary) == 0 {
					opts.Target = inProcess(reference.Options{Policies: tgt.policies})
				}
				var err error
				r, err = runner.New(context.Background(), opts)
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(r.Close)
				for _, n := range r.Notes() {
					AddReportEntry("note", n)
				}
			})
			for _, c := range data.corpus.Cases {
				if tgt.policyCases && len(c.Policy) == 0 {
					continue
				}
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
			if c.Op == "call" && !contains(cat.Tools, c.Tool) && (c.Spec != "tool_executor" || !contains(fcp.TestTools, c.Tool)) {
				problems = append(problems, fmt.Sprintf("%s: tool %s is not one of spec %s's tools %v", c.FullName(), c.Tool, c.Spec, cat.Tools))
			}
			if c.Op == "call" && data.fixtures[c.Fixture] == nil {
				problems = append(problems, fmt.Sprintf("%s: unknown fixture %q", c.FullName(), c.Fixture))
			}
			if c.Scaling != nil && data.fixtures[c.Scaling.Fixture] == nil {
				problems = append(problems, fmt.Sprintf("%s: unknown scaling fixture %q", c.FullName(), c.Scaling.Fixture))
			}
		}
		Expect(problems).To(BeEmpty())
	})

	It("has exactly one golden file per case", func() {
		want := map[string]bool{}
		var missing, stale []string
		for _, c := range data.corpus.Cases {
			if !c.Golden() {
				continue // no golden: see corpus.Case.Golden
			}
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
			if c.Scaling != nil {
				used[c.Scaling.Fixture] = true
			}
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

// The mutants (impl/mutants): one deliberate defect each. Each runs the
// cases of the specs it breaks that can see the defect (those that call a
// tool the mutant changes; every other case gets the reference's answers,
// which the conformance specs above check), and the blame must be exact
// both ways: the IDs the defect breaks fail, and every other ID of those
// specs passes (or is skipped, uncovered, untestable: anything but failed
// or errored). IDs are "spec:ID": a bare ID is ambiguous across catalogs
// (C-01 is in two). The runs share one set of read-only fixtures.
var _ = Describe("mutants", Ordered, ContinueOnFailure, func() {
	data := load()
	var runs *mutantRuns
	BeforeAll(func() {
		layouts, err := runner.NewLayouts("")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(layouts.Close)
		// The runs wait on timeouts, sleeps and child processes more than
		// they compute: they start here, a few at a time, and each spec
		// below waits for its own. Only the mutants whose specs will run
		// start (Ginkgo's focus, skip and label filters).
		var will []mutants.Mutant
		for _, m := range mutants.All() {
			if willRun(mutantText(m), bareIDs(m.Breaks)) {
				will = append(will, m)
			}
		}
		runs = startMutants(data, layouts, will, 3)
		DeferCleanup(runs.stop)
	})
	for _, m := range mutants.All() {
		// Labelled with the bare IDs it breaks, so that a label filter on
		// an ID runs its case specs and the mutants that must catch it.
		It(mutantText(m), Label(bareIDs(m.Breaks)...), func(ctx SpecContext) {
			for _, id := range m.Breaks {
				Expect(id).To(MatchRegexp(`^[a-z0-9_]+:[A-Z]`), "qualify the ID with its catalog")
				Expect(data.specs.Catalogs).To(HaveKey(strings.SplitN(id, ":", 2)[0]), "unknown catalog in %s", id)
			}
			run, err := runs.wait(ctx, m)
			Expect(err).NotTo(HaveOccurred())
			if reason := allSkipped(run); reason != "" {
				Skip("every case the mutant runs was skipped, so nothing can catch it here: " + reason)
			}
			Expect(run.OK()).To(BeFalse(), "the mutant passed every case")
			var got []string
			for _, ir := range run.IDs {
				if (ir.Status == runner.Failed || ir.Status == runner.Errored) && contains(m.Specs, ir.Spec) {
					got = append(got, ir.Spec+":"+ir.ID)
				}
			}
			want := append([]string(nil), m.Breaks...)
			slices.Sort(want)
			slices.Sort(got)
			Expect(got).To(Equal(want), "failed or errored IDs of %v (the defect must fail exactly the IDs it breaks)\n%s",
				m.Specs, blame(run, m.Specs))
		})
	}
})

// allSkipped returns the reason of the first selected case when every
// selected case of run was skipped (a process mutant on a machine that
// cannot observe its defect), else "".
func allSkipped(run *runner.Run) string {
	reason := ""
	for _, res := range run.Results {
		if res == nil || res.Unselected {
			continue
		}
		if res.Status != runner.Skipped {
			return ""
		}
		if reason == "" {
			reason = res.Message
		}
	}
	return reason
}

// mutantText is the text of a mutant's spec.
func mutantText(m mutants.Mutant) string { return "catches " + m.Name + ": " + m.Doc }

// willRun predicts whether Ginkgo runs the spec "mutants <text>" with
// labels, from the suite's focus, skip and label filters. File filters
// are not predicted: with them every mutant counts as running.
func willRun(text string, labels []string) bool {
	cfg, _ := GinkgoConfiguration()
	full := "forge-conform mutants " + text
	if f := strings.Join(cfg.FocusStrings, "|"); f != "" {
		if re, err := regexp.Compile(f); err == nil && !re.MatchString(full) {
			return false
		}
	}
	if sk := strings.Join(cfg.SkipStrings, "|"); sk != "" {
		if re, err := regexp.Compile(sk); err == nil && re.MatchString(full) {
			return false
		}
	}
	if cfg.LabelFilter != "" {
		if lf, err := types.ParseLabelFilter(cfg.LabelFilter); err == nil && !lf(labels) {
			return false
		}
	}
	return true
}

// mutantRuns are the mutant runs started in the background.
type mutantRuns struct {
	data    suiteData
	layouts *runner.Layouts
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	done    map[string]*mutantRun
}

type mutantRun struct {
	done chan struct{}
	run  *runner.Run
	err  error
}

// startMutants runs ms, at most n at a time, in their order.
func startMutants(data suiteData, layouts *runner.Layouts, ms []mutants.Mutant, n int) *mutantRuns {
	ctx, cancel := context.WithCancel(context.Background())
	rs := &mutantRuns{data: data, layouts: layouts, cancel: cancel, done: map[string]*mutantRun{}}
	queue := make(chan mutants.Mutant, len(ms))
	for _, m := range ms {
		rs.done[m.Name] = &mutantRun{done: make(chan struct{})}
		queue <- m
	}
	close(queue)
	for range n {
		rs.wg.Add(1)
		go func() {
			defer rs.wg.Done()
			for m := range queue {
				mr := rs.done[m.Name]
				mr.run, mr.err = runMutant(ctx, data, layouts, m)
				close(mr.done)
			}
		}()
	}
	return rs
}

// wait returns m's run, running it now if it was not started.
func (rs *mutantRuns) wait(ctx context.Context, m mutants.Mutant) (*runner.Run, error) {
	mr, ok := rs.done[m.Name]
	if !ok {
		return runMutant(ctx, rs.data, rs.layouts, m)
	}
	select {
	case <-mr.done:
		return mr.run, mr.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// stop cancels the runs no spec waits for and waits for them to end.
func (rs *mutantRuns) stop() {
	rs.cancel()
	rs.wg.Wait()
}

// runMutant runs the cases that can see m's defect on m.
func runMutant(ctx context.Context, data suiteData, layouts *runner.Layouts, m mutants.Mutant) (*runner.Run, error) {
	opts := data.options()
	if m.Process {
		bin, err := buildRefBinary()
		if err != nil {
			return nil, err
		}
		opts.Binary = append(bin, "--mutant", m.Name)
	} else {
		t, err := inproc.New(m.Options)
		if err != nil {
			return nil, fmt.Errorf("mutant %s in-process: %w", m.Name, err)
		}
		opts.Target = t
	}
	opts.Jobs = 2
	opts.Strict = m.Strict
	opts.Layouts = layouts
	opts.Select = seeing(data.corpus, m.Specs, m.Tools())
	if len(m.Run) > 0 {
		opts.Select = &runner.Selector{Run: m.Run}
	}
	skip, breaksScaling := scalingUnbroken(data.corpus, m)
	opts.Select.Skip = append(opts.Select.Skip, skip...)
	if breaksScaling {
		// A mutant that breaks a scaling ID (a quadratic sort) measures
		// under the load of the other runs rather than stopping them for
		// half a minute: its growth (about 100-fold under load, against a
		// limit of 48) does not need a quiet machine to show, while the
		// reference's (9 to 15-fold) must never be pushed over the limit
		// by a neighbour, so the suite's gate stays the reference's.
		opts.Gate = runner.NewGate()
	}
	r, err := runner.New(context.Background(), opts)
	if err != nil {
		return nil, fmt.Errorf("mutant %s: %w", m.Name, err)
	}
	defer r.Close()
	return r.RunAll(ctx), nil
}

// seeing selects the cases of specs that can see a defect of tools: the
// calls of one of them, directly or in a before step, and ops that may run
// tools (definitions and summary do not). No tools: every case of specs.
func seeing(c *corpus.Corpus, specs, tools []string) *runner.Selector {
	sel := &runner.Selector{}
	if len(tools) == 0 {
		for _, s := range specs {
			sel.Run = append(sel.Run, s+"/*")
		}
		return sel
	}
	escape := strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`)
	for _, cs := range c.Cases {
		if !contains(specs, cs.Spec) || cs.Op == "definitions" || cs.Op == "summary" {
			continue
		}
		calls := contains(tools, cs.Tool) || (cs.Op != "call" && cs.Op != "turn")
		if cs.Op == "turn" {
			calls = turnCalls(cs.Turn, tools)
		}
		for _, st := range cs.Before {
			calls = calls || (st.Call != nil && contains(tools, st.Call.Tool))
		}
		if calls {
			sel.Run = append(sel.Run, escape.Replace(cs.FullName()))
		}
	}
	if len(sel.Run) == 0 {
		sel.Run = []string{"-"} // no case can see it: select none
	}
	return sel
}

// scalingUnbroken names the scaling cases none of whose IDs m breaks, and
// reports whether m breaks one of another. A scaling case measures alone
// (runner.Gate), for about half a minute on a quadratic mutant, so a
// mutant whose defect is not in a sort's complexity leaves them out: they
// would only pass (as the reference's do in "the implementation's process
// through FCP/1") while the other runs of the suite wait.
func scalingUnbroken(c *corpus.Corpus, m mutants.Mutant) (skip []string, breaksOne bool) {
	for _, cs := range c.Cases {
		if cs.Scaling == nil {
			continue
		}
		broken := false
		for _, ref := range cs.Refs() {
			broken = broken || contains(m.Breaks, ref.Spec+":"+ref.ID)
		}
		if broken {
			breaksOne = true
		} else {
			skip = append(skip, cs.FullName())
		}
	}
	return skip, breaksOne
}

// turnCalls reports whether a turn's scripted models (the turn's and its
// recover steps') call one of tools: a mutant wraps only a tool's Execute,
// so a turn that never calls the tool cannot see it. A script it cannot
// read counts as calling them.
func turnCalls(t *corpus.TurnSpec, tools []string) bool {
	if t == nil {
		return true
	}
	models := []json.RawMessage{t.Model}
	for _, st := range t.Recover {
		models = append(models, st.Model)
	}
	for _, m := range models {
		if len(m) == 0 {
			continue
		}
		var script []fcp.ModelResponse
		if err := json.Unmarshal(m, &script); err != nil {
			return true
		}
		for _, resp := range script {
			for _, call := range resp.ToolCalls {
				if contains(tools, call.Name) {
					return true
				}
			}
		}
	}
	return false
}

// The durability cases crash the implementation's process (PROTOCOL.md
// §10), which the in-process reference has not: they run here through
// FCP/1 on `forge-conform ref`, built for the test.
var _ = Describe("durability through FCP/1", Ordered, func() {
	data := load()
	var r *runner.Runner
	BeforeAll(func() {
		opts := data.options()
		opts.Binary = refBinary()
		opts.Select = &runner.Selector{Run: []string{"tool_executor/turn-durable-*"}}
		var err error
		r, err = runner.New(context.Background(), opts)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(r.Close)
	})
	for _, c := range data.corpus.Cases {
		if !c.Durable() {
			continue
		}
		It(c.FullName(), Label(labels(c)...), func(ctx SpecContext) {
			res := r.RunCase(ctx, c)
			Expect(res.Status).To(Equal(runner.Passed), explain(res))
		})
	}
})

// The cases that judge or observe the implementation's process from
// outside, which the in-process reference has not (it skips them): the
// scaling cases (corpus.Scaling) time the CPU of its processes, the process
// cases (corpus.ProcessSpec, I-EXE-30) watch its network namespace and
// memory cgroup. They run here through FCP/1 on `forge-conform ref`, built
// for the test, and skip where the machine cannot observe (not root, no
// memory cgroup).
var _ = Describe("the implementation's process through FCP/1", Ordered, func() {
	data := load()
	var r *runner.Runner
	BeforeAll(func() {
		opts := data.options()
		opts.Binary = refBinary()
		sel := &runner.Selector{}
		for _, c := range data.corpus.Cases {
			if c.Scaling != nil || c.Observed() {
				sel.Run = append(sel.Run, c.FullName())
			}
		}
		opts.Select = sel
		var err error
		r, err = runner.New(context.Background(), opts)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(r.Close)
	})
	for _, c := range data.corpus.Cases {
		if c.Scaling == nil && !c.Observed() {
			continue
		}
		It(c.FullName(), Label(labels(c)...), func(ctx SpecContext) {
			res := r.RunCase(ctx, c)
			if res.Status == runner.Skipped {
				Skip(res.Message)
			}
			Expect(res.Status).To(Equal(runner.Passed), explain(res))
			if c.Scaling != nil {
				AddReportEntry("measurement", res.Message)
			}
		})
	}
})

var (
	refBinOnce sync.Once
	refBinPath string
	refBinErr  error
)

// refBinary builds forge-conform once into a world-searchable temp dir (a
// root runner runs it as nobody) and returns the argv that serves the
// reference.
func refBinary() []string {
	bin, err := buildRefBinary()
	Expect(err).NotTo(HaveOccurred())
	return bin
}

// buildRefBinary is refBinary for use outside a spec.
func buildRefBinary() ([]string, error) {
	refBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "fc-suite-bin-")
		if err == nil {
			err = os.Chmod(dir, 0o755)
		}
		if err != nil {
			refBinErr = err
			return
		}
		refBinPath = filepath.Join(dir, "forge-conform")
		out, err := exec.Command("go", "build", "-o", refBinPath, "github.com/forge-conform/forge-conform/cmd/forge-conform").CombinedOutput()
		if err != nil {
			refBinErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if refBinErr != nil {
		return nil, refBinErr
	}
	return []string{refBinPath, "ref"}, nil
}

// inProcess is the reference in-process, built with opts.
func inProcess(opts reference.Options) runner.Target {
	t, err := inproc.New(opts)
	Expect(err).NotTo(HaveOccurred())
	return t
}

// blame lists, for a mutant's failure message, each failing case with the
// IDs its failures name.
func blame(run *runner.Run, specs []string) string {
	var b strings.Builder
	for _, res := range run.Results {
		if res == nil || !contains(specs, res.Case.Spec) || (res.Status != runner.Failed && res.Status != runner.Errored) {
			continue
		}
		fmt.Fprintf(&b, "  %s %s:", res.Status, res.Case.FullName())
		for _, f := range res.Failures {
			fmt.Fprintf(&b, " %s%v", f.Kind, f.IDs)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// bareIDs drops the catalog of "spec:ID" references (Ginkgo labels cannot
// hold ':').
func bareIDs(refs []string) []string {
	var out []string
	for _, r := range refs {
		_, id, _ := strings.Cut(r, ":")
		if !contains(out, id) {
			out = append(out, id)
		}
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
