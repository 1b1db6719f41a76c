package conformance_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestHarnessStandsApart keeps the harness independent of what it checks:
// no non-test Go file under conformance/ imports the reference (impl/) or
// the scripts (scripts/). The reference reaches the runner only as a
// runner.Target plugged in from cmd/ or from tests.
func TestHarnessStandsApart(t *testing.T) {
	const module = "github.com/forge-conform/forge-conform/"
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, module+"impl/") || strings.HasPrefix(p, module+"scripts/") {
				t.Errorf("conformance/%s imports %s: the harness must not depend on the reference or the scripts; pass what it needs in (a runner.Target, plain data)", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
