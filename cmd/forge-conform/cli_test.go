package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/forge-conform/forge-conform/conformance/fusefault"
	"github.com/forge-conform/forge-conform/internal/scratch"
	"github.com/forge-conform/forge-conform/internal/srddir"
)

// TestMain lets the test binary stand in for forge-conform and for the fake
// FCP/1 implementations: testscript puts a copy of it on the scripts' PATH
// under each command's name, and forge-tui, built, beside them (withTUI).
func TestMain(m *testing.M) {
	cmds := map[string]func(){
		"forge-conform": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	}
	for name, impl := range fakeImpls {
		cmds[name] = impl.main
	}
	if cmds[filepath.Base(os.Args[0])] == nil {
		defaultParallel(scriptParallel)
	}
	// The scripts and the suite runs they start keep their files on tmpfs
	// where they can (internal/scratch).
	testscript.Main(scratch.Wrap(withTUI{m}), cmds)
}

// withTUI builds forge-tui (cmd/forge-tui) beside the forge-conform that
// testscript put on PATH, for `forge-conform ref --tui`, before running the
// tests.
type withTUI struct{ m *testing.M }

func (w withTUI) Run() int {
	fc, err := exec.LookPath("forge-conform")
	if err != nil {
		fmt.Fprintf(os.Stderr, "forge-conform is not on PATH: %v\n", err)
		return 1
	}
	build := exec.Command("go", "build", "-o", filepath.Join(filepath.Dir(fc), "forge-tui"), "../forge-tui")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "building forge-tui beside forge-conform: %v\n", err)
		return 1
	}
	return w.m.Run()
}

// scriptParallel is the default of -test.parallel: the scripts wait on
// timeouts, hung fakes and child processes more than they compute, so
// twice the two cores keeps them busy. An explicit -parallel wins.
const scriptParallel = 4

// defaultParallel sets -test.parallel to n unless the command line sets
// it or GOMAXPROCS is already higher. Only for the test binary's own run,
// not when it stands in for a command (whose arguments are not flags of
// the test).
func defaultParallel(n int) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if set || runtime.GOMAXPROCS(0) >= n {
		return
	}
	_ = flag.Set("test.parallel", strconv.Itoa(n))
}

// TestScripts runs the CLI scenarios in testdata/script.
//
// Scripts see $REPO, the repository root (to compare with committed files),
// and $SEEDS, the directory of the SRDs, when $FORGE_CONFORM_SRD_DIR names
// it (package internal/srddir); the condition [seeds] says whether it does,
// [root] whether the tests run as root, [fuse] whether FUSE mounts work
// (fault cases for --binary).
func TestScripts(t *testing.T) {
	t.Parallel() // beside TestIDScripts
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	seeds, noSeeds := srddir.Lookup()
	haveSeeds := seeds != ""
	if !haveSeeds {
		t.Logf("the [seeds] steps are skipped: %s", noSeeds)
	}
	// [fuse]: the runner can inject faults for external implementations.
	haveFUSE := fusefault.Probe(t.TempDir()) == nil
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			// As root, the runner checks the built-in reference as an
			// unprivileged user would see the fixtures, and --run-as
			// runs binaries as one: that user must be able to reach
			// $TMPDIR ($WORK/.tmp), but testscript makes the directory
			// above $WORK with mode 0700.
			if err := os.Chmod(filepath.Dir(env.WorkDir), 0o755); err != nil {
				return err
			}
			env.Setenv("REPO", repo)
			if haveSeeds {
				env.Setenv("SEEDS", seeds)
			}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "seeds":
				return haveSeeds, nil
			case "root":
				return os.Geteuid() == 0, nil
			case "fuse":
				return haveFUSE, nil
			case "ramfs":
				// Without TMPDIR the runner's fixtures go to /dev/shm.
				_, ok := scratch.RAM(256 << 20)
				return ok, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode":      cmdExitCode,
			"report-case":   cmdReportCase,
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

// cmdReportCase checks one case's verdict in a JSON report (--report-json),
// read through the report's documented field names:
//
//	report-case FILE CASE STATUS [MESSAGE-REGEXP]
func cmdReportCase(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 || len(args) > 4 {
		ts.Fatalf("usage: report-case FILE CASE STATUS [MESSAGE-REGEXP]")
	}
	var rep struct {
		Cases []struct {
			Name    string `json:"name"`
			Status  string `json:"status"`
			Message string `json:"message"`
		} `json:"cases"`
	}
	if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &rep); err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
	for _, c := range rep.Cases {
		if c.Name != args[1] {
			continue
		}
		if c.Status != args[2] {
			ts.Fatalf("%s: case %s is %s, want %s (message: %s)", args[0], c.Name, c.Status, args[2], c.Message)
		}
		if len(args) == 4 {
			re, err := regexp.Compile(args[3])
			if err != nil {
				ts.Fatalf("report-case: %v", err)
			}
			if !re.MatchString(c.Message) {
				ts.Fatalf("%s: case %s message %q does not match %q", args[0], c.Name, c.Message, args[3])
			}
		}
		return
	}
	ts.Fatalf("%s: no case %s", args[0], args[1])
}
