// Package suite loads the embedded suite as one value: the corpus
// (conformance/cases), the requirement catalogs (spec), the fixtures
// (fixtures/) and the goldens (golden/), and builds the runner options
// over them. Every program and test that runs the whole suite starts here.
package suite

import (
	"fmt"

	"github.com/forge-conform/forge-conform/conformance/cases"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/fixtures"
	"github.com/forge-conform/forge-conform/golden"
	"github.com/forge-conform/forge-conform/spec"
)

// Data is the embedded suite.
type Data struct {
	Corpus   *corpus.Corpus
	Specs    *spec.Set
	Fixtures map[string]*fixture.Fixture
}

// Load reads the embedded corpus, catalogs and fixtures.
func Load() (*Data, error) {
	c, err := corpus.Load(cases.FS)
	if err != nil {
		return nil, fmt.Errorf("loading the corpus: %w", err)
	}
	s, err := spec.Load()
	if err != nil {
		return nil, fmt.Errorf("loading the catalogs: %w", err)
	}
	fx, err := fixture.LoadFS(fixtures.FS)
	if err != nil {
		return nil, fmt.Errorf("loading the fixtures: %w", err)
	}
	return &Data{Corpus: c, Specs: s, Fixtures: fx}, nil
}

// Options are runner options over the suite and its goldens; the caller
// adds the target, the selection and the rest.
func (d *Data) Options() runner.Options {
	return runner.Options{Corpus: d.Corpus, Specs: d.Specs, Fixtures: d.Fixtures, Golden: golden.FS}
}
