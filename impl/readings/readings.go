// Package readings names the readings of the SRDs that the reference can
// take where the text leaves room: for each interpretation of class
// allowed, declared or conflict in spec/INTERPRETATIONS.md, every reading
// the text allows besides the reference's default is a Reading here, with
// the reference options that realize it.
//
// This is the fidelity rule made to hold by construction: the suite
// asserts only what the SRD states, so the reference must pass the whole
// corpus under every reading listed (impl/readings' test runs it), just as
// every mutant (impl/mutants) must fail. A reading is a real choice of the
// reference, reachable from the command line (`forge-conform --reading
// I-AP-02=canonical`, `forge-ref --reading ...`), never a test switch.
//
// INTERPRETATIONS.md lists the readings of each interpretation on its
// "Readings:" line; the test requires that line and this table to agree.
package readings

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/impl/tool"
)

// Reading is one reading the SRD text allows, as a choice of the
// reference.
type Reading struct {
	// Interp is the interpretation it reads ("I-AP-02").
	Interp string
	// Name is the reading's name on its interpretation's Readings line.
	Name string
	// Doc says what the reference does under it.
	Doc string
	// Specs are the catalogs whose cases must all pass under it.
	Specs []string
	// Forge marks the readings Forge's own code takes (observed running
	// it, or read from it): impl/forgelike takes all of them.
	Forge bool
	// Apply sets the reference options that realize the reading.
	Apply func(*reference.Options)
}

// Key is "I-AP-02=canonical", as the command line names a reading.
func (r Reading) Key() string { return r.Interp + "=" + r.Name }

// All returns every reading, sorted by key.
func All() []Reading {
	rs := slices.Concat(executorReadings(), fileReadings(), searchReadings())
	sort.Slice(rs, func(i, j int) bool { return rs[i].Key() < rs[j].Key() })
	return rs
}

// Forge returns the readings Forge's own code takes.
func Forge() []Reading {
	var out []Reading
	for _, r := range All() {
		if r.Forge {
			out = append(out, r)
		}
	}
	return out
}

// Lookup finds the reading named by key ("I-AP-02=canonical").
func Lookup(key string) (Reading, error) {
	interp, name, ok := strings.Cut(key, "=")
	if !ok {
		return Reading{}, fmt.Errorf("reading %q: want INTERPRETATION=NAME, e.g. I-EXE-12=keep-cr (`forge-conform readings` lists them)", key)
	}
	var names []string
	for _, r := range All() {
		if r.Interp == interp {
			if r.Name == name {
				return r, nil
			}
			names = append(names, r.Name)
		}
	}
	if len(names) == 0 {
		return Reading{}, fmt.Errorf("reading %q: %s has no reading the reference can take besides its default (`forge-conform readings` lists them)", key, interp)
	}
	return Reading{}, fmt.Errorf("reading %q: %s has no reading %q (want one of %s)", key, interp, name, strings.Join(names, ", "))
}

// Apply realizes rs in opts and records their keys in opts.Readings. Two
// readings of one interpretation exclude each other.
func Apply(opts *reference.Options, rs ...Reading) error {
	seen := map[string]string{}
	for _, r := range rs {
		if prev, ok := seen[r.Interp]; ok {
			return fmt.Errorf("readings %s=%s and %s exclude each other: take one reading of %s", r.Interp, prev, r.Key(), r.Interp)
		}
		seen[r.Interp] = r.Name
	}
	for _, r := range rs {
		r.Apply(opts)
		opts.Readings = append(opts.Readings, r.Key())
	}
	return nil
}

// ApplyKeys looks up every key and applies the readings.
func ApplyKeys(opts *reference.Options, keys []string) error {
	rs := make([]Reading, 0, len(keys))
	for _, k := range keys {
		r, err := Lookup(k)
		if err != nil {
			return err
		}
		rs = append(rs, r)
	}
	return Apply(opts, rs...)
}

// wrapAlso adds w to the tool wrappers of opts, after those already set.
func wrapAlso(opts *reference.Options, w func(tool.Tool) tool.Tool) {
	prev := opts.WrapTool
	if prev == nil {
		opts.WrapTool = w
		return
	}
	opts.WrapTool = func(t tool.Tool) tool.Tool { return w(prev(t)) }
}
