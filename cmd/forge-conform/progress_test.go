package main

import (
	"bytes"
	"os"
	"testing"

	"github.com/forge-conform/forge-conform/conformance/runner"
)

func TestProgress(t *testing.T) {
	var buf bytes.Buffer
	p := &progress{w: &buf} // every 0: each update draws
	p.update(runner.Progress{Done: 1, Total: 3})
	p.update(runner.Progress{Done: 2, Total: 3, Failed: 1})
	p.update(runner.Progress{Done: 3, Total: 3, Failed: 1, Errored: 1})
	p.clear()
	want := "\r\033[K1/3 cases" +
		"\r\033[K2/3 cases, 1 failed, 0 errored so far" +
		"\r\033[K3/3 cases, 1 failed, 1 errored so far" +
		"\r\033[K"
	if got := buf.String(); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}

	// Throttled: a redraw within the interval is dropped, the last one is not.
	buf.Reset()
	p = &progress{w: &buf, every: progressEvery}
	p.update(runner.Progress{Done: 1, Total: 3})
	p.update(runner.Progress{Done: 2, Total: 3})
	p.update(runner.Progress{Done: 3, Total: 3})
	if got, want := buf.String(), "\r\033[K1/3 cases\r\033[K3/3 cases"; got != want {
		t.Errorf("throttled: got %q, want %q", got, want)
	}
}

// Not a terminal: no progress at all.
func TestProgressNotATerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if p := newProgress(f); p != nil {
		t.Error("progress on a file")
	}
	if p := newProgress(&bytes.Buffer{}); p != nil {
		t.Error("progress on a buffer")
	}
	var p *progress
	p.clear() // nil-safe
}
