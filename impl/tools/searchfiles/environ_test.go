package searchfiles

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/forge-conform/forge-conform/impl/internal/tooltest"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// TestBinaryCheckEnviron: WithEnviron's PATH, not the process's, is where
// the binaries are looked up (CFG-SF-03 for a host that hands its tools an
// environment, as the in-process reference does per case).
func TestBinaryCheckEnviron(t *testing.T) {
	root := tooltest.Build(t, tooltest.File("a.txt", "foo\n"))
	dir := t.TempDir()
	for name, banner := range map[string]string{"rg": "ripgrep 0.0.0", "ugrep": "ugrep 0.0.0"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\necho '"+banner+"'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ name, path, words string }{
		{"fake first", dir + string(os.PathListSeparator) + os.Getenv("PATH"), "older than the minimum"},
		{"relative entries skipped", "." + string(os.PathListSeparator) + "rel", "not found"},
		{"empty", "", "not found"},
	} {
		tl := New().WithEnviron(func() []string { return []string{"HOME=/nowhere", "PATH=" + c.path} })
		for _, b := range []string{backendRg, backendUgrep} {
			_, _, err := tooltest.Run(t, tl, root, tooltest.Call{Args: `{"path":".","query":"foo"}`, Config: backendConfig(b, "")})
			tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "binary check failed", c.words)
		}
	}
}
