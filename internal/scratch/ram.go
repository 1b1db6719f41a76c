package scratch

import (
	"os"

	"golang.org/x/sys/unix"
)

// shm is where Linux mounts its shared-memory tmpfs.
const shm = "/dev/shm"

// RAMDir returns a RAM filesystem to put temporary files in, /dev/shm,
// when the user has not set TMPDIR (a TMPDIR the user set, even empty, is
// always kept) and RAM(minFree) has one. Otherwise it reports false: use
// os.TempDir(). Files put there must be removed, as from any temp dir:
// they hold memory until then.
func RAMDir(minFree uint64) (string, bool) {
	if _, set := os.LookupEnv("TMPDIR"); set {
		return "", false
	}
	return RAM(minFree)
}

// RAM returns /dev/shm when it is a tmpfs this process can write and
// search with at least minFree bytes available to it (a container's
// default /dev/shm has only 64 MiB), whatever TMPDIR says.
func RAM(minFree uint64) (string, bool) {
	free, ok := tmpfsFree(shm)
	if !ok || free < minFree {
		return "", false
	}
	if unix.Access(shm, unix.W_OK|unix.X_OK) != nil {
		return "", false
	}
	return shm, true
}
