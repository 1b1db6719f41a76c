// Command forge-tui runs one turn of the reference implementation in the
// reference TUI (impl/tui, Bubble Tea), for a person to watch, approve and
// cancel by hand:
//
//	forge-tui [--mutant NAME] [--policy K=V]... [--reading I=NAME]... (--case NAME | --turn FILE) [--workdir DIR]
//
// The turn is the turn case NAME of the corpus (spec/name, or a name one
// spec alone has), on a fresh copy of its fixture, or the turn request
// (spec/PROTOCOL.md §9.1) read from FILE. Its working directory is DIR
// when given, else the fixture's root or the request's ctx.working_dir
// when absolute, else a fresh temporary directory. The fcp_* test tools
// are registered. --mutant, --policy and --reading are those of
// `forge-conform ref`.
//
// The temp dirs are removed on every exit, a stop signal's included
// (SIGHUP, SIGINT, SIGTERM: forge-tui exits 128+signal); after a SIGKILL
// the next suite run sweeps them (package conformance/leftover).
//
// forge-tui is a binary of its own because Bubble Tea queries the
// terminal (its background colour, the cursor position) when its package
// initializes: forge-conform, which links none of it, runs `forge-tui`
// for `forge-conform ref --tui`.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/conformance/leftover"
	"github.com/forge-conform/forge-conform/conformance/runner"
	"github.com/forge-conform/forge-conform/conformance/suite"
	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/impl/tui/program"
	"github.com/forge-conform/forge-conform/internal/refopts"
	"github.com/forge-conform/forge-conform/internal/stopsig"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// Exit codes.
const (
	exitOK      = 0
	exitHarness = 2 // a bad command line or a turn that could not start
)

const usage = "usage: forge-tui [--mutant NAME] [--policy K=V]... [--reading I=NAME]... (--case NAME | --turn FILE) [--workdir DIR]\n"

// usageError is a mistake in the command line: exit 2 with usage help.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// multi is a repeatable string flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := stopsig.With(context.Background())
	defer stop()
	err := runTUI(ctx, args, stdin, stdout, stderr)
	var sb stopsig.StoppedBy
	var ue usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &sb):
		fmt.Fprintf(stderr, "forge-tui: %v\n", err)
		return sb.ExitCode()
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "forge-tui: %v\n%s", err, usage)
	default:
		fmt.Fprintf(stderr, "forge-tui: %v\n", err)
	}
	return exitHarness
}

