package reference

import (
	"os/exec"
	"strings"
	"testing"
)

// execAllowed are the packages that may start processes: search_files runs
// its external backends, rg and ugrep (CFG-SF-01/03, I-SF-15, I-SF-20),
// with os/exec, giving the children no network-related input.
// run_command (FR-TOOL-CMD-01) runs the user's own shell command, which it
// is: denylisted by default and always behind the user's approval.
var execAllowed = map[string]bool{
	"github.com/forge-conform/forge-conform/impl/tools/searchfiles": true,
	"github.com/forge-conform/forge-conform/impl/tools/runcommand":  true,
	// forgelike (test-only, not the reference) runs run_command's shell
	// command as Forge does.
	"github.com/forge-conform/forge-conform/impl/forgelike": true,
	// impl/mutants, the deliberately broken references (no package of the
	// reference imports it, checked below): env-unsanitized-on-bad-pattern
	// runs run_command's shell command itself, with the environment
	// unsanitized.
	"github.com/forge-conform/forge-conform/impl/mutants": true,
	// tooltest is imported by _test.go files only (checked below): its
	// benchmarks ask `go env GOROOT` for a corpus and run rg and find beside
	// the tools to compare.
	"github.com/forge-conform/forge-conform/impl/internal/tooltest": true,
}

// networkAllowed are the packages that may import net: impl/mutants, whose
// phone-home-listing mutant sends a datagram on purpose, so that the
// runner's network observation (C-04, C-05, I-EXE-31) is shown to see it.
// No package of the reference imports impl/mutants (checked below).
var networkAllowed = map[string]bool{
	"github.com/forge-conform/forge-conform/impl/mutants": true,
}

// testOnly are the execAllowed packages that no non-test package may import.
var testOnly = map[string]bool{
	"github.com/forge-conform/forge-conform/impl/internal/tooltest": true,
}

// TestNoNetworkImports backs constraint C-05 of LIST_DIRECTORY_SRD.md ("no
// network access"), which FCP/1 cannot observe: no package of the reference
// implementation imports a network package, and none but the packages of
// execAllowed imports os/exec (a child process is a way around the ban).
// (Libraries it links, afero and modernc's SQLite, carry network-capable
// code paths the reference never takes; the registry refuses schemas with
// references. net/url, a string parser, is allowed.)
func TestNoNetworkImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "github.com/forge-conform/forge-conform/impl/...").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		for _, imp := range fields[1:] {
			if (imp == "net" || strings.HasPrefix(imp, "net/") && imp != "net/url") && !networkAllowed[fields[0]] || imp == "crypto/tls" ||
				imp == "os/exec" && !execAllowed[fields[0]] {
				t.Errorf("%s imports %s: the reference must make no network access (C-05)", fields[0], imp)
			}
			if networkAllowed[imp] {
				t.Errorf("%s imports %s, which may make network attempts on purpose (a mutant): no package under impl/ may import it", fields[0], imp)
			}
			if testOnly[imp] {
				t.Errorf("%s imports %s, a test-only helper that may start processes: import it from _test.go files only", fields[0], imp)
			}
		}
	}
}
