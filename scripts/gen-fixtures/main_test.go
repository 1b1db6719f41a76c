//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/conformance/fixture"
)

func TestRun(t *testing.T) {
	out := t.TempDir()
	t.Cleanup(func() { _ = fixture.RemoveAll(out) }) // runs before TempDir's cleanup
	tests := []struct {
		name       string
		args       []string
		code       int
		stdout     []string // substrings
		stderr     []string
		wantOnDisk []string // paths under out
	}{
		{name: "no args", args: nil, code: 2, stderr: []string{"-out DIR is required"}},
		{name: "bad flag", args: []string{"-bogus"}, code: 2, stderr: []string{"flag provided but not defined: -bogus", "usage:"}},
		{name: "unknown fixture", args: []string{"-out", out, "nosuch"}, code: 2, stderr: []string{`unknown fixture "nosuch"`, "known: abyss basic ", " longnames lp1 mtimes ", " nonutf8-del nonutf8-only ordering ordering-prefix patch ", " perms read-slow scaling-ld-16x scaling-ld-1x scaling-sf-16x scaling-sf-1x search-basic search-gitignore search-gitignore-class search-gitignore-syntax search-gitignore-unreadable search-perms search-special search-symlinks slow-chain slow-chain-wide sniff-tail special-names "}},
		{name: "bad chown", args: []string{"-out", out, "-chown", "root", "basic"}, code: 2, stderr: []string{"want numeric UID:GID"}},
		{name: "list all", args: []string{"-list"}, code: 0, stdout: []string{"basic", "12 entries", "bulk", "3251 entries", "faults", "4 faults", "symlinks"}},
		{name: "list some", args: []string{"-list", "empty"}, code: 0, stdout: []string{"empty                0 entries   0 faults\n"}},
		{name: "help", args: []string{"-h"}, code: 0, stderr: []string{"usage:"}},
		{name: "materialize", args: []string{"basic", "-out", out, "symlinks"}, code: 0,
			stdout:     []string{"basic: 12 entries in ", "symlinks: 16 entries in "},
			wantOnDisk: []string{"basic/root/src/main.go", "basic/outside", "symlinks/outside/secret/s.txt"}},
		{name: "materialize again replaces", args: []string{"-out", out, "basic", "perms"}, code: 0,
			wantOnDisk: []string{"basic/root/a.txt", "perms/root/top.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.code, stderr.String())
			}
			for _, w := range tt.stdout {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout %q does not contain %q", stdout.String(), w)
				}
			}
			for _, w := range tt.stderr {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr %q does not contain %q", stderr.String(), w)
				}
			}
			for _, p := range tt.wantOnDisk {
				if _, err := os.Lstat(filepath.Join(out, p)); err != nil {
					t.Errorf("%s: %v", p, err)
				}
			}
		})
	}
}

func TestRunRefusesForeignDir(t *testing.T) {
	out := t.TempDir()
	if err := os.MkdirAll(filepath.Join(out, "basic", "mine"), 0o755); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-out", out, "basic"}, &stdout, &stderr); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(stderr.String(), `holds "mine", so it is not an earlier gen-fixtures output`) {
		t.Errorf("stderr = %q", stderr.String())
	}
	if _, err := os.Stat(filepath.Join(out, "basic", "mine")); err != nil {
		t.Errorf("foreign dir touched: %v", err)
	}
}
