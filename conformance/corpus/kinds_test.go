package corpus_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/conformance/cases"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/internal/srddir"
	"github.com/forge-conform/forge-conform/spec"
	"github.com/forge-conform/forge-conform/spec/anchor"
)

// requiredKinds are the error kinds a case requires, each with where it
// requires it: its expectation, the alternatives of any_of, its before
// steps, and the results of a turn.
func requiredKinds(c *corpus.Case) map[string]string {
	out := map[string]string{}
	var walk func(e corpus.Expect, where string)
	walk = func(e corpus.Expect, where string) {
		if e.Error != nil && e.Error.Kind != "" {
			out[e.Error.Kind] = where
		}
		for i, alt := range e.AnyOf {
			walk(alt, fmt.Sprintf("%s.any_of[%d]", where, i))
		}
	}
	walk(c.Expect, "expect")
	for i, s := range c.Before {
		if s.ExpectError != "" {
			out[s.ExpectError] = fmt.Sprintf("before[%d]", i)
		}
	}
	return out
}

// sentences resolves the anchored sentences of every requirement against
// the SRDs in dir: "spec:ID" -> the texts.
func sentences(t *testing.T, dir string, set *spec.Set) map[string]string {
	t.Helper()
	docs := map[string]*anchor.Doc{}
	out := map[string]string{}
	for _, name := range set.Names() {
		for _, r := range set.Catalogs[name].Requirements {
			var texts []string
			for _, a := range r.Anchors {
				d, ok := docs[a.Document]
				if !ok {
					raw, err := os.ReadFile(filepath.Join(dir, a.Document))
					if err != nil {
						t.Fatalf("%s:%s is anchored in %s: %v", name, r.ID, a.Document, err)
					}
					d = anchor.Parse(string(raw))
					docs[a.Document] = d
				}
				res := d.Resolve(r.ID, a)
				if res.Status == anchor.NotFound {
					t.Fatalf("%s:%s: anchor %s: %s (run spec check)", name, r.ID, a, res.Reason)
				}
				texts = append(texts, res.Text)
			}
			out[name+":"+r.ID] = strings.Join(texts, " ")
		}
	}
	return out
}

// TestErrorKindsNamedByTheSRD is the kind guard of the rule in
// spec/INTERPRETATIONS.md: a case may require an error kind only where the
// SRD names that kind for the case's condition: where the anchored
// sentence of one of the case's IDs names it, or where a forced
// interpretation the case relies on names it in its class line (which says
// which sentences force it, e.g. I-SBX-07: the sandbox's rejections are
// SandboxViolation because that is the one kind carrying a DenialReason).
// Elsewhere the case accepts any error and may give the reference's kind
// as advice.
func TestErrorKindsNamedByTheSRD(t *testing.T) {
	dir := srddir.Require(t)
	set, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	c, err := corpus.Load(cases.FS)
	if err != nil {
		t.Fatal(err)
	}
	text := sentences(t, dir, set)
	classLines := forcedClassLines(t)
	n := 0
	for _, k := range c.Cases {
		kinds := requiredKinds(k)
		names := make([]string, 0, len(kinds))
		for kind := range kinds {
			names = append(names, kind)
		}
		sort.Strings(names)
		for _, kind := range names {
			n++
			named := false
			for _, id := range k.IDs {
				ref := corpus.ParseRef(k.Spec, id)
				if strings.Contains(text[ref.Spec+":"+ref.ID], kind) {
					named = true
					break
				}
			}
			for _, in := range k.Interpretations {
				if strings.Contains(classLines[in], kind) {
					named = true
				}
			}
			if !named {
				t.Errorf("%s (%s:%d): %s requires error kind %s, which the sentence of none of its IDs (%s) names: accept any error (\"error\": {\"advice\": {\"kind\": %q}}), or name the ID whose sentence (or the forced interpretation whose class line) gives this kind for this condition",
					k.FullName(), k.File, k.Line, kinds[kind], kind, strings.Join(k.IDs, " "), kind)
			}
		}
	}
	if n == 0 {
		t.Fatal("no case requires an error kind: the guard checks nothing")
	}
}

// forcedClassLines are the class lines of the forced interpretations, by
// number.
func forcedClassLines(t *testing.T) map[string]string {
	t.Helper()
	md, err := fs.ReadFile(spec.Files, "INTERPRETATIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	id := ""
	for _, line := range strings.Split(string(md), "\n") {
		if h, ok := strings.CutPrefix(line, "### "); ok {
			id, _, _ = strings.Cut(h, " ")
			continue
		}
		if id != "" && strings.HasPrefix(line, "Class: forced") {
			out[id] = line
			id = ""
		}
	}
	return out
}
