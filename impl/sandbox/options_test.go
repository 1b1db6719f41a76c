package sandbox

import "testing"

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
		"a\u0085b": true, "a\u202eb": true, "a\u2066b": true, "a\u200fb": true,
	} {
		if got := hasControl(path); got != want {
			t.Errorf("hasControl(%q) = %v, want %v", path, got, want)
		}
	}
}
