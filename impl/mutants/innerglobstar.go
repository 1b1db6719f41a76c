package mutants

import (
	"strings"

	"github.com/forge-conform/forge-conform/impl/sandbox"
)

// innerGlobstarMutants break the denied patterns of FR-VAL-03/04 (and
// list_directory's FR-LD-VAL-07) for a ** between two components, which
// every glob dialect I-SBX-03 allows reads as zero or more directories.
func innerGlobstarMutants() []Mutant {
	return []Mutant{
		{
			Name: "inner-globstar-never-matches", Doc: "a configured denied pattern with ** between two components (**/src/**/util) matches nothing",
			Specs: []string{"list_directory"}, Run: []string{"list_directory/denied-*"},
			Breaks:  ids("list_directory", "T-LD-03"),
			Options: wrap(onTools(sandboxTools(), withSandbox(dropInnerGlobstar, nil))),
		},
	}
}

// dropInnerGlobstar removes the configured denied patterns that hold
// "/**/", as if they had never been given.
func dropInnerGlobstar(cfg *sandbox.Config) {
	kept := cfg.DeniedPatterns[:0:0]
	for _, p := range cfg.DeniedPatterns {
		if !strings.Contains(p, "/**/") {
			kept = append(kept, p)
		}
	}
	cfg.DeniedPatterns = kept
}
