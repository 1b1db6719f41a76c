package check

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTextPattern(t *testing.T) {
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	if err := os.WriteFile(filepath.Join(root, "a.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		want, got   string
		whole, fold bool
		ok          bool
	}{
		{"modified: $PATH(./a.txt)", "modified: ./a.txt", true, false, true},
		{"modified: $PATH(./a.txt)", "modified: a.txt", true, false, true},
		{"modified: $PATH(./a.txt)", "modified: $ROOT/a.txt", true, false, true},
		{"modified: $PATH(link)", "modified: $ROOT/a.txt", true, false, true},
		{"modified: $PATH(link)", "modified: a.txt", true, false, true},
		{"modified: $PATH(link)", "modified: $ROOT/link", true, false, true},
		{"modified: $PATH(a.txt)", "modified: b.txt", true, false, false},
		{"modified: $PATH(a.txt)", "modified: a.txt\n", true, false, false},
		{"modified: $PATH(a.txt)\nmodified: $PATH(b.txt)", "modified: $ROOT/a.txt\nmodified: b.txt", true, false, true},
		{"modified: $PATH(a.txt)", "x\nMODIFIED: a.txt\ny", false, true, true},
		{"modified: $PATH(a.b)", "modified: aXb", true, false, false},
	}
	for _, tt := range tests {
		if got := textPattern(tt.want, root, tt.whole, tt.fold).MatchString(tt.got); got != tt.ok {
			t.Errorf("textPattern(%q) on %q = %v, want %v", tt.want, tt.got, got, tt.ok)
		}
	}
}

func TestSanitizedPattern(t *testing.T) {
	tests := []struct {
		want, got string
		ok        bool
	}{
		{"a\x00b", "ab", true},
		{"a\x00b", "a\uFFFDb", true},
		{"a\x00\x1b[31mb", "a[31mb", true},
		{"a\x00b", "a\x00b", false},
		{"a\x00b", "axb", true},
		{"a\x00b", "ac", false},
		{"plain\r\n", "plain\r\n", true},
	}
	for _, tt := range tests {
		if got := sanitizedPattern(tt.want).MatchString(tt.got); got != tt.ok {
			t.Errorf("sanitizedPattern(%q) on %q = %v, want %v", tt.want, tt.got, got, tt.ok)
		}
	}
}
