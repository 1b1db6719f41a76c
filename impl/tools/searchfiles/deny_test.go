package searchfiles

import (
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// TestNamePatternLikeDoublestar checks the denied-name fast path against
// doublestar, which it stands in for, on names holding no "/".
func TestNamePatternLikeDoublestar(t *testing.T) {
	globs := []string{"id_rsa*", "*.pem", "*.key", ".ssh", ".gnupg", "a*b", "*", "x*x", "[ab]*", "a?c", `\*`, "{a,b}"}
	names := []string{"", "id_rsa", "id_rsa.pub", "xid_rsa", "k.pem", ".pem", "pem", "a.key.bak", ".ssh", ".sshx",
		"ab", "a", "b", "axb", "x", "xx", "xax", "abc", "*", "a.c"}
	for _, g := range globs {
		p := newNamePattern(g)
		for _, n := range names {
			want, _ := doublestar.Match(g, n)
			if got := p.match(n); got != want {
				t.Errorf("glob %q, name %q: got %v, doublestar says %v", g, n, got, want)
			}
		}
	}
}
