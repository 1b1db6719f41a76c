package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/conformance/fusefault"
)

// A fixture's faults reach the implementation one of two ways: a target
// whose Caps.Faults is set injects them itself (the reference in-process,
// through afero); for any other target the runner serves the materialized
// fixture through a FUSE mount that injects them (package fusefault) and
// hands the implementation paths inside the mount. Without a usable FUSE
// the cases are skipped with the reason.

// injectsFaults reports whether the runner must inject fx's faults itself.
func (r *Runner) injectsFaults(fx *fixture.Fixture) bool {
	return fx != nil && len(fx.Faults) > 0 && !r.caps.Faults
}

// fuseUnusable says why the runner cannot mount fixtures through FUSE, or
// "". It tries once per run, with a real mount of an empty directory, and
// notes the outcome for the report.
func (r *Runner) fuseUnusable() string {
	r.fuseOnce.Do(func() {
		err := fusefault.Probe(r.base)
		r.mu.Lock()
		defer r.mu.Unlock()
		if err != nil {
			r.fuseErr = err.Error()
			r.notes = append(r.notes, "fault cases skipped: FUSE is not usable here ("+r.fuseErr+")")
			return
		}
		r.notes = append(r.notes, "faults are injected through a FUSE mount of the fixture (fusefault)")
	})
	return r.fuseErr
}

// mountFaults serves the fixture materialized at l through FUSE with fx's
// faults and returns the layout the implementation sees (the same tree,
// under the mount point l.Base+".mnt"). Unmount the mount when done.
func mountFaults(fx *fixture.Fixture, l fixture.Layout) (fixture.Layout, *fusefault.Mount, error) {
	inMount := func(p string) string { return strings.TrimPrefix(strings.TrimPrefix(p, l.Base), "/") }
	faults := make([]fusefault.Fault, 0, len(fx.Faults))
	for _, f := range fx.Faults {
		errno := f.Errnum()
		if errno == 0 && !f.Slow() {
			return fixture.Layout{}, nil, fmt.Errorf("fixture %s line %d: unknown errno %q", fx.Name, f.Line, f.Errno)
		}
		faults = append(faults, fusefault.Fault{Op: f.Op, Path: inMount(l.Abs(f.Path)), Errno: errno, Nth: f.Nth, Delay: f.Delay})
	}
	mnt := l.Base + ".mnt"
	if err := os.Mkdir(mnt, 0o755); err != nil {
		return fixture.Layout{}, nil, err
	}
	m, err := fusefault.New(l.Base, mnt, faults)
	if err != nil {
		_ = os.Remove(mnt)
		return fixture.Layout{}, nil, err
	}
	view := fixture.Layout{
		Base:    mnt,
		Root:    filepath.Join(mnt, inMount(l.Root)),
		Outside: filepath.Join(mnt, inMount(l.Outside)),
	}
	return view, m, nil
}

// unmount unmounts m and removes its mount point.
func unmount(m *fusefault.Mount) {
	if m == nil {
		return
	}
	_ = m.Unmount()
	_ = os.Remove(m.Dir)
}
