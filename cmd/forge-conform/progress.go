package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/forge-conform/forge-conform/conformance/runner"
)

// progress draws a run's progress on one line of a terminal: cases done of
// the selected total, failures and errors so far. Redraws are at most
// every progressEvery, and the last one always.
type progress struct {
	w     io.Writer
	every time.Duration
	last  time.Time
	drawn bool
}

const progressEvery = 100 * time.Millisecond

// newProgress returns a progress line on w when w is a terminal, nil
// otherwise (a pipe or file gets nothing).
func newProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return &progress{w: w, every: progressEvery}
}

// update redraws the line; it is called from one goroutine at a time.
func (p *progress) update(pr runner.Progress) {
	now := time.Now()
	if pr.Done < pr.Total && now.Sub(p.last) < p.every {
		return
	}
	p.last = now
	fmt.Fprintf(p.w, "\r\033[K%d/%d cases", pr.Done, pr.Total)
	if pr.Failed+pr.Errored > 0 {
		fmt.Fprintf(p.w, ", %d failed, %d errored so far", pr.Failed, pr.Errored)
	}
	p.drawn = true
}

// clear erases the line before the report.
func (p *progress) clear() {
	if p != nil && p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}
