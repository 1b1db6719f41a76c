package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary stand in for forge-conform and for the fake
// FCP/1 implementations: testscript puts a copy of it on the scripts' PATH
// under each command's name.
func TestMain(m *testing.M) {
	cmds := map[string]func(){
		"forge-conform": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	}
	for name, impl := range fakeImpls {
		cmds[name] = impl.main
	}
	testscript.Main(m, cmds)
}

// TestScripts runs the CLI scenarios in testdata/script.
//
// Scripts see $SEEDS, the directory of the upstream spec documents, when the
// repository is checked out next to it (../../../shared/seeds); the
// condition [seeds] says whether it is there.
func TestScripts(t *testing.T) {
	seeds, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "seeds"))
	if err != nil {
		t.Fatal(err)
	}
	haveSeeds := false
	if st, err := os.Stat(seeds); err == nil && st.IsDir() {
		haveSeeds = true
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			if haveSeeds {
				env.Setenv("SEEDS", seeds)
			}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "seeds":
				return haveSeeds, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode":      cmdExitCode,
			"no-sleep-left": cmdNoSleepLeft,
		},
	})
}

// cmdExitCode runs a program and checks its exact exit status, which `exec`
// and `! exec` cannot tell apart beyond zero and non-zero:
//
//	exitcode N PROG [ARGS...]
//
// stdout and stderr are kept for the stdout/stderr commands that follow.
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: exitcode N PROG [ARGS...] (no negation: name the code you expect)")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exitcode N PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: bad exit status %q: %v", args[0], err)
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: running %s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}
