//go:build unix

// Command gen-fixtures materializes the embedded fixtures (fixtures/*.fixture)
// on disk, for looking at them or for running an implementation by hand:
//
//	go run ./scripts/gen-fixtures -out DIR [-chown UID:GID] [NAME...]
//	go run ./scripts/gen-fixtures -list [NAME...]
//
// Each fixture NAME (all of them when none is named) goes to DIR/NAME/root and
// DIR/NAME/outside. A DIR/NAME left by an earlier run (holding only root and
// outside) is replaced; anything else there is an error. -list prints each
// fixture's name with its entry and fault counts. Bad usage or an unknown
// fixture exits 2, a failure to materialize exits 1.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/fixtures"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage: go run ./scripts/gen-fixtures -out DIR [-chown UID:GID] [NAME...]
       go run ./scripts/gen-fixtures -list [NAME...]
`

// run is the whole command; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("gen-fixtures", flag.ContinueOnError)
	fl.SetOutput(stderr)
	out := fl.String("out", "", "materialize into `DIR`/NAME/{root,outside}")
	list := fl.Bool("list", false, "print fixture names with entry and fault counts instead")
	chown := fl.String("chown", "", "lchown every created entry to `UID:GID` (needs root)")
	fl.Usage = func() {
		fmt.Fprint(stderr, usage)
		fl.PrintDefaults()
	}
	// Flags may come before, between or after fixture names.
	var names []string
	for {
		if err := fl.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return 2
		}
		if fl.NArg() == 0 {
			break
		}
		names = append(names, fl.Arg(0))
		args = fl.Args()[1:]
	}

	all, err := fixture.LoadFS(fixtures.FS)
	if err != nil {
		fmt.Fprintf(stderr, "gen-fixtures: bad fixture files (fix fixtures/*.fixture):\n%v\n", err)
		return 1
	}
	known := make([]string, 0, len(all))
	for n := range all {
		known = append(known, n)
	}
	sort.Strings(known)
	if len(names) == 0 {
		names = known
	}
	for _, n := range names {
		if all[n] == nil {
			fmt.Fprintf(stderr, "gen-fixtures: unknown fixture %q (known: %s)\n", n, strings.Join(known, " "))
			return 2
		}
	}

	if *list {
		for _, n := range names {
			f := all[n]
			fmt.Fprintf(stdout, "%-16s %5d entries %3d faults\n", n, len(f.Entries), len(f.Faults))
		}
		return 0
	}
	if *out == "" {
		fmt.Fprintf(stderr, "gen-fixtures: -out DIR is required (or -list)\n%s", usage)
		return 2
	}
	var opts fixture.Options
	if *chown != "" {
		o, err := parseOwner(*chown)
		if err != nil {
			fmt.Fprintf(stderr, "gen-fixtures: -chown %q: %v\n", *chown, err)
			return 2
		}
		opts.Chown = &o
	}
	for _, n := range names {
		l, err := materialize(all[n], filepath.Join(*out, n), opts)
		if err != nil {
			fmt.Fprintf(stderr, "gen-fixtures: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "%s: %d entries in %s\n", n, len(all[n].Entries), l.Base)
	}
	return 0
}

// parseOwner parses UID:GID.
func parseOwner(s string) (fixture.Owner, error) {
	u, g, ok := strings.Cut(s, ":")
	uid, err1 := strconv.Atoi(u)
	gid, err2 := strconv.Atoi(g)
	if !ok || err1 != nil || err2 != nil || uid < 0 || gid < 0 {
		return fixture.Owner{}, errors.New("want numeric UID:GID, e.g. 65534:65534")
	}
	return fixture.Owner{UID: uid, GID: gid}, nil
}

// materialize writes f to dir, replacing an earlier gen-fixtures output.
func materialize(f *fixture.Fixture, dir string, opts fixture.Options) (fixture.Layout, error) {
	des, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return fixture.Layout{}, fmt.Errorf("%s: %w", dir, err)
	default:
		for _, de := range des {
			if n := de.Name(); n != "root" && n != "outside" {
				return fixture.Layout{}, fmt.Errorf("%s exists and holds %q, so it is not an earlier gen-fixtures output: remove it or use another -out", dir, n)
			}
		}
		if err := fixture.RemoveAll(dir); err != nil {
			return fixture.Layout{}, fmt.Errorf("remove earlier output: %w", err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fixture.Layout{}, err
	}
	return f.Materialize(dir, opts)
}
