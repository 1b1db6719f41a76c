package sandbox

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// TestGlobsetRegexp checks the globset dialect (Options.Globset) against
// what Rust's globset crate answers with its default options.
func TestGlobsetRegexp(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"**/.ssh/**", "/w/.ssh/id_rsa", true},
		{"**/.ssh/**", "/w/.ssh/a/b", true},
		{"**/.ssh/**", "/w/.ssh", false}, // a trailing /** needs something inside
		{"**/*.pem", "/w/a/b.pem", true},
		{"**/*.pem", "/w/a/b.pem.txt", false},
		{"**/id_rsa*", "/w/id_rsa.d/x", true}, // * crosses /
		{"/w/*.txt", "/w/a/b.txt", true},
		{"/w/?", "/w/a", true},
		{"/w/[!a]", "/w/b", true},
		{"/w/[!a]", "/w/a", false},
		{"/w/{a,b}.go", "/w/b.go", true},
		{"/w/{a,b}.go", "/w/c.go", false},
		{`/w/\*`, "/w/*", true},
		{`/w/\*`, "/w/x", false},
		{"/w/**/x", "/w/x", true},
		{"/w/**/x", "/w/a/b/x", true},
		{"/w/[", "/w/[", false}, // does not translate: matches nothing
	}
	for _, tt := range tests {
		if got := globsetRegexp(tt.pattern).MatchString(tt.path); got != tt.want {
			t.Errorf("globset %q on %q = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

// TestHasControl checks the characters Options.RejectControl refuses.
func TestHasControl(t *testing.T) {
	for path, want := range map[string]bool{
		"a/b.txt": false, "é/ü": false, "a\tb": true, "a\x7fb": true,
		"a\u0085b": true, "a\u202eb": true, "a\u2066b": true, "a\u200fb": false,
	} {
		if got := hasControl(path); got != want {
			t.Errorf("hasControl(%q) = %v, want %v", path, got, want)
		}
	}
}

// TestWith checks the readings a sandbox takes through With.
func TestWith(t *testing.T) {
	f := newFixture(t)
	base, err := New(fsys.OS(), DefaultConfig(), f.work)
	if err != nil {
		t.Fatal(err)
	}
	forge := base.With(Options{ForgeDenials: true})
	tests := []struct {
		name string
		s    *Sandbox
		path string
		want *toolerr.Denial
	}{
		{"denied, as requested", base, "keys/x", denied("keys/x", "**/.ssh/**")},
		{"denied, forge", forge, "keys/x", denied(filepath.Join(f.work, ".ssh/x"), "**/.ssh/**")},
		{"symlink out, as requested", base, "link-out", outside("link-out", f.outside)},
		{"symlink out, forge", forge, "link-out", outside(filepath.Join(f.work, "link-out"), f.outside)},
		{"directory itself, doublestar", base, ".ssh", denied(".ssh", "**/.ssh/**")},
		{"dot-dot, forge", forge, "../outside", outside(f.outside, "../outside")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.s.Validate(tc.path)
			checkValidate(t, tc.path, got, err, "", tc.want)
		})
	}
	t.Run("globset", func(t *testing.T) {
		got, err := base.With(Options{Globset: true}).Validate(".ssh")
		checkValidate(t, ".ssh", got, err, filepath.Join(f.work, ".ssh"), nil)
	})
	t.Run("reject-control", func(t *testing.T) {
		_, err := base.With(Options{RejectControl: true}).Validate("a\u202efile.txt")
		var te *toolerr.Error
		if !errors.As(err, &te) || te.Kind != toolerr.BadArgs {
			t.Errorf("got %v, want BadArgs", err)
		}
		if _, err := base.Validate("a/file.txt"); err != nil {
			t.Errorf("a plain path: %v", err)
		}
	})
}
