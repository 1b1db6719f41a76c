// Package refopts builds the reference's options from the choices a
// command line makes of it, the same way for every binary that serves or
// shows the reference (forge-conform's run and ref, forge-tui): a mutant
// (impl/mutants, the suite's self-test), policies (implementation-defined
// behaviour the reference declares) and readings (impl/readings, what the
// SRD allows where it leaves room).
package refopts

import (
	"fmt"
	"strings"

	"github.com/forge-conform/forge-conform/impl/mutants"
	"github.com/forge-conform/forge-conform/impl/readings"
	"github.com/forge-conform/forge-conform/impl/reference"
)

// Choices are the command line's choices of the reference; the zero value
// is the reference itself.
type Choices struct {
	// Mutant names a deliberately broken reference, "" for none.
	Mutant string
	// Policies are KEY=VALUE flags (--policy).
	Policies []string
	// Readings are INTERPRETATION=NAME flags (--reading).
	Readings []string
}

// Build returns the options of the reference (or of the mutant) with the
// policies and readings chosen. Its errors name the flag to fix.
func Build(c Choices) (reference.Options, error) {
	var opts reference.Options
	if c.Mutant != "" {
		m, ok := mutants.Lookup(c.Mutant)
		if !ok {
			return opts, fmt.Errorf("unknown mutant %q (want one of %s)", c.Mutant, strings.Join(mutants.Names(), ", "))
		}
		opts = m.Options
	}
	pol, err := Policies(c.Policies)
	if err != nil {
		return opts, err
	}
	opts.Policies = pol
	if err := readings.ApplyKeys(&opts, c.Readings); err != nil {
		return opts, fmt.Errorf("--reading: %w", err)
	}
	return opts, nil
}

// Policies reads --policy KEY=VALUE flags; none gives nil (the
// reference's defaults).
func Policies(kvs []string) (map[string]string, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, kv := range kvs {
		k, v, err := reference.ParsePolicy(kv)
		if err != nil {
			return nil, fmt.Errorf("--policy: %w", err)
		}
		out[k] = v
	}
	return out, nil
}
