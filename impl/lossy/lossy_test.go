package lossy

import (
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	const r = "\uFFFD"
	tests := []struct {
		name, in, want string
	}{
		{"valid ascii", "abc", "abc"},
		{"valid multibyte", "é😀", "é😀"},
		{"invalid lead FF", "a\xffb", "a" + r + "b"},
		{"two invalid leads", "\xfe\xff", r + r},
		{"lone continuation", "\x80", r},
		{"two lone continuations", "\x80\xbf", r + r},
		{"truncated 2-byte at end", "a\xc3", "a" + r},
		{"truncated 3-byte", "\xe2\x82x", r + "x"},
		{"truncated 4-byte", "\xf0\x9f\x98", r},
		{"truncated 4-byte then ascii", "\xf0\x9f\x98!", r + "!"},
		{"overlong C0 AF", "\xc0\xaf", r + r},
		{"overlong E0 80 AF", "\xe0\x80\xaf", r + r + r},
		{"surrogate ED A0 80", "\xed\xa0\x80", r + r + r},
		{"above U+10FFFF F4 90", "\xf4\x90\x80\x80", r + r + r + r},
		{"F5 never valid", "\xf5\x80", r + r},
		{"lead then lead", "\xe2\xe2\x82\xac", r + "€"},
		{"latin-1 name", "caf\xe9.txt", "caf" + r + ".txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzString(f *testing.F) {
	f.Add("\xf0\x9f\x98")
	f.Add("a\xed\xa0\x80b")
	f.Fuzz(func(t *testing.T, s string) {
		got := String(s)
		if !utf8.ValidString(got) {
			t.Fatalf("String(%q) = %q is not valid UTF-8", s, got)
		}
		if utf8.ValidString(s) && got != s {
			t.Fatalf("valid input changed: %q -> %q", s, got)
		}
	})
}

func TestPerByte(t *testing.T) {
	const r = "\uFFFD"
	tests := []struct {
		name, in, want string
	}{
		{"valid", "é😀", "é😀"},
		{"invalid lead FF", "a\xffb", "a" + r + "b"},
		{"truncated 4-byte", "\xf0\x9f\x98", r + r + r},
		{"truncated 3-byte then ascii", "\xe2\x82x", r + r + "x"},
		{"lead then lead", "\xe2\xe2\x82\xac", r + "€"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PerByte(tt.in); got != tt.want {
				t.Errorf("PerByte(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
