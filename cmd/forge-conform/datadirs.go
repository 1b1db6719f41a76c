package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/forge-conform/forge-conform/conformance/cases"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/fixtures"
	"github.com/forge-conform/forge-conform/golden"
	"github.com/forge-conform/forge-conform/spec"
	"github.com/forge-conform/forge-conform/spec/evolve"
)

// dataFlags name directories that replace the embedded catalogs, corpus
// and goldens: a copy of the repository's spec/, conformance/cases/ and
// golden/ (a draft catalog for a revised SRD, a scenario's own small
// suite). Unset, the embedded ones are read; the commands that write (spec
// update, spec review, golden update) write the repository's files, or
// these directories when set.
type dataFlags struct {
	specDir, casesDir, goldenDir string
}

func (f *dataFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.specDir, "spec-dir", "", "directory laid out like spec/ (catalog/*.json, INTERPRETATIONS.md, review.jsonl) to use instead of the embedded one")
	fs.StringVar(&f.casesDir, "cases-dir", "", "directory laid out like conformance/cases/ (SPEC/*.json) to use instead of the embedded corpus")
	fs.StringVar(&f.goldenDir, "golden-dir", "", "directory laid out like golden/ (SPEC/CASE.golden) to use instead of the embedded goldens")
}

// specFS is spec/ (catalogs, INTERPRETATIONS.md, review marks).
func (f *dataFlags) specFS() fs.FS {
	if f.specDir != "" {
		return os.DirFS(f.specDir)
	}
	return spec.Files
}

// specPath is where a file of spec/ is written: under --spec-dir, else
// the repository's spec/ (run from the repository root).
func (f *dataFlags) specPath(elem ...string) string {
	dir := f.specDir
	if dir == "" {
		dir = "spec"
	}
	return filepath.Join(append([]string{dir}, elem...)...)
}

func (f *dataFlags) goldenFS() fs.FS {
	if f.goldenDir != "" {
		return os.DirFS(f.goldenDir)
	}
	return golden.FS
}

func (f *dataFlags) check() error {
	for _, d := range []struct{ flag, dir string }{{"--spec-dir", f.specDir}, {"--cases-dir", f.casesDir}, {"--golden-dir", f.goldenDir}} {
		if d.dir == "" {
			continue
		}
		if st, err := os.Stat(d.dir); err != nil || !st.IsDir() {
			return usageError{fmt.Sprintf("%s %s: not a directory", d.flag, d.dir)}
		}
	}
	return nil
}

// loadSpecs reads the catalogs and interpretations.
func (f *dataFlags) loadSpecs() (*spec.Set, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	s, err := spec.LoadFS(f.specFS())
	if err != nil {
		return nil, fmt.Errorf("loading catalogs: %w", err)
	}
	if len(s.Catalogs) == 0 {
		return nil, fmt.Errorf("loading catalogs: %s has no catalog/*.json", f.specDir)
	}
	return s, nil
}

// loadReview reads the review marks (none when the file is absent).
func (f *dataFlags) loadReview() (*spec.Review, error) {
	if f.specDir == "" {
		return spec.EmbeddedReview()
	}
	raw, err := os.ReadFile(f.specPath(spec.ReviewFile))
	if errors.Is(err, fs.ErrNotExist) {
		return &spec.Review{}, nil
	}
	if err != nil {
		return nil, err
	}
	return spec.ParseReview(raw)
}

// loadReviewFile reads the review marks a writing command updates: the
// file it writes (spec/review.jsonl from the repository root, or under
// --spec-dir) when it exists, so a binary built before the last `spec
// update` or `spec review --clear` works on the marks as they are now.
func (f *dataFlags) loadReviewFile() (*spec.Review, error) {
	raw, err := os.ReadFile(f.specPath(spec.ReviewFile))
	switch {
	case err == nil:
		return spec.ParseReview(raw)
	case errors.Is(err, fs.ErrNotExist):
		return f.loadReview()
	}
	return nil, err
}

// interpretations is INTERPRETATIONS.md (nil when absent).
func (f *dataFlags) interpretations() []byte {
	md, _ := fs.ReadFile(f.specFS(), "INTERPRETATIONS.md")
	return md
}

// load reads the corpus, catalogs, fixtures, goldens and review marks.
func (f *dataFlags) load() (*data, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	var casesFS fs.FS = cases.FS
	if f.casesDir != "" {
		casesFS = os.DirFS(f.casesDir)
	}
	var c *corpus.Corpus
	var err error
	if f.casesDir != "" {
		c, err = corpus.Load(casesFS) // not ours: validate against the schema
	} else {
		c, err = corpus.LoadTrusted(casesFS)
	}
	if err != nil {
		return nil, fmt.Errorf("loading cases: %w", err)
	}
	s, err := f.loadSpecs()
	if err != nil {
		return nil, err
	}
	fx, err := fixture.LoadFS(fixtures.FS)
	if err != nil {
		return nil, fmt.Errorf("loading fixtures: %w", err)
	}
	rv, err := f.loadReview()
	if err != nil {
		return nil, fmt.Errorf("loading review marks: %w", err)
	}
	return &data{corpus: c, specs: s, fixtures: fx, goldens: f.goldenFS(), review: rv}, nil
}

// goldenPath is the golden directory as reports name it.
func (f *dataFlags) goldenPath() string {
	if f.goldenDir != "" {
		return f.goldenDir
	}
	return "golden"
}

// sources are the data a requirement's impact is looked up in.
func (d *data) sources(f *dataFlags) evolve.Sources {
	return evolve.Sources{Corpus: d.corpus, Specs: d.specs, Goldens: d.goldens, Interpretations: f.interpretations()}
}
