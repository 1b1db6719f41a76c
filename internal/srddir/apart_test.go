package srddir_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// forbidden are the strings no file of the project may contain: the place
// CI keeps the SRDs beside the clone, and a notes file that lives there.
// They are spelled in pieces so that this file does not contain them.
var forbidden = []string{"../" + "shared", "/work/" + "shared", "FORGE_" + "FACTS"}

// TestNoFilePointsOutside: no tracked file but CI's own (.ci/) points into
// the folder beside the clone where CI keeps the SRDs, or cites notes kept
// there. Tests find the SRDs through FORGE_CONFORM_SRD_DIR, which .ci/run
// alone sets; facts about Forge's own code are the project's own account
// (impl/forgelike's package doc).
func TestNoFilePointsOutside(t *testing.T) {
	root := moduleRoot(t)
	files := trackedFiles(t, root)
	if len(files) < 100 {
		t.Fatalf("found only %d files under %s: is this the repository?", len(files), root)
	}
	for _, rel := range files {
		if strings.HasPrefix(rel, ".ci/") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the work tree, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range forbidden {
			if i := bytes.Index(data, []byte(s)); i >= 0 {
				line := 1 + bytes.Count(data[:i], []byte("\n"))
				t.Errorf("%s:%d contains %q: only .ci/run may know that folder; read the SRDs from $FORGE_CONFORM_SRD_DIR (internal/srddir), and cite Forge's own code (observed) or impl/forgelike's package doc instead of notes kept outside the repository", rel, line, s)
			}
		}
	}
}

// moduleRoot is the directory of go.mod above the test's directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// trackedFiles lists the files git tracks under root (slash-separated,
// relative); outside a git checkout, every file but .git's.
func trackedFiles(t *testing.T, root string) []string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	if out, err := cmd.Output(); err == nil {
		return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(root, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
