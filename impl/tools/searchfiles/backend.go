package searchfiles

import (
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// checkBackend is CFG-SF-03 at call time. Only the native backend exists
// in this reference so far; the rg and ugrep backends (a version check at
// startup, then the search run by the binary and mapped onto the same
// output) are the next step of issue 3. Until then a call configured for
// them fails loudly instead of silently searching with the native engine.
func checkBackend(backend string) error {
	if backend == backendNative {
		return nil
	}
	return toolerr.Failed(Name,
		"backend %q is not implemented in the forge-conform reference yet (only \"native\" is); set [tools.search_files] backend = \"native\"",
		backend)
}
