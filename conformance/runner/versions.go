package runner

import (
	"fmt"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/spec"
)

// Version is the SRD version a run checked for one spec.
type Version struct {
	Spec string `json:"spec"`
	// Catalog is the version the catalog is anchored to ("" when the
	// document states none).
	Catalog string `json:"catalog"`
	// Declared is the version the implementation stated in hello
	// (srd_versions); "" when it stated none (the catalog's is assumed).
	Declared string `json:"declared,omitempty"`
}

// versions lists the catalogs' versions with what hello declared, by spec.
func (r *Runner) versions() []Version {
	var out []Version
	for _, n := range r.opts.Specs.Names() {
		out = append(out, Version{Spec: n, Catalog: r.opts.Specs.Catalogs[n].Version, Declared: r.hello.SRDVersions[n]})
	}
	return out
}

// versionSkip says why a case is skipped for the SRD version the
// implementation implements: the case is "since" a later version than
// hello's srd_versions states for its spec ("" to run it). The way
// toml-test selects a TOML version: an implementation of an earlier
// revision is not failed for what only a later one requires.
func (r *Runner) versionSkip(c *corpus.Case) string {
	if c.Since == "" {
		return ""
	}
	declared, ok := r.hello.SRDVersions[c.Spec]
	if !ok {
		return ""
	}
	cmp, err := spec.CompareVersions(declared, c.Since)
	if err != nil {
		return fmt.Sprintf("hello's srd_versions.%s: %v", c.Spec, err)
	}
	if cmp < 0 {
		return fmt.Sprintf("needs %s SRD v%s (since); the implementation implements v%s (hello srd_versions)", c.Spec, c.Since, declared)
	}
	return ""
}
