package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/forge-conform/forge-conform/internal/stopsig"
)

// tuiName is the command that shows a turn in the reference TUI
// (cmd/forge-tui). It is a binary of its own because Bubble Tea queries
// the terminal when its package initializes (OSC 11, CSI 6n): linked
// into forge-conform, it would do so before every command.
const tuiName = "forge-tui"

// refTUI runs `forge-tui` with args (the flags of `ref --tui` but --tui),
// the one beside forge-conform's own executable or else the one on PATH,
// with stdin, stdout and stderr passed through. The stop signals
// (SIGHUP, SIGINT, SIGTERM) are forwarded to it, which then cancels its
// turn, removes its temp dirs and exits 128+signal. refTUI returns
// forge-tui's exit status (128+signal when a signal killed it).
func refTUI(args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	bin, err := findTUI()
	if err != nil {
		return exitHarness, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	// Every stop signal, not only the first (stopsig.With takes one), goes
	// to forge-tui.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, stopsig.Signals...)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return exitHarness, fmt.Errorf("ref --tui: starting %s: %w", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var waitErr error
	var stopped os.Signal // the first stop signal forwarded
wait:
	for {
		select {
		case s := <-sigs:
			if stopped == nil {
				stopped = s
			}
			_ = cmd.Process.Signal(s)
		case waitErr = <-exited:
			break wait
		}
	}
	code := exitOK
	var ee *exec.ExitError
	switch {
	case errors.As(waitErr, &ee):
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
	case waitErr != nil:
		return exitHarness, fmt.Errorf("ref --tui: %s: %w", bin, waitErr)
	}
	if sig, ok := stopped.(syscall.Signal); ok {
		fmt.Fprintf(stderr, "forge-conform: %v\n", stopsig.StoppedBy{Sig: sig})
	}
	return code, nil
}

// findTUI finds forge-tui: beside forge-conform's executable, else on
// PATH.
func findTUI() (string, error) {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), tuiName)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath(tuiName); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("ref --tui runs %s, the reference TUI, which is neither beside %s nor on PATH: build it with `go install ./cmd/forge-tui` (or `go build -o DIR/forge-tui ./cmd/forge-tui`, DIR being forge-conform's directory)", tuiName, executableName())
}

// executableName is forge-conform's executable, for messages.
func executableName() string {
	if exe, err := os.Executable(); err == nil {
		return exe
	}
	return "forge-conform"
}
