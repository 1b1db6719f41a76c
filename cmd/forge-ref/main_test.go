package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/spec/fcp"
)

// heavy are packages forge-ref must not link: each initializes when the
// program starts or belongs to the harness or the interactive TUI, whose
// start forge-ref exists to avoid (issue 10: hello within 1.5x of a
// minimal Go program). A prefix ending in "/" covers a module's packages.
//
// One heavy package stays, on purpose: jsonschema/v5, which compiles every
// draft's metaschema at init (about 3 ms). The reference validates tool
// arguments with it (FR-VAL-01; TOOL_EXECUTOR_SRD D-02 asks for a validator
// library, and the house prefers a well-kept library to a hand-written
// subset); so do fcpschema's error descriptions.
var heavy = []string{
	"github.com/santhosh-tekuri/jsonschema/v6",
	"github.com/google/jsonschema-go/",
	"github.com/hanwen/go-fuse/",
	"github.com/charmbracelet/bubbletea",
	"github.com/charmbracelet/bubbles/",
	"github.com/charmbracelet/lipgloss",
	"github.com/atotto/clipboard",
	"github.com/muesli/termenv",
	"github.com/xo/terminfo",
	"github.com/onsi/",
	"github.com/rogpeppe/go-internal/",
	"github.com/google/go-cmp/",
	"github.com/forge-conform/forge-conform/conformance/",
	"github.com/forge-conform/forge-conform/impl/mutants",
	"github.com/forge-conform/forge-conform/impl/tui/program",
	"os/user", // cgo and a dynamically linked binary where a C compiler exists
}

// TestLean keeps the packages above out of forge-ref's import graph.
func TestLean(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed %d packages: %q", len(deps), deps)
	}
	for _, d := range deps {
		for _, h := range heavy {
			if d == strings.TrimSuffix(h, "/") || strings.HasSuffix(h, "/") && strings.HasPrefix(d, h) {
				t.Errorf("forge-ref links %s: keep it out (it costs start-up time; see the doc of heavy), or remove it from heavy with a measurement (go test -bench StartHello ./cmd/forge-conform/)", d)
			}
		}
	}
}

func TestServes(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		in     string
		code   int
		stdout []string // substrings, one line each
		stderr string
	}{
		{"hello", nil, `{"fcp":1,"seq":0,"op":"hello"}` + "\n", 0,
			[]string{`"implementation":{"name":"` + fcp.ReferenceName + `"`}, ""},
		{"hello and call", nil, `{"fcp":1,"seq":0,"op":"hello"}` + "\n" +
			`{"fcp":1,"seq":1,"op":"call","call":{"id":"c","name":"read_file","args":{"path":5}},"ctx":{"working_dir":"/"}}` + "\n", 0,
			[]string{`"seq":0`, `{"seq":1,"ok":false,"error":{"kind":"BadArgs","message":"invalid arguments for read_file: at /path: expected string, but got number"`}, ""},
		{"policy", []string{"--policy", "lp1_missing_file=refuse"}, `{"fcp":1,"seq":0,"op":"hello"}`, 0,
			[]string{`"policies":{"lp1_missing_file":"refuse",`}, ""},
		{"bad policy", []string{"--policy", "nope=1"}, "", 2, nil, `unknown policy "nope"`},
		{"argument", []string{"ref"}, "", 2, nil, `unexpected argument "ref"`},
		{"help", []string{"-h"}, "", 0, nil, "-policy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, strings.NewReader(tt.in), &stdout, &stderr)
			if code != tt.code || !strings.Contains(stderr.String(), tt.stderr) {
				t.Fatalf("exit %d, stderr %q; want exit %d, stderr containing %q", code, stderr.String(), tt.code, tt.stderr)
			}
			lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
			if len(tt.stdout) == 0 {
				if stdout.Len() > 0 {
					t.Errorf("stdout %q, want none", stdout.String())
				}
				return
			}
			if len(lines) != len(tt.stdout) {
				t.Fatalf("stdout has %d lines, want %d: %q", len(lines), len(tt.stdout), stdout.String())
			}
			for i, want := range tt.stdout {
				if !json.Valid([]byte(lines[i])) || !strings.Contains(lines[i], want) {
					t.Errorf("line %d = %s, want JSON containing %s", i+1, lines[i], want)
				}
			}
		})
	}
}
