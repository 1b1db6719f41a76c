package runner

import (
	"os"

	"github.com/forge-conform/forge-conform/internal/scratch"
)

// minRAMFree is the room a RAM filesystem must have left for the runner to
// put its fixtures there by default: a full run of the corpus peaks at
// about 10 MiB, and a container's default /dev/shm (64 MiB) is passed over
// for the disk.
const minRAMFree = 256 << 20

// fixtureDir chooses the directory the run's fixtures go under, and says
// why there: Options.TempDir when set; else a RAM filesystem (/dev/shm)
// when TMPDIR is unset and one is writable with room to spare (creating a
// file there costs a tenth of what it costs on disk, and call-op cases are
// mostly that); else os.TempDir(). A TMPDIR the user set is always kept.
func fixtureDir(opt string) (dir, why string) {
	if opt != "" {
		return opt, "set by the caller"
	}
	if _, set := os.LookupEnv("TMPDIR"); set {
		return os.TempDir(), "TMPDIR"
	}
	if dir, ok := scratch.RAMDir(minRAMFree); ok {
		return dir, "tmpfs, as TMPDIR is unset; set TMPDIR to choose"
	}
	return os.TempDir(), "TMPDIR is unset and no RAM filesystem is writable with room to spare"
}

// sweepDirs are the directories Sweep looks in for what crashed runs left:
// dir, and the RAM filesystem a run without TMPDIR puts its fixtures in,
// whether or not this run does.
func sweepDirs(dir string) []string {
	dirs := []string{dir}
	if ram, ok := scratch.RAM(0); ok && ram != dir {
		dirs = append(dirs, ram)
	}
	return dirs
}
