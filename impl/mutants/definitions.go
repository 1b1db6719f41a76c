package mutants

import (
	"slices"

	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// definitionsMutants are a registry that answers its definitions in
// reverse order of name. The registry sorts what it is given, so no
// wrapper of a tool can reorder it: the definitions op's answer is
// rewritten (reference.Options.Definitions). It runs the definitions-*
// cases only: the other definition cases' goldens hold the order too and
// would charge FR-REG-03, their first ID, with it.
func definitionsMutants() []Mutant {
	return []Mutant{
		{
			Name: "definitions-unsorted", Doc: "the definitions op answers the registry's definitions in reverse order of name",
			Specs: []string{"tool_executor"}, Run: []string{"tool_executor/definitions-*"},
			Breaks:  ids("tool_executor", "NFR-MAIN-03"),
			Options: reference.Options{Definitions: reversed},
		},
	}
}

// reversed returns defs in reverse order.
func reversed(defs []fcp.Definition) []fcp.Definition {
	out := slices.Clone(defs)
	slices.Reverse(out)
	return out
}
