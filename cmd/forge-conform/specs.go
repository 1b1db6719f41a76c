package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/forge-conform/forge-conform/spec"
	"github.com/forge-conform/forge-conform/spec/anchor"
	"github.com/forge-conform/forge-conform/spec/evolve"
)

func cmdSpec(args []string, stdout io.Writer) (int, error) {
	if len(args) > 0 {
		switch args[0] {
		case "check":
			return cmdSpecCheck(args[1:], stdout)
		case "anchor":
			return cmdSpecAnchor(args[1:], stdout)
		case "sentences":
			return cmdSpecSentences(args[1:], stdout)
		case "diff":
			return cmdSpecDiff(args[1:], stdout)
		case "update":
			return cmdSpecUpdate(args[1:], stdout)
		case "review":
			return cmdSpecReview(args[1:], stdout)
		}
	}
	return exitHarness, usageError{"spec: want `spec check --srd FILE`, `spec diff OLD.md NEW.md`, `spec update --srd FILE`, `spec review [--clear CASE|--all]`, `spec anchor --srd FILE` or `spec sentences --srd FILE`"}
}

func cmdSpecCheck(args []string, stdout io.Writer) (int, error) {
	fs := newFlagSet("spec check")
	var srds multi
	var df dataFlags
	fs.Var(&srds, "srd", "SRD file (repeatable)")
	df.register(fs)
	if err := parse(fs, args); err != nil {
		return exitHarness, err
	}
	if len(srds) == 0 {
		return exitHarness, usageError{"spec check: name at least one --srd FILE"}
	}
	d, err := df.load()
	if err != nil {
		return exitHarness, err
	}
	set := d.specs
	code := exitOK
	for _, path := range srds {
		text, err := os.ReadFile(path)
		if err != nil {
			return exitHarness, fmt.Errorf("--srd: %w", err)
		}
		c := set.ForDocument(path, string(text))
		if c == nil {
			ids := spec.ExtractIDs(string(text))
			fmt.Fprintf(stdout, "%s: no catalog covers this document (%d requirement IDs found); add spec/catalog/NAME.json\n", path, len(ids))
			code = exitFailed
			continue
		}
		changes := evolve.Changes(set, c, string(text))
		versions := versionNote(c, string(text))
		if len(changes) == 0 {
			fmt.Fprintf(stdout, "%s: catalog %s matches (%d requirements%s)\n", path, c.Spec, len(c.Requirements), versions)
			continue
		}
		code = exitFailed
		fmt.Fprintf(stdout, "%s: catalog %s differs%s\n", path, c.Spec, strings.Replace(versions, ", ", " (", 1)+closeParen(versions))
		printChanges(stdout, changes, d.sources(&df), df.goldenPath())
	}
	return code, nil
}

// versionNote is ", catalog v1.0, document v1.1" (or ", v1.1" when they
// agree; "" when neither states one).
func versionNote(c *spec.Catalog, text string) string {
	v := func(s string) string {
		if s == "" {
			return "unversioned"
		}
		return "v" + s
	}
	doc := spec.DocumentVersion(text)
	switch {
	case doc == c.Version && doc == "":
		return ""
	case doc == c.Version:
		return ", " + v(doc)
	}
	return fmt.Sprintf(", catalog %s, document %s", v(c.Version), v(doc))
}

func closeParen(note string) string {
	if note == "" {
		return ""
	}
	return ")"
}

func printAnchorProblem(w io.Writer, p spec.AnchorProblem) {
	a := p.Anchor
	switch p.Status {
	case anchor.Changed:
		fmt.Fprintf(w, "  ! %s  changed: its sentence in %s reads differently (fingerprint %s, catalog has %s); re-read it (`forge-conform spec diff OLD NEW`), update the requirement, then `forge-conform spec update --srd FILE`\n",
			p.ID, a, p.Fingerprint, a.Fingerprint)
		fmt.Fprintf(w, "      now: %s\n", p.Text)
	default:
		fmt.Fprintf(w, "  ! %s  not found: %s (%s); find its sentence again and re-anchor it (`forge-conform spec sentences`, `spec anchor --set`)\n",
			p.ID, a, p.Reason)
	}
}

