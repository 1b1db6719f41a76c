package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// fixture is a real tree:
//
//	base/
//	  work/                 the working directory and default root
//	    a/file.txt
//	    b/
//	    link-in      -> a/file.txt
//	    link-dir-in  -> a
//	    link-out     -> ../outside
//	    link-out-abs -> <base>/outside/secret.txt
//	    dangling     -> nope
//	    keys         -> .ssh
//	    loop1 -> loop2, loop2 -> loop1
//	    .ssh/x  .gnupg/y  id_rsa.pub  x.pem  k.key
//	  outside/secret.txt
//	  rootlink -> work
type fixture struct {
	base, work, outside string
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := fixture{base: base, work: filepath.Join(base, "work"), outside: filepath.Join(base, "outside")}
	dirs := []string{"work/a", "work/b", "work/.ssh", "work/.gnupg", "outside"}
	files := []string{"work/a/file.txt", "work/.ssh/x", "work/.gnupg/y", "work/id_rsa.pub", "work/x.pem", "work/k.key", "outside/secret.txt"}
	links := [][2]string{
		{"work/link-in", "a/file.txt"},
		{"work/link-dir-in", "a"},
		{"work/link-out", "../outside"},
		{"work/link-out-abs", filepath.Join(base, "outside/secret.txt")},
		{"work/dangling", "nope"},
		{"work/keys", ".ssh"},
		{"work/loop1", "loop2"},
		{"work/loop2", "loop1"},
		{"rootlink", "work"},
	}
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range files {
		if err := os.WriteFile(filepath.Join(base, p), []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range links {
		if err := os.Symlink(l[1], filepath.Join(base, l[0])); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func outside(attempted, resolved string) *toolerr.Denial {
	return &toolerr.Denial{Reason: toolerr.PathOutsideSandbox, Attempted: attempted, Resolved: resolved}
}

func denied(attempted, pattern string) *toolerr.Denial {
	return &toolerr.Denial{Reason: toolerr.DeniedPatternMatched, Attempted: attempted, Pattern: pattern}
}

// checkValidate checks that got/err is want (success) or wantDenial.
func checkValidate(t *testing.T, path, got string, err error, want string, wantDenial *toolerr.Denial) {
	t.Helper()
	if wantDenial == nil {
		if err != nil {
			t.Fatalf("Validate(%q): unexpected error %v", path, err)
		}
		if got != want {
			t.Fatalf("Validate(%q) = %q, want %q", path, got, want)
		}
		return
	}
	var te *toolerr.Error
	if !errors.As(err, &te) {
		t.Fatalf("Validate(%q) = %q, %v; want a *toolerr.Error", path, got, err)
	}
	if te.Kind != toolerr.SandboxViolation || te.Denial == nil || *te.Denial != *wantDenial {
		t.Fatalf("Validate(%q) error = %+v (denial %+v), want SandboxViolation with %+v", path, te, te.Denial, *wantDenial)
	}
	if got != "" {
		t.Errorf("Validate(%q) returned path %q alongside an error", path, got)
	}
}

func TestValidate(t *testing.T) {
	f := newFixture(t)
	w := func(rel string) string { return filepath.Join(f.work, rel) }
	absFile := w("a/file.txt")
	tests := []struct {
		name       string
		cfg        func(*Config)
		path       string
		want       string
		wantDenial *toolerr.Denial
	}{
		{name: "relative inside", path: "a/file.txt", want: absFile},
		{name: "dot", path: ".", want: f.work},
		{name: "empty is the working directory", path: "", want: f.work},
		{name: "redundant separators and dots", path: "./a//./file.txt", want: absFile},
		{name: "absolute rejected", path: absFile, wantDenial: outside(absFile, absFile)},
		{name: "absolute allowed", cfg: func(c *Config) { c.AllowAbsolute = true }, path: absFile, want: absFile},
		{name: "absolute allowed but outside", cfg: func(c *Config) { c.AllowAbsolute = true }, path: f.outside,
			wantDenial: outside(f.outside, f.outside)},
		{name: "dotdot inside path", path: "a/../b", wantDenial: outside("a/../b", "a/../b")},
		{name: "dotdot alone", path: "..", wantDenial: outside("..", "..")},
		{name: "trailing dotdot", path: "a/..", wantDenial: outside("a/..", "a/..")},
		{name: "dotdot in absolute", cfg: func(c *Config) { c.AllowAbsolute = true }, path: f.work + "/a/../b",
			wantDenial: outside(f.work+"/a/../b", f.work+"/a/../b")},
		{name: "dots in a name are not dotdot", path: "a/..file", want: w("a/..file")},
		{name: "symlink inside to inside", path: "link-in", want: absFile},
		{name: "through dir symlink inside", path: "link-dir-in/file.txt", want: absFile},
		{name: "symlink to outside", path: "link-out", wantDenial: outside("link-out", f.outside)},
		{name: "absolute symlink to outside", path: "link-out-abs",
			wantDenial: outside("link-out-abs", filepath.Join(f.outside, "secret.txt"))},
		{name: "nonexistent under root", path: "new/deeper/file.txt", want: w("new/deeper/file.txt")},
		{name: "nonexistent under outside symlink", path: "link-out/new/x.txt",
			wantDenial: outside("link-out/new/x.txt", filepath.Join(f.outside, "new/x.txt"))},
		{name: "dangling link is non-existing", path: "dangling", want: w("dangling")},
		{name: "below dangling link", path: "dangling/x", want: w("dangling/x")},
		{name: "symlink loop is non-existing", path: "loop1/x", want: w("loop1/x")},
		{name: "default deny .ssh dir", path: ".ssh", wantDenial: denied(".ssh", "**/.ssh/**")},
		{name: "default deny .ssh entry", path: ".ssh/x", wantDenial: denied(".ssh/x", "**/.ssh/**")},
		{name: "default deny .gnupg entry", path: ".gnupg/y", wantDenial: denied(".gnupg/y", "**/.gnupg/**")},
		{name: "default deny id_rsa", path: "id_rsa.pub", wantDenial: denied("id_rsa.pub", "**/id_rsa*")},
		{name: "default deny pem", path: "x.pem", wantDenial: denied("x.pem", "**/*.pem")},
		{name: "default deny key", path: "k.key", wantDenial: denied("k.key", "**/*.key")},
		{name: "default deny nonexistent key", path: "new/k.key", wantDenial: denied("new/k.key", "**/*.key")},
		{name: "default deny is on the canonical path", path: "keys/x", wantDenial: denied("keys/x", "**/.ssh/**")},
		{name: "near miss of default deny", path: ".sshx", want: w(".sshx")},
		{name: "user pattern first", cfg: func(c *Config) { c.DeniedPatterns = []string{"**/x.*"} }, path: "x.pem",
			wantDenial: denied("x.pem", "**/x.*")},
		{name: "user pattern alone", cfg: func(c *Config) { c.DeniedPatterns = []string{"**/a/*.txt"} }, path: "link-in",
			wantDenial: denied("link-in", "**/a/*.txt")},
		{name: "outside wins over pattern", cfg: func(c *Config) { c.DeniedPatterns = []string{"**"} }, path: "link-out",
			wantDenial: outside("link-out", f.outside)},
		{name: "default denies off", cfg: func(c *Config) { c.IncludeDefaultDenies = false }, path: ".ssh/x", want: w(".ssh/x")},
		{name: "default denies off keeps user patterns",
			cfg:  func(c *Config) { c.IncludeDefaultDenies = false; c.DeniedPatterns = []string{"**/*.pem"} },
			path: "x.pem", wantDenial: denied("x.pem", "**/*.pem")},
		{name: "second root", cfg: func(c *Config) { c.AllowedRoots = []string{".", f.outside} }, path: "link-out/secret.txt",
			want: filepath.Join(f.outside, "secret.txt")},
		{name: "root given as symlink", cfg: func(c *Config) { c.AllowedRoots = []string{filepath.Join(f.base, "rootlink")} },
			path: "a/file.txt", want: absFile},
		{name: "relative root", cfg: func(c *Config) { c.AllowedRoots = []string{"a"} }, path: "a/file.txt", want: absFile},
		{name: "relative root excludes siblings", cfg: func(c *Config) { c.AllowedRoots = []string{"a"} }, path: "b",
			wantDenial: outside("b", w("b"))},
		{name: "root prefix is not containment", cfg: func(c *Config) { c.AllowedRoots = []string{"a"} }, path: "ab",
			wantDenial: outside("ab", w("ab"))},
		{name: "no roots", cfg: func(c *Config) { c.AllowedRoots = nil }, path: "a", wantDenial: outside("a", w("a"))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			s, err := New(fsys.OS(), cfg, f.work)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Validate(tc.path)
			checkValidate(t, tc.path, got, err, tc.want, tc.wantDenial)
		})
	}
}

func TestWorkingDirGivenAsSymlink(t *testing.T) {
	f := newFixture(t)
	s, err := New(fsys.OS(), DefaultConfig(), filepath.Join(f.base, "rootlink"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Roots(), []string{f.work}; !slices.Equal(got, want) {
		t.Fatalf("Roots() = %q, want %q", got, want)
	}
	got, err := s.Validate("a/file.txt")
	checkValidate(t, "a/file.txt", got, err, filepath.Join(f.work, "a/file.txt"), nil)
	got, err = s.Validate("new.txt")
	checkValidate(t, "new.txt", got, err, filepath.Join(f.work, "new.txt"), nil)
}

func TestNewErrors(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name       string
		cfg        Config
		workingDir string
		wantIn     []string
	}{
		{"relative working dir", DefaultConfig(), "work", []string{`"work"`, "absolute"}},
		{"missing root", Config{AllowedRoots: []string{".", "missing"}}, f.work, []string{`"missing"`, "allowed_roots"}},
		{"root through a file", Config{AllowedRoots: []string{"a/file.txt/x"}}, f.work, []string{`"a/file.txt/x"`}},
		{"root is a loop", Config{AllowedRoots: []string{"loop1"}}, f.work, []string{`"loop1"`}},
		{"bad pattern", Config{AllowedRoots: []string{"."}, DeniedPatterns: []string{"**/ok", "[a"}}, f.work, []string{`"[a"`, "denied_patterns"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(fsys.OS(), tc.cfg, tc.workingDir)
			if err == nil {
				t.Fatalf("New succeeded with roots %q", s.Roots())
			}
			for _, w := range tc.wantIn {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %s", err, w)
				}
			}
		})
	}
}

func TestCanonicalize(t *testing.T) {
	f := newFixture(t)
	chain := filepath.Join(f.base, "chain")
	if err := os.Mkdir(chain, 0o755); err != nil {
		t.Fatal(err)
	}
	// chain/l0 -> ../work/a ; chain/lN -> l(N-1): resolving lN follows N+1 links.
	for i := 0; i <= 41; i++ {
		dest := "l" + fmt.Sprint(i-1)
		if i == 0 {
			dest = "../work/a"
		}
		if err := os.Symlink(dest, filepath.Join(chain, fmt.Sprintf("l%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		path    string
		want    string
		wantErr syscall.Errno
	}{
		{f.work, f.work, 0},
		{"/", "/", 0},
		{filepath.Join(f.work, "link-in"), filepath.Join(f.work, "a/file.txt"), 0},
		{filepath.Join(f.work, "link-out-abs"), filepath.Join(f.outside, "secret.txt"), 0},
		{filepath.Join(f.base, "rootlink/link-out/secret.txt"), filepath.Join(f.outside, "secret.txt"), 0},
		{filepath.Join(f.work, "link-dir-in/../b"), filepath.Join(f.work, "b"), 0},
		{filepath.Join(chain, "l39"), filepath.Join(f.work, "a"), 0},
		{filepath.Join(chain, "l40"), "", syscall.ELOOP},
		{filepath.Join(f.work, "loop1"), "", syscall.ELOOP},
		{filepath.Join(f.work, "dangling"), "", syscall.ENOENT},
		{filepath.Join(f.work, "missing/x"), "", syscall.ENOENT},
		{filepath.Join(f.work, "a/file.txt/x"), "", syscall.ENOTDIR},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			got, err := Canonicalize(fsys.OS(), tc.path)
			if tc.wantErr == 0 {
				if err != nil || got != tc.want {
					t.Fatalf("Canonicalize = %q, %v; want %q", got, err, tc.want)
				}
				if want, _ := filepath.EvalSymlinks(tc.path); want != got {
					t.Errorf("Canonicalize = %q, filepath.EvalSymlinks = %q", got, want)
				}
				return
			}
			var pe *fs.PathError
			if !errors.As(err, &pe) || pe.Err != tc.wantErr {
				t.Fatalf("Canonicalize = %q, %v; want a *fs.PathError with %v", got, err, tc.wantErr)
			}
		})
	}
}

func TestValidateThroughWrappedFs(t *testing.T) {
	f := newFixture(t)
	w := func(rel string) string { return filepath.Join(f.work, rel) }
	tests := []struct {
		name       string
		faults     []fsys.Fault
		path       string
		want       string
		wantDenial *toolerr.Denial
	}{
		{name: "stat failure counts as non-existing",
			faults: []fsys.Fault{{Op: fsys.OpStat, Path: w("link-out"), Err: syscall.EIO}},
			path:   "link-out", want: w("link-out")},
		{name: "stat failure of ancestor counts as non-existing",
			faults: []fsys.Fault{
				{Op: fsys.OpStat, Path: w("link-dir-in/file.txt"), Err: syscall.EACCES},
				{Op: fsys.OpStat, Path: w("link-dir-in"), Err: syscall.EACCES},
			},
			path: "link-dir-in/file.txt", want: w("link-dir-in/file.txt")},
		{name: "unresolvable existing ancestor fails closed",
			faults: []fsys.Fault{{Op: fsys.OpReadlink, Path: w("link-in"), Err: syscall.EIO}},
			path:   "link-in", wantDenial: outside("link-in", w("link-in"))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(fsys.NewFaultFs(fsys.OS(), tc.faults), DefaultConfig(), f.work)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Validate(tc.path)
			checkValidate(t, tc.path, got, err, tc.want, tc.wantDenial)
		})
	}
}

func TestNewNeedsLstat(t *testing.T) {
	mem := afero.NewMemMapFs()
	if err := mem.MkdirAll("/w", 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := New(mem, DefaultConfig(), "/w"); !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("New over MemMapFs: got %v, want an error wrapping errors.ErrUnsupported", err)
	}
}

func TestDefaults(t *testing.T) {
	d := DefaultDenies()
	d[0] = "changed"
	if DefaultDenies()[0] != "**/.ssh/**" {
		t.Fatal("DefaultDenies shares its slice with callers")
	}
	f := newFixture(t)
	s, err := New(fsys.OS(), DefaultConfig(), f.work)
	if err != nil {
		t.Fatal(err)
	}
	r := s.Roots()
	r[0] = "changed"
	if s.Roots()[0] != f.work {
		t.Fatal("Roots shares its slice with callers")
	}
}

func BenchmarkValidate(b *testing.B) {
	f := newFixture(b)
	s, err := New(fsys.OS(), DefaultConfig(), f.work)
	if err != nil {
		b.Fatal(err)
	}
	for _, path := range []string{"a/file.txt", "link-dir-in/file.txt", "new/deeper/file.txt"} {
		b.Run(path, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.Validate(path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
