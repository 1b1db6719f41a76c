//go:build unix

package main

import (
	"strings"
	"testing"

	"golang.org/x/tools/cover"
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

// beyond names the files where a reading's run executed a block the other
// runs left at zero: the files whose mutants face that reading's run.
func TestCoveredBeyond(t *testing.T) {
	cond := cover.ProfileBlock{StartLine: 3, StartCol: 19, EndLine: 4, EndCol: 10, NumStmt: 1}
	body := cover.ProfileBlock{StartLine: 4, StartCol: 10, EndLine: 6, EndCol: 3, NumStmt: 1}
	with := func(b cover.ProfileBlock, n int) cover.ProfileBlock { b.Count = n; return b }
	main := covered{
		"p/opt.go":   {with(cond, 5), with(body, 0)},
		"p/plain.go": {with(cond, 5), with(body, 2)},
		"p/dead.go":  {with(cond, 0), with(body, 0)},
	}
	reading := covered{
		"p/opt.go":   {with(cond, 2), with(body, 1)}, // the option's branch: only here
		"p/plain.go": {with(cond, 1), with(body, 1)}, // nothing the main runs missed
		"p/dead.go":  {with(cond, 0), with(body, 0)}, // never run by anyone
	}
	got := reading.beyond(main)
	want := map[string]bool{"p/opt.go": true}
	if len(got) != len(want) || !got["p/opt.go"] {
		t.Errorf("beyond = %v, want %v", got, want)
	}
	if got := main.beyond(main); len(got) != 0 {
		t.Errorf("a profile is beyond itself in %v", got)
	}
}