// cmdSpecAnchor fills and refreshes the anchors of the catalog of an SRD:
// srd IDs by the block that defines them, derived IDs from --set or from
// their current anchors (fingerprints refreshed).
func cmdSpecAnchor(args []string, stdout io.Writer) (int, error) {
	fs := newFlagSet("spec anchor")
	var srdPath, dir string
	var sets multi
	var write bool
	fs.StringVar(&srdPath, "srd", "", "SRD file")
	var df dataFlags
	fs.StringVar(&dir, "catalog-dir", "", "catalog directory to --write (default spec/catalog, or the --spec-dir's)")
	fs.Var(&sets, "set", "ID=SECTION:N[-M][,SECTION:N...] anchors a derived ID by hand (repeatable)")
	fs.BoolVar(&write, "write", false, "write the catalog file")
	df.register(fs)
	if err := parse(fs, args); err != nil {
		return exitHarness, err
	}
	if dir == "" {
		dir = df.specPath("catalog")
	}
	if srdPath == "" {
		return exitHarness, usageError{"spec anchor: name the --srd FILE"}
	}
	text, err := os.ReadFile(srdPath)
	if err != nil {
		return exitHarness, fmt.Errorf("--srd: %w", err)
	}
	set, err := df.loadSpecs()
	if err != nil {
		return exitHarness, err
	}
	c := set.ForDocument(srdPath, string(text))
	if c == nil {
		return exitHarness, fmt.Errorf("spec anchor: no catalog covers %s; add spec/catalog/NAME.json first", srdPath)
	}
	doc := anchor.Parse(string(text))
	hand := map[string][]anchor.Anchor{}
	for _, s := range sets {
		id, as, err := parseSet(doc, c.Document, s)
		if err != nil {
			return exitHarness, err
		}
		hand[id] = as
	}
	plan, err := planAnchors(set, c, doc, hand, stdout)
	if err != nil {
		return exitHarness, err
	}
	code := exitOK
	if plan.failed {
		code = exitFailed
	}
	fmt.Fprintf(stdout, "%s: catalog %s, %d requirements' anchors to update\n", srdPath, c.Spec, plan.n)
	if !write || plan.n == 0 {
		return code, nil
	}
	if err := writeAnchors(set, dir, plan.updates, stdout); err != nil {
		return exitHarness, err
	}
	return code, nil
}

// anchorPlan is what anchoring a document changes: the new anchors by
// catalog and ID, how many requirements change, and whether some could
// not be anchored.
type anchorPlan struct {
	updates map[string]map[string][]anchor.Anchor
	n       int
	failed  bool
}

// planAnchors computes the anchors of every catalog's requirements into
// c's document doc (hand: anchors set with --set), printing a line per
// requirement that changes or needs a hand.
func planAnchors(set *spec.Set, c *spec.Catalog, doc *anchor.Doc, hand map[string][]anchor.Anchor, stdout io.Writer) (anchorPlan, error) {
	var ids []string
	for _, r := range c.Requirements {
		ids = append(ids, r.ID)
	}
	proposed := doc.Propose(c.Document, ids)
	plan := anchorPlan{updates: map[string]map[string][]anchor.Anchor{}}
	left := map[string]bool{}
	for id := range hand {
		left[id] = true
	}
	for _, name := range set.Names() {
		k := set.Catalogs[name]
		for _, r := range k.Requirements {
			next, note, failed := nextAnchors(doc, c, k, r, hand[r.ID], proposed)
			delete(left, r.ID)
			plan.failed = plan.failed || failed
			if !sameAnchors(r.Anchors, next) {
				if plan.updates[name] == nil {
					plan.updates[name] = map[string][]anchor.Anchor{}
				}
				plan.updates[name][r.ID] = next
				plan.n++
				if note == "" {
					note = "updated"
				}
			}
			if note != "" {
				fmt.Fprintf(stdout, "%s: %s\n", r.ID, note)
			}
		}
	}
	for id := range left {
		return plan, usageError{fmt.Sprintf("spec anchor: --set %s: no catalog has that ID", id)}
	}
	return plan, nil
}

