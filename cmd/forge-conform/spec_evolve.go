package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/spec"
	"github.com/forge-conform/forge-conform/spec/anchor"
	"github.com/forge-conform/forge-conform/spec/evolve"
)

// printChanges prints what spec check found: added and removed IDs, then
// the requirements whose anchored sentence changed, is lost or moved; for
// each changed or removed one, what rests on it.
func printChanges(w io.Writer, changes []evolve.Change, src evolve.Sources, goldenDir string) {
	for _, ch := range changes {
		id := ch.ID
		switch ch.Kind {
		case evolve.Added:
			fmt.Fprintf(w, "  + %s  in the document, not in the catalog: add it with its level, summary and cases\n", id)
			continue
		case evolve.Removed:
			fmt.Fprintf(w, "  - %s  in the catalog, gone from the document: remove it or mark it derived\n", id)
		case evolve.Moved:
			for _, to := range ch.MovedTo {
				fmt.Fprintf(w, "  ~ %s  moved: its sentence reads the same at %s; `forge-conform spec update --srd FILE` follows it\n", id, to)
			}
			continue
		default:
			for _, p := range ch.Problems {
				printAnchorProblem(w, spec.AnchorProblem{Spec: ch.Spec, ID: id, Result: p})
			}
		}
		printImpact(w, src.Affected(ch.Spec, id, changedText(ch)), goldenDir)
	}
}

// changedText is the sentence of a changed requirement now (the texts of
// its anchors that still resolve).
func changedText(ch evolve.Change) string {
	var ts []string
	for _, p := range ch.Problems {
		ts = append(ts, p.Text)
	}
	return strings.Join(ts, " ")
}

// printImpact lists the cases, goldens and interpretations resting on a
// changed or removed requirement.
func printImpact(w io.Writer, im evolve.Impact, goldenDir string) {
	if im.Empty() {
		fmt.Fprintf(w, "      rests on it: no case, golden or interpretation\n")
		return
	}
	list := func(label string, xs []string) {
		if len(xs) > 0 {
			fmt.Fprintf(w, "      %s: %s\n", label, strings.Join(xs, " "))
		}
	}
	list("cases", im.Cases)
	if len(im.Defaults) > 0 {
		list("cases relying on the built-in "+strings.Join(im.Keys, ", "), im.Defaults)
	}
	var goldens []string
	for _, g := range im.Goldens {
		goldens = append(goldens, filepath.Join(goldenDir, g))
	}
	list("goldens", goldens)
	list("interpretations", im.Interpretations)
}

