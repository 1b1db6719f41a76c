//go:build unix

package main

import (
	"strings"
	"testing"
)

func TestCoveredReaches(t *testing.T) {
	src := []byte("package p\n\nfunc f(x int) int {\n\tif x > 0 {\n\t\treturn 1\n\t}\n\treturn 0\n}\n\nconst k = 64\n")
	c := covered{"p/p.go": {
		{StartLine: 3, StartCol: 19, EndLine: 4, EndCol: 10, NumStmt: 1, Count: 3}, // if x > 0 {
		{StartLine: 4, StartCol: 10, EndLine: 6, EndCol: 3, NumStmt: 1, Count: 0},  // return 1
		{StartLine: 7, StartCol: 2, EndLine: 7, EndCol: 10, NumStmt: 1, Count: 3},  // return 0
	}}
	at := func(s string) int { return strings.Index(string(src), s) }
	for _, tc := range []struct {
		name       string
		off        int
		hit, known bool
	}{
		{"condition of an executed if", at("x > 0"), true, true},
		{"body never run", at("1\n"), false, true},
		{"statement run", at("0\n}"), true, true},
		{"package-level constant: no block", at("64"), false, false},
	} {
		hit, known := c.reaches("p/p.go", src, tc.off)
		if hit != tc.hit || known != tc.known {
			t.Errorf("%s: reaches = %v, %v; want %v, %v", tc.name, hit, known, tc.hit, tc.known)
		}
	}
	if hit, known := c.reaches("p/other.go", src, at("x > 0")); hit || known {
		t.Errorf("a file without blocks: reaches = %v, %v; want false, false", hit, known)
	}
}
