package scratch

import "golang.org/x/sys/unix"

// tmpfsFree reports the bytes available to an unprivileged user on dir's
// filesystem, and whether that filesystem is a tmpfs.
func tmpfsFree(dir string) (uint64, bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil || st.Type != unix.TMPFS_MAGIC {
		return 0, false
	}
	return st.Bavail * uint64(st.Bsize), true
}