// cmdSpecDiff shows, per requirement anchored into a document, how its
// sentence reads in two revisions of it (a word diff), and the IDs only
// one revision prints.
func cmdSpecDiff(args []string, stdout io.Writer) (int, error) {
	fs := newFlagSet("spec diff")
	var df dataFlags
	df.register(fs)
	var files []string
	// Flags may come before or after the two files.
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return exitHarness, usageError{err.Error()}
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(files) != 2 {
		return exitHarness, usageError{"spec diff: want `spec diff OLD.md NEW.md` (two revisions of one SRD)"}
	}
	oldText, err := os.ReadFile(files[0])
	if err != nil {
		return exitHarness, fmt.Errorf("spec diff: %w", err)
	}
	newText, err := os.ReadFile(files[1])
	if err != nil {
		return exitHarness, fmt.Errorf("spec diff: %w", err)
	}
	d, err := df.load()
	if err != nil {
		return exitHarness, err
	}
	c := d.specs.ForDocument(files[0], string(oldText))
	if c == nil {
		c = d.specs.ForDocument(files[1], string(newText))
	}
	if c == nil {
		return exitHarness, fmt.Errorf("spec diff: no catalog covers %s; add spec/catalog/NAME.json first", files[0])
	}
	src := d.sources(&df)
	v := func(text []byte) string {
		if s := spec.DocumentVersion(string(text)); s != "" {
			return "v" + s
		}
		return "unversioned"
	}
	diffs := evolve.Diff(d.specs, c, string(oldText), string(newText))
	fmt.Fprintf(stdout, "%s (%s) -> %s (%s): catalog %s, %d requirements differ\n", files[0], v(oldText), files[1], v(newText), c.Spec, len(diffs))
	for _, sd := range diffs {
		id := sd.ID
		if sd.Spec != c.Spec {
			id = sd.Spec + ":" + sd.ID
		}
		switch {
		case sd.Kind == evolve.Added:
			fmt.Fprintf(stdout, "+ %s  added%s\n", id, where(sd.Where))
			if sd.New != "" {
				fmt.Fprintf(stdout, "    {+%s+}\n", sd.New)
			}
			continue
		case sd.Kind == evolve.Removed:
			fmt.Fprintf(stdout, "- %s  removed%s\n", id, where(sd.Where))
			if sd.Old != "" {
				fmt.Fprintf(stdout, "    [-%s-]\n", sd.Old)
			}
		case sd.Moved:
			fmt.Fprintf(stdout, "~ %s  moved unchanged: %s -> %s\n", id, sd.Where, sd.NewWhere)
			continue
		case sd.Kind == evolve.NotFound:
			fmt.Fprintf(stdout, "! %s  not found in the new revision (%s)\n    was: %s\n", id, sd.Where, sd.Old)
		default:
			fmt.Fprintf(stdout, "! %s  changed (%s)\n    %s\n", id, sd.Where, evolve.FormatWordDiff(sd.Ops))
			for _, vc := range evolve.ValueChanges(sd.Ops) {
				fmt.Fprintf(stdout, "    value: %s\n", vc)
			}
		}
		printImpact(stdout, src.Affected(sd.Spec, sd.ID, keyText(sd)), df.goldenPath())
	}
	if len(diffs) > 0 {
		return exitFailed, nil
	}
	return exitOK, nil
}

func where(a anchor.Anchor) string {
	if a.Document == "" {
		return ""
	}
	return " (" + a.String() + ")"
}

