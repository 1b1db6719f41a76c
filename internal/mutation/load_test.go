package mutation

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadAndCheck loads a small package of the module: its sites type-check,
// and a mutant that cannot compile is refused.
func TestLoadAndCheck(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: Load runs go list")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := Load(root, []string{"./impl/executor/truncate"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 1 || pkgs[0].Rel != "impl/executor/truncate" || len(pkgs[0].Sites) == 0 {
		t.Fatalf("loaded %+v, want impl/executor/truncate with sites", pkgs)
	}
	p := pkgs[0]
	for _, s := range p.Sites {
		if !strings.HasPrefix(s.File, "impl/executor/truncate/") {
			t.Errorf("site in %s", s.File)
		}
		if s.Op == OpIntLiteral {
			if err := p.Check(s); err != nil {
				t.Errorf("%s does not type-check: %v", s.Key(), err)
			}
			bad := s
			bad.Repl = `"not a number"`
			if p.Check(bad) == nil {
				t.Errorf("a string in place of %s type-checks", s.Key())
			}
		}
	}
	skipped, err := Load(root, []string{"./impl/executor/truncate"}, map[string]bool{p.Sites[0].File: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(skipped[0].Sites); n != 0 {
		t.Errorf("a skipped file has %d sites", n)
	}
}