// writeAnchors rewrites the catalog files of dir with the planned anchors.
func writeAnchors(set *spec.Set, dir string, updates map[string]map[string][]anchor.Anchor, stdout io.Writer) error {
	for _, name := range set.Names() {
		if updates[name] == nil {
			continue
		}
		file := filepath.Join(dir, name+".json")
		orig, err := os.ReadFile(file)
		if err != nil {
			return fmt.Errorf("writing anchors: %w (run it from the repository root or pass --catalog-dir/--spec-dir)", err)
		}
		out, err := spec.RewriteAnchors(orig, updates[name])
		if err != nil {
			return err
		}
		if err := os.WriteFile(file, out, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", file)
	}
	return nil
}

// nextAnchors computes requirement r's anchors (r of catalog k) after
// anchoring the document of catalog c: a hand-set list replaces r's anchors
// into it; an srd ID of c gets its proposed anchor; other anchors into it
// get their fingerprints refreshed. Anchors into other documents stay.
func nextAnchors(doc *anchor.Doc, c, k *spec.Catalog, r spec.Requirement, hand []anchor.Anchor, proposed map[string]anchor.Anchor) (next []anchor.Anchor, note string, failed bool) {
	var mine []anchor.Anchor
	for _, a := range r.Anchors {
		if a.Document == c.Document {
			mine = append(mine, a)
		} else {
			next = append(next, a)
		}
	}
	switch {
	case hand != nil:
		return append(next, hand...), "set by hand", false
	case k == c && r.Origin == "srd":
		if a, ok := proposed[r.ID]; ok {
			return append(next, a), "", false
		}
		return append(next, mine...), "not defined in the document: anchor it by hand with --set", true
	case k == c && len(r.Anchors) == 0:
		return nil, "derived, no anchor yet: read the SRD (`spec sentences`) and --set it", true
	}
	for _, a := range mine {
		res := doc.Resolve(r.ID, a)
		if res.Status != anchor.OK {
			if moved, ok := doc.Relocate(a, a.Fingerprint); ok {
				note = "sentence moved unchanged to " + moved.String()
				next = append(next, moved)
				continue
			}
		}
		switch res.Status {
		case anchor.NotFound:
			note, failed = res.Reason+": --set it again", true
		case anchor.Changed:
			note = "sentence changed, fingerprint refreshed; check the requirement still rests on: " + res.Text
			a.Fingerprint = res.Fingerprint
		}
		next = append(next, a)
	}
	return next, note, failed
}

// parseSet reads ID=SECTION:N[-M][,SECTION:N[-M]...].
func parseSet(doc *anchor.Doc, document, s string) (string, []anchor.Anchor, error) {
	id, list, ok := strings.Cut(s, "=")
	if !ok || id == "" || list == "" {
		return "", nil, usageError{fmt.Sprintf("spec anchor: --set %q: want ID=SECTION:N[-M][,SECTION:N...]", s)}
	}
	var out []anchor.Anchor
	for _, one := range strings.Split(list, ",") {
		sec, rng, ok := strings.Cut(one, ":")
		from, to, ranged := strings.Cut(rng, "-")
		first, err1 := strconv.Atoi(from)
		last, err2 := first, error(nil)
		if ranged {
			last, err2 = strconv.Atoi(to)
		}
		if !ok || err1 != nil || err2 != nil {
			return "", nil, usageError{fmt.Sprintf("spec anchor: --set %s: %q is not SECTION:N or SECTION:N-M", id, one)}
		}
		a, err := doc.At(document, sec, first, last)
		if err != nil {
			return "", nil, fmt.Errorf("spec anchor: --set %s: %w (list the sentences with `forge-conform spec sentences`)", id, err)
		}
		out = append(out, a)
	}
	return id, out, nil
}

func sameAnchors(a, b []anchor.Anchor) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// cmdSpecSentences prints an SRD's sections and numbered sentences, with
// the catalog IDs anchored on each, for anchoring by hand.
func cmdSpecSentences(args []string, stdout io.Writer) (int, error) {
	fs := newFlagSet("spec sentences")
	var srdPath, section string
	fs.StringVar(&srdPath, "srd", "", "SRD file")
	fs.StringVar(&section, "section", "", "only this section")
	var df dataFlags
	df.register(fs)
	if err := parse(fs, args); err != nil {
		return exitHarness, err
	}
	if srdPath == "" {
		return exitHarness, usageError{"spec sentences: name the --srd FILE"}
	}
	text, err := os.ReadFile(srdPath)
	if err != nil {
		return exitHarness, fmt.Errorf("--srd: %w", err)
	}
	set, err := df.loadSpecs()
	if err != nil {
		return exitHarness, err
	}
	doc := anchor.Parse(string(text))
	on := map[string][]string{} // "section:n" -> IDs
	if c := set.ForDocument(srdPath, string(text)); c != nil {
		for _, r := range c.Requirements {
			for _, a := range r.Anchors {
				if a.Document != c.Document {
					continue
				}
				last := max(a.Through, a.Sentence)
				if a.By == anchor.ByID {
					last = a.Sentence
				}
				for n := a.Sentence; n <= last; n++ {
					k := a.Section + ":" + strconv.Itoa(n)
					on[k] = append(on[k], r.ID)
				}
			}
		}
	}
	for _, s := range doc.Sections {
		if section != "" && s.Key != section {
			continue
		}
		fmt.Fprintf(stdout, "§%s\n", s.Key)
		for n, t := range s.Sentences {
			ids := on[s.Key+":"+strconv.Itoa(n)]
			sort.Strings(ids)
			tag := ""
			if len(ids) > 0 {
				tag = "  [" + strings.Join(ids, " ") + "]"
			}
			fmt.Fprintf(stdout, "  %3d %-9s %s%s\n", n, s.Blocks[t.Block].Kind, t.Text, tag)
		}
	}
	return exitOK, nil
}
