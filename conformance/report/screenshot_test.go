package report_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/forge-conform/forge-conform/conformance/report"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

var screenshot = flag.String("screenshot", "", "also write TestMatrixFitsTheWindow's screenshots to this PNG file and FILE-open.png")

// chromium finds a headless-capable Chromium on PATH ("" when none).
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// fiveImplementations is a matrix of five implementations with long names
// and commands, failing in different places.
func fiveImplementations() report.Matrix {
	var cols []report.Column
	for i, name := range []string{"forge-reference", "forge-rust-implementation-with-a-rather-long-name", "pyforge", "forge.ts", "forge-zig"} {
		run := sampleRun()
		if i%2 == 0 {
			run = passingRun()
		}
		run.Implementation = fcp.Implementation{Name: name, Version: fmt.Sprintf("%d.0.0-beta.%d+build.20261127", i+1, i), Language: "lang"}
		cols = append(cols, report.Column{Run: run,
			Command: fmt.Sprintf("/home/someone/src/%s/target/release/%s --fcp --config=/home/someone/.config/forge/conformance-settings.json", name, name)})
	}
	return report.BuildMatrix(cols)
}

// The HTML matrix of five implementations fits a 1400-pixel-wide window:
// no sideways scrolling, even with every failing cell's evidence open.
// Chromium renders a test copy of the page (the report itself has no
// script) whose one injected script writes the page's scroll width into
// its title, read back with --dump-dom; a screenshot of the page as
// shipped is written with -screenshot FILE.
func TestMatrixFitsTheWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	bin := chromium()
	if bin == "" {
		t.Skip("no Chromium on PATH (chromium, chromium-browser or google-chrome; Debian: apt-get install chromium): the HTML matrix's layout is not checked")
	}
	var page bytes.Buffer
	if err := report.HTML(&page, fiveImplementations()); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const probe = `<script>addEventListener("load", () => { document.title = "scroll " + document.documentElement.scrollWidth + " client " + document.documentElement.clientWidth; });</script>`
	copy := strings.ReplaceAll(page.String(), "<details>", "<details open>")
	copy = strings.Replace(copy, "</head>", probe+"\n</head>", 1)
	probed := filepath.Join(dir, "probed.html")
	shipped := filepath.Join(dir, "matrix.html")
	for path, body := range map[string]string{probed: copy, shipped: page.String()} {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Chromium's singleton socket lives in TMPDIR and must fit a socket
	// path: the tests' scratch directory can be too deep.
	short, err := os.MkdirTemp("/tmp", "fc-chromium-")
	if err != nil {
		short = dir
	}
	defer os.RemoveAll(short)
	run := func(size string, args ...string) []byte {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
			"--user-data-dir=" + filepath.Join(short, "profile"), "--window-size=" + size}
		cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
		cmd.Env = append(os.Environ(), "TMPDIR="+short)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, stderr.String())
		}
		return out
	}
	dom := run("1400,900", "--virtual-time-budget=5000", "--dump-dom", "file://"+probed)
	m := regexp.MustCompile(`<title>scroll (\d+) client (\d+)</title>`).FindSubmatch(dom)
	if m == nil {
		t.Fatalf("the probe wrote no widths into the title; the DOM begins:\n%.500s", dom)
	}
	scroll, _ := strconv.Atoi(string(m[1]))
	client, _ := strconv.Atoi(string(m[2]))
	if scroll > client {
		t.Errorf("the page is %d pixels wide in a %d-pixel window (evidence open): it scrolls sideways", scroll, client)
	}
	if *screenshot != "" {
		abs, err := filepath.Abs(*screenshot)
		if err != nil {
			t.Fatal(err)
		}
		run("1400,900", "--virtual-time-budget=5000", "--screenshot="+abs, "file://"+shipped)
		open := strings.TrimSuffix(abs, ".png") + "-open.png"
		run("1400,3000", "--virtual-time-budget=5000", "--screenshot="+open, "file://"+probed)
		t.Logf("screenshots: %s (the page as shipped), %s (every failing cell's evidence open, 3000 pixels tall)", abs, open)
	}
}