// cmdSpecUpdate takes a revision of an SRD into its catalog: the anchors
// and fingerprints of its sentences (as `spec anchor --write`), the
// document's version, and a review mark on every case resting on a
// requirement whose sentence changed or is gone.
func cmdSpecUpdate(args []string, stdout io.Writer) (int, error) {
	fs := newFlagSet("spec update")
	var srdPath string
	var df dataFlags
	var was string
	fs.StringVar(&srdPath, "srd", "", "the revised SRD file")
	fs.StringVar(&was, "was", "", "the revision the catalog is anchored to: narrows a changed CFG-* requirement's cases to the keys its changed words name")
	df.register(fs)
	if err := parse(fs, args); err != nil {
		return exitHarness, err
	}
	if srdPath == "" {
		return exitHarness, usageError{"spec update: name the --srd FILE"}
	}
	text, err := os.ReadFile(srdPath)
	if err != nil {
		return exitHarness, fmt.Errorf("--srd: %w", err)
	}
	d, err := df.load()
	if err != nil {
		return exitHarness, err
	}
	if d.review, err = df.loadReviewFile(); err != nil {
		return exitHarness, err
	}
	set := d.specs
	c := set.ForDocument(srdPath, string(text))
	if c == nil {
		return exitHarness, fmt.Errorf("spec update: no catalog covers %s; add %s first", srdPath, df.specPath("catalog", "NAME.json"))
	}
	version := spec.DocumentVersion(string(text))
	changes := evolve.Changes(set, c, string(text))
	keys, err := keyTexts(set, c, was, string(text))
	if err != nil {
		return exitHarness, err
	}

	// What rests on each changed or removed requirement gets a mark.
	marks := map[string]*spec.ReviewMark{}
	var todo []string
	for _, ch := range changes {
		switch ch.Kind {
		case evolve.Added:
			todo = append(todo, fmt.Sprintf("+ %s: new in the document; add it to the catalog with its level, summary and cases", ch.ID))
			continue
		case evolve.Removed:
			todo = append(todo, fmt.Sprintf("- %s: gone from the document; remove it from the catalog (or mark it derived) and from its cases", ch.ID))
		case evolve.Moved:
			continue
		}
		kt, ok := keys[ch.Spec+":"+ch.ID]
		if !ok {
			kt = changedText(ch)
		}
		for _, name := range (evolve.Sources{Corpus: d.corpus, Specs: set}).Affected(ch.Spec, ch.ID, kt).All() {
			ref := ch.ID // as the case names it
			if caseSpec, _, _ := strings.Cut(name, "/"); caseSpec != ch.Spec {
				ref = ch.Spec + ":" + ch.ID
			}
			m := marks[name]
			if m == nil {
				m = &spec.ReviewMark{Case: name, Version: version, Document: c.Document}
				marks[name] = m
			}
			m.IDs = append(m.IDs, ref)
		}
	}

	plan, err := planAnchors(set, c, anchor.Parse(string(text)), nil, stdout)
	if err != nil {
		return exitHarness, err
	}
	code := exitOK
	if plan.failed {
		code = exitFailed
	}
	catalogDir := df.specPath("catalog")
	if err := writeAnchors(set, catalogDir, plan.updates, stdout); err != nil {
		return exitHarness, err
	}
	if version != c.Version {
		file := df.specPath("catalog", c.Spec+".json")
		orig, err := os.ReadFile(file)
		if err != nil {
			return exitHarness, fmt.Errorf("spec update: %w (run it from the repository root or pass --spec-dir)", err)
		}
		out, err := spec.RewriteVersion(orig, version)
		if err != nil {
			return exitHarness, err
		}
		if err := os.WriteFile(file, out, 0o644); err != nil {
			return exitHarness, err
		}
		fmt.Fprintf(stdout, "%s: version %q -> %q\n", file, c.Version, version)
	}

	names := make([]string, 0, len(marks))
	for n := range marks {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) > 0 {
		for _, n := range names {
			d.review.Mark(*marks[n])
			fmt.Fprintf(stdout, "review   %s: %s\n", n, marks[n].Label())
		}
		file := df.specPath(spec.ReviewFile)
		if err := os.WriteFile(file, d.review.Format(), 0o644); err != nil {
			return exitHarness, fmt.Errorf("spec update: %w (run it from the repository root or pass --spec-dir)", err)
		}
		fmt.Fprintf(stdout, "wrote %s: %d cases to review (they still run; reports list them until `forge-conform spec review --clear CASE`)\n", file, len(names))
	}
	for _, t := range todo {
		fmt.Fprintf(stdout, "by hand  %s\n", t)
	}
	if len(todo) > 0 {
		code = exitFailed
	}
	fmt.Fprintf(stdout, "spec update: catalog %s now at %s; %d anchors updated, %d cases to review, %d changes left to do by hand\n",
		c.Spec, versionName(version), plan.n, len(names), len(todo))
	return code, nil
}

func versionName(v string) string {
	if v == "" {
		return "an unversioned document"
	}
	return "v" + v
}

// cmdSpecReview lists the review marks, or clears some or all of them.
func cmdSpecReview(args []string, stdout io.Writer) (int, error) {
	fs := newFlagSet("spec review")
	var df dataFlags
	var clear multi
	var all bool
	fs.Var(&clear, "clear", "clear the mark of this case, spec/name (repeatable)")
	fs.BoolVar(&all, "all", false, "clear every mark")
	df.register(fs)
	if err := parse(fs, args); err != nil {
		return exitHarness, err
	}
	if err := df.check(); err != nil {
		return exitHarness, err
	}
	rv, err := df.loadReviewFile()
	if err != nil {
		return exitHarness, err
	}
	if len(clear) == 0 && !all {
		for _, m := range rv.Marks {
			fmt.Fprintf(stdout, "%s: %s\n", m.Case, m.Label())
		}
		fmt.Fprintf(stdout, "%d cases to review\n", len(rv.Marks))
		return exitOK, nil
	}
	if all {
		clear = nil
		for _, m := range rv.Marks {
			clear = append(clear, m.Case)
		}
	}
	if unmarked := rv.Clear(clear...); len(unmarked) > 0 {
		return exitHarness, usageError{fmt.Sprintf("spec review --clear: %s: no such mark (`forge-conform spec review` lists them)", strings.Join(unmarked, ", "))}
	}
	file := df.specPath(spec.ReviewFile)
	if err := os.WriteFile(file, rv.Format(), 0o644); err != nil {
		return exitHarness, fmt.Errorf("spec review: %w (run it from the repository root or pass --spec-dir)", err)
	}
	for _, c := range clear {
		fmt.Fprintf(stdout, "cleared  %s\n", c)
	}
	fmt.Fprintf(stdout, "%d cases to review\n", len(rv.Marks))
	return exitOK, nil
}

