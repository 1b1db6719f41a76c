package main

import (
	"context"
	"encoding/json"
	"errors"
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
	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/impl/tui/program"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// refTUI runs one turn of the reference in the reference TUI (impl/tui),
// for a person to watch, approve and cancel by hand. The turn is the turn
// case caseName of the corpus, on a fresh copy of its fixture, or a turn
// request (PROTOCOL.md §9.1) read from turnFile; its working directory is
// workdir when given, else the fixture's root or the request's
// ctx.working_dir when absolute, else a fresh temporary directory. The
// fcp_* test tools are registered. The temp dirs are removed on every
// exit, a stop signal's included (SIGHUP, SIGINT, SIGTERM: run exits
// 128+signal); after a SIGKILL the next runner sweeps them (package leftover).
func refTUI(ctx context.Context, opts reference.Options, caseName, turnFile, workdir string, stdin io.Reader, stdout io.Writer) (int, error) {
	var req fcp.TurnRequest
	switch {
	case caseName != "" && turnFile != "":
		return exitHarness, usageError{"ref --tui: give --case or --turn, not both"}
	case caseName != "":
		c, fx, err := turnCase(caseName)
		if err != nil {
			return exitHarness, err
		}
		dir, err := os.MkdirTemp("", leftover.Name("tui"))
		if err != nil {
			return exitHarness, fmt.Errorf("ref --tui: creating the fixture's directory: %w", err)
		}
		defer fixture.RemoveAll(dir)
		layout, err := fx.Materialize(dir, fixture.Options{})
		if err != nil {
			return exitHarness, fmt.Errorf("ref --tui: materializing fixture %q of %s: %w", fx.Name, c.FullName(), err)
		}
		if req, err = runner.TurnRequestFor(c, layout, nil); err != nil {
			return exitHarness, fmt.Errorf("ref --tui: %s: %w", c.FullName(), err)
		}
		if workdir == "" {
			workdir = layout.Root
		}
	case turnFile == "":
		return exitHarness, usageError{"ref --tui needs --case NAME (a turn case of the corpus: forge-conform list) or --turn FILE (a turn request, PROTOCOL.md §9.1)"}
	default:
		data, err := os.ReadFile(turnFile)
		if err != nil {
			return exitHarness, fmt.Errorf("ref --tui: reading the turn request: %w", err)
		}
		if err := json.Unmarshal(data, &req); err != nil {
			return exitHarness, fmt.Errorf("ref --tui: %s is not a turn request (PROTOCOL.md §9.1): %w", turnFile, err)
		}
	}
	if req.Ctx == nil {
		req.Ctx = &fcp.Ctx{}
	}
	switch {
	case workdir != "":
		abs, err := filepath.Abs(workdir)
		if err != nil {
			return exitHarness, fmt.Errorf("ref --tui: --workdir: %w", err)
		}
		req.Ctx.WorkingDir = abs
	case !filepath.IsAbs(req.Ctx.WorkingDir):
		dir, err := os.MkdirTemp("", leftover.Name("tui"))
		if err != nil {
			return exitHarness, fmt.Errorf("ref --tui: creating a working directory: %w", err)
		}
		defer os.RemoveAll(dir)
		req.Ctx.WorkingDir = dir
	}
	ref, err := reference.New(opts)
	if err != nil {
		return exitHarness, err
	}
	ref.HelloFor(fcp.Request{Op: fcp.OpHello, TestTools: true})
	if req.Seq == 0 {
		req.Seq = 1
	}
	// A stop signal (the terminal hangs up, ctrl+c outside raw mode, kill)
	// cancels ctx (withStopSignals): the program ends, the turn is
	// cancelled, the temp dirs are removed, and run exits 128+signal.
	popts := []tea.ProgramOption{tea.WithAltScreen(), tea.WithContext(ctx), tea.WithoutSignalHandler()}
	if f, ok := stdin.(*os.File); ok {
		popts = append(popts, tea.WithInput(f))
	}
	popts = append(popts, tea.WithOutput(stdout))
	out, err := program.Run(ctx, func(ctx context.Context, ui executor.UI) (executor.Outcome, error) {
		return ref.Turn(ctx, req, ui)
	}, program.Options{Seq: req.Seq, ProgramOptions: popts})
	var sb stoppedBy
	if errors.As(context.Cause(ctx), &sb) {
		return exitHarness, sb
	}
	if err != nil {
		return exitHarness, err
	}
	fmt.Fprintf(stdout, "turn ended: %s (%d messages in history; working directory %s)\n", out.End, len(out.History), req.Ctx.WorkingDir)
	return exitOK, nil
}

// turnCase finds the turn case called name ("spec/name", or a name one
// spec alone has) and its fixture.
func turnCase(name string) (*corpus.Case, *fixture.Fixture, error) {
	d, err := loadData()
	if err != nil {
		return nil, nil, err
	}
	var found []*corpus.Case
	var turns []string
	for _, c := range d.corpus.Cases {
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
		return nil, nil, usageError{fmt.Sprintf("ref --tui: no turn case %q; the turn cases are: %s", name, strings.Join(turns, ", "))}
	case len(found) > 1:
		return nil, nil, usageError{fmt.Sprintf("ref --tui: %q names %d cases: give spec/name", name, len(found))}
	}
	fx, ok := d.fixtures[found[0].Fixture]
	if !ok {
		return nil, nil, fmt.Errorf("ref --tui: %s names fixture %q, which does not exist in fixtures/", found[0].FullName(), found[0].Fixture)
	}
	return found[0], fx, nil
}
