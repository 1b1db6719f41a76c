// Package leftover names what a run puts on the machine while it lasts
// (temporary directories, FUSE mounts, cgroups, marked processes) after the
// process that owns it, and tells whether that owner is dead, so that the
// next run can sweep what a crashed one left (a runner killed with SIGKILL
// runs no cleanup) without ever touching what a live one owns.
//
// A name is forge-conform-KIND@PID.START.NS: the owner's pid, its start
// time in clock ticks since boot (so a reused pid is not mistaken for the
// owner) and the inode of its pid namespace (an owner in another namespace
// is never judged dead). Add a suffix after a "-" (os.MkdirTemp's random
// part). Names without the owner (older runs) are never swept.
package leftover

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
)

// Owner is the process a leftover belongs to.
type Owner struct {
	Pid int
	// Start is the process's start time in clock ticks since boot; 0 where
	// the system does not say.
	Start uint64
	// NS is the inode of its pid namespace; 0 where the system does not
	// say.
	NS uint64
}

// String is the owner part of a name: PID.START.NS.
func (o Owner) String() string { return fmt.Sprintf("%d.%d.%d", o.Pid, o.Start, o.NS) }

// Name is the name of a leftover of kind owned by this process, ending in
// "-": a prefix for os.MkdirTemp. kind is lower case letters.
func Name(kind string) string { return "forge-conform-" + kind + "@" + Self().String() + "-" }

var nameRE = regexp.MustCompile(`^forge-conform-([a-z]+)@([0-9]+)\.([0-9]+)\.([0-9]+)(?:-|$)`)

// Parse reads the kind and the owner from a name made by Name (with or
// without a suffix); ok is false for any other name.
func Parse(name string) (kind string, o Owner, ok bool) {
	m := nameRE.FindStringSubmatch(name)
	if m == nil {
		return "", Owner{}, false
	}
	pid, err1 := strconv.Atoi(m[2])
	start, err2 := strconv.ParseUint(m[3], 10, 64)
	ns, err3 := strconv.ParseUint(m[4], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || pid <= 0 {
		return "", Owner{}, false
	}
	return m[1], Owner{Pid: pid, Start: start, NS: ns}, true
}

// Stale lists the entries of dir named by Name whose owner is dead, as
// paths: what a crashed run left there. A dir that cannot be read has none.
func Stale(dir string) []string {
	if dir == "" {
		dir = os.TempDir()
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if _, o, ok := Parse(e.Name()); ok && o.Dead() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}