// affectedCases lists, by full name, the cases whose goldens `golden
// update --affected` regenerates: those marked for review, those resting
// on an ID whose sentence one of srds changed or removed, and those
// without a golden file in goldenDir (new cases); with globs,
// only those --run selects too. It prints each with why.
func affectedCases(d *data, goldenDir string, srds, globs []string, stdout io.Writer) ([]string, error) {
	why := map[string][]string{}
	for _, c := range d.corpus.Cases {
		if _, err := os.Stat(filepath.Join(goldenDir, c.Spec, c.Name+".golden")); err != nil {
			why[c.FullName()] = append(why[c.FullName()], "no golden yet")
		}
	}
	for _, m := range d.review.Marks {
		why[m.Case] = append(why[m.Case], m.Label())
	}
	for _, p := range srds {
		text, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("--srd: %w", err)
		}
		c := d.specs.ForDocument(p, string(text))
		if c == nil {
			return nil, fmt.Errorf("--srd %s: no catalog covers this document", p)
		}
		for _, ch := range evolve.Changes(d.specs, c, string(text)) {
			if ch.Kind == evolve.Added || ch.Kind == evolve.Moved {
				continue
			}
			for _, n := range (evolve.Sources{Corpus: d.corpus, Specs: d.specs}).Affected(ch.Spec, ch.ID, changedText(ch)).All() {
				why[n] = append(why[n], fmt.Sprintf("%s %s in %s", ch.ID, ch.Kind, p))
			}
		}
	}
	sel := &runner.Selector{Run: globs}
	var out []string
	for _, c := range d.corpus.Cases {
		n := c.FullName()
		if why[n] == nil || !sel.Match(c) {
			continue
		}
		out = append(out, n)
		fmt.Fprintf(stdout, "affected %s: %s\n", n, strings.Join(why[n], "; "))
	}
	for _, m := range d.review.Marks {
		if d.corpus.Find(m.Case) == nil {
			fmt.Fprintf(stdout, "affected %s: no such case (a stale review mark: `forge-conform spec review --clear %s`)\n", m.Case, m.Case)
		}
	}
	return out, nil
}

// keyText is the text whose configuration keys a changed sentence is
// about: its changed words when they name one (`max_entries=200` ->
// `max_entries=100` is about max_entries alone), else the whole sentence.
func keyText(sd evolve.SentenceDiff) string {
	if t := evolve.ChangedText(sd.Ops); strings.Contains(t, "`") {
		return t
	}
	return sd.Old + " " + sd.New
}

// keyTexts maps "spec:ID" to the text whose configuration keys a change
// is about (keyText), from the word diff of the old revision was (if
// given) and text; without was, nil.
func keyTexts(set *spec.Set, c *spec.Catalog, was, text string) (map[string]string, error) {
	if was == "" {
		return nil, nil
	}
	old, err := os.ReadFile(was)
	if err != nil {
		return nil, fmt.Errorf("--was: %w", err)
	}
	out := map[string]string{}
	for _, sd := range evolve.Diff(set, c, string(old), text) {
		out[sd.Spec+":"+sd.ID] = keyText(sd)
	}
	return out, nil
}
