package runner

import (
	"fmt"
	"strings"

	"github.com/forge-conform/forge-conform/conformance/fcpclient"
	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/conformance/fusefault"
	"github.com/forge-conform/forge-conform/conformance/leftover"
)

// A runner killed with SIGKILL runs no cleanup: its implementations'
// cgroups and processes, its FUSE mounts and its temp dirs stay. Each is
// named after the runner that owns it (package leftover), and New sweeps
// those whose runner is dead before it starts.

// Sweep removes what crashed runners left: it kills their implementations'
// cgroups and marked processes (first, so that nothing holds a mount),
// unmounts their FUSE mounts, and removes their temp dirs in each of
// tempDirs (os.TempDir() for ""; none given: os.TempDir() alone),
// `forge-tui`'s included. A live runner's are never touched.
// It returns what it removed.
func Sweep(tempDirs ...string) []string {
	done := fcpclient.Sweep()
	mounts, err := fusefault.Sweep()
	for _, m := range mounts {
		done = append(done, "FUSE mount "+m)
	}
	if err != nil {
		done = append(done, "not unmounted: "+err.Error())
	}
	if len(tempDirs) == 0 {
		tempDirs = []string{""}
	}
	for _, tempDir := range tempDirs {
		for _, dir := range leftover.Stale(tempDir) {
			if fixture.RemoveAll(dir) == nil {
				done = append(done, "temp dir "+dir)
			}
		}
	}
	return done
}

// sweepNote is the report's note on what Sweep removed, or "".
func sweepNote(done []string) string {
	if len(done) == 0 {
		return ""
	}
	return fmt.Sprintf("removed what a crashed run left (%d): %s", len(done), strings.Join(done, "; "))
}