func runTUI(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("forge-tui", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	name := fs.String("mutant", "", "run a deliberately broken reference (package impl/mutants)")
	var policies multi
	fs.Var(&policies, "policy", "declare and follow a policy, KEY=VALUE (repeatable)")
	var readingKeys multi
	fs.Var(&readingKeys, "reading", "take a reading the SRD allows, INTERPRETATION=NAME (repeatable)")
	turnFile := fs.String("turn", "", "a file holding a turn request (PROTOCOL.md §9.1)")
	caseName := fs.String("case", "", "a turn case of the corpus (forge-conform list)")
	workdir := fs.String("workdir", "", "the turn's working directory (default: the fixture's or the request's, else a temporary one)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	opts, err := refopts.Build(refopts.Choices{Mutant: *name, Policies: policies, Readings: readingKeys})
	if err != nil {
		return usageError{err.Error()}
	}
	return refTUI(ctx, opts, *caseName, *turnFile, *workdir, stdin, stdout)
}

// refTUI runs the turn (see the package doc) in the reference TUI. A stop
// signal cancels ctx: the program ends, the turn is cancelled, the temp
// dirs are removed, and refTUI returns the stopsig.StoppedBy.
func refTUI(ctx context.Context, opts reference.Options, caseName, turnFile, workdir string, stdin io.Reader, stdout io.Writer) error {
	var req fcp.TurnRequest
	switch {
	case caseName != "" && turnFile != "":
		return usageError{"give --case or --turn, not both"}
	case caseName != "":
		c, fx, err := turnCase(caseName)
		if err != nil {
			return err
		}
		dir, err := os.MkdirTemp("", leftover.Name("tui"))
		if err != nil {
			return fmt.Errorf("creating the fixture's directory: %w", err)
		}
		defer fixture.RemoveAll(dir)
		layout, err := fx.Materialize(dir, fixture.Options{})
		if err != nil {
			return fmt.Errorf("materializing fixture %q of %s: %w", fx.Name, c.FullName(), err)
		}
		if req, err = runner.TurnRequestFor(c, layout, nil); err != nil {
			return fmt.Errorf("%s: %w", c.FullName(), err)
		}
		if workdir == "" {
			workdir = layout.Root
		}
	case turnFile == "":
		return usageError{"give --case NAME (a turn case of the corpus: forge-conform list) or --turn FILE (a turn request, PROTOCOL.md §9.1)"}
	default:
		data, err := os.ReadFile(turnFile)
		if err != nil {
			return fmt.Errorf("reading the turn request: %w", err)
		}
		if err := json.Unmarshal(data, &req); err != nil {
			return fmt.Errorf("%s is not a turn request (PROTOCOL.md §9.1): %w", turnFile, err)
		}
	}
	if req.Ctx == nil {
		req.Ctx = &fcp.Ctx{}
	}
	switch {
	case workdir != "":
		abs, err := filepath.Abs(workdir)
		if err != nil {
			return fmt.Errorf("--workdir: %w", err)
		}
		req.Ctx.WorkingDir = abs
	case !filepath.IsAbs(req.Ctx.WorkingDir):
		dir, err := os.MkdirTemp("", leftover.Name("tui"))
		if err != nil {
			return fmt.Errorf("creating a working directory: %w", err)
		}
		defer os.RemoveAll(dir)
		req.Ctx.WorkingDir = dir
	}
	ref, err := reference.New(opts)
	if err != nil {
		return err
	}
	ref.HelloFor(fcp.Request{Op: fcp.OpHello, TestTools: true})
	if req.Seq == 0 {
		req.Seq = 1
	}
	// A stop signal (the terminal hangs up, ctrl+c outside raw mode, kill)
	// cancels ctx (stopsig.With), which ends the program.
	popts := []tea.ProgramOption{tea.WithAltScreen(), tea.WithContext(ctx), tea.WithoutSignalHandler()}
	if f, ok := stdin.(*os.File); ok {
		popts = append(popts, tea.WithInput(f))
	}
	popts = append(popts, tea.WithOutput(stdout))
	out, err := program.Run(ctx, func(ctx context.Context, ui executor.UI) (executor.Outcome, error) {
		return ref.Turn(ctx, req, ui)
	}, program.Options{Seq: req.Seq, ProgramOptions: popts})
	var sb stopsig.StoppedBy
	if errors.As(context.Cause(ctx), &sb) {
		return sb
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "turn ended: %s (%d messages in history; working directory %s)\n", out.End, len(out.History), req.Ctx.WorkingDir)
	return nil
}

// turnCase finds the turn case called name ("spec/name", or a name one
// spec alone has) and its fixture.
func turnCase(name string) (*corpus.Case, *fixture.Fixture, error) {
	d, err := suite.Load()
	if err != nil {
		return nil, nil, err
	}
	var found []*corpus.Case
	var turns []string
	for _, c := range d.Corpus.Cases {
		if c.Op != corpus.OpTurn {
			continue
		}
		turns = append(turns, c.FullName())
		if c.FullName() == name || c.Name == name {
			found = append(found, c)
		}
	}
	switch {
	case len(found) == 0:
		return nil, nil, usageError{fmt.Sprintf("no turn case %q; the turn cases are: %s", name, strings.Join(turns, ", "))}
	case len(found) > 1:
		return nil, nil, usageError{fmt.Sprintf("%q names %d cases: give spec/name", name, len(found))}
	}
	fx, ok := d.Fixtures[found[0].Fixture]
	if !ok {
		return nil, nil, fmt.Errorf("%s names fixture %q, which does not exist in fixtures/", found[0].FullName(), found[0].Fixture)
	}
	return found[0], fx, nil
}
