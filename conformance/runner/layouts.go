package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/conformance/leftover"
)

// Layouts holds materialized fixtures that cases only read, so that
// several runs (the reference and each of the suite's mutants) materialize
// each fixture once. A fixture is materialized on first use, once per
// owner it is chowned to. The zero value is not usable; call NewLayouts.
// It is safe for concurrent use.
type Layouts struct {
	base string
	mu   sync.Mutex
	m    map[string]*layoutOnce
}

type layoutOnce struct {
	once   sync.Once
	layout fixture.Layout
	err    error
}

// NewLayouts creates the directory the fixtures go to, under tempDir
// (when empty, where a run puts its own: see Options.TempDir). Close
// removes it.
func NewLayouts(tempDir string) (*Layouts, error) {
	tempDir, _ = fixtureDir(tempDir)
	base, err := os.MkdirTemp(tempDir, leftover.Name("layouts"))
	if err != nil {
		return nil, fmt.Errorf("creating the fixture dir: %w (set TMPDIR to a writable directory)", err)
	}
	if err := os.Chmod(base, 0o755); err != nil {
		_ = os.RemoveAll(base)
		return nil, err
	}
	return &Layouts{base: base}, nil
}

// Close removes every fixture; runs using them must be over.
func (l *Layouts) Close() {
	if l.base != "" {
		_ = fixture.RemoveAll(l.base)
		l.base = ""
	}
}

// get materializes fx (chowned to owner, when set) once and returns it.
func (l *Layouts) get(fx *fixture.Fixture, owner *fixture.Owner) (fixture.Layout, error) {
	key := fx.Name
	if owner != nil {
		key = fmt.Sprintf("%s@%d-%d", fx.Name, owner.UID, owner.GID)
	}
	l.mu.Lock()
	if l.m == nil {
		l.m = map[string]*layoutOnce{}
	}
	lo, ok := l.m[key]
	if !ok {
		lo = &layoutOnce{}
		l.m[key] = lo
	}
	l.mu.Unlock()
	lo.once.Do(func() {
		dir := filepath.Join(l.base, key)
		if lo.err = os.Mkdir(dir, 0o755); lo.err != nil {
			return
		}
		lo.layout, lo.err = fx.Materialize(dir, fixture.Options{Chown: owner})
	})
	return lo.layout, lo.err
}
