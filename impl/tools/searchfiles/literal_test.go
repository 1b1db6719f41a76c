package searchfiles

import (
	"bytes"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/impl/internal/tooltest"
)

// TestIndexRare checks indexRare against bytes.Index with the needle's
// rare byte at every offset, on chosen and random haystacks.
func TestIndexRare(t *testing.T) {
	cases := []struct{ s, q string }{
		{"", "ab"},
		{"a", "ab"},
		{"ab", "ab"},
		{"xxab", "ab"},
		{"func main() {}", "func main"},
		{"funcfunc mainfunc main", "func main"},
		{"fun main\nfunc  main\nfunc main", "func main"},
		{"mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm main", "func main"},
		{strings.Repeat("a", 500) + "b", strings.Repeat("a", 20) + "b"},
		{strings.Repeat("ab", 300), "abababac"},
		{strings.Repeat("x", 1000) + "needle" + strings.Repeat("y", 10), "needle"},
		{"needle at the end: needle", "needle"},
		{"ééé café", "café"},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		alphabet := "abc \n"[:1+r.IntN(5)]
		gen := func(n int) string {
			var b strings.Builder
			for range n {
				b.WriteByte(alphabet[r.IntN(len(alphabet))])
			}
			return b.String()
		}
		cases = append(cases, struct{ s, q string }{gen(r.IntN(200)), gen(1 + r.IntN(6))})
	}
	for _, tc := range cases {
		s, q := []byte(tc.s), []byte(tc.q)
		want := bytes.Index(s, q)
		for rare := range q {
			if got := indexRare(s, q, rare); got != want {
				t.Fatalf("indexRare(%q, %q, %d) = %d, want %d", tc.s, tc.q, rare, got, want)
			}
		}
	}
}

func TestRareOffset(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want int
	}{
		{"a", 0},
		{"func main", 5}, // "m" is rarer than the others in source code
		{"  x", 2},
		{"zz", 0}, // the first of equals
	} {
		if got := rareOffset([]byte(tc.q)); got != tc.want {
			t.Errorf("rareOffset(%q) = %d, want %d", tc.q, got, tc.want)
		}
	}
}

// BenchmarkIndexRare compares indexRare and bytes.Index for "func main"
// over the Go files of $GOROOT/src/net (every occurrence, as a search
// finds them).
func BenchmarkIndexRare(b *testing.B) {
	var src []byte
	err := filepath.WalkDir(filepath.Join(tooltest.GoSrc(b), "net"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".go") {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			src = append(src, data...)
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	q := []byte("func main")
	count := func(index func(s []byte) int) int {
		n := 0
		for s := src; ; n++ {
			i := index(s)
			if i < 0 {
				return n
			}
			s = s[i+len(q):]
		}
	}
	want := count(func(s []byte) int { return bytes.Index(s, q) })
	rare := rareOffset(q)
	for _, bc := range []struct {
		name  string
		index func(s []byte) int
	}{
		{"bytes.Index", func(s []byte) int { return bytes.Index(s, q) }},
		{"indexRare", func(s []byte) int { return indexRare(s, q, rare) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if n := count(bc.index); n != want {
					b.Fatalf("%d matches, want %d", n, want)
				}
			}
		})
	}
}

func TestRequiredLiteral(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string // any of these; none: nil
	}{
		{`func\s+main\(`, []string{"func", "main("}},
		{`func`, []string{"func"}},
		{`a|b`, nil},
		{`x*`, nil},
		{`(?i)abc`, nil},
		{`(?i:abc)def`, []string{"def"}},
		{`a{0,2}b`, []string{"b"}},
		{`(foo)+bar?`, []string{"foo", "ba"}},
		{`(?:xyz){2,}`, []string{"xyz"}},
		{`^$`, nil},
		{`héllo\d`, []string{"héllo"}},
	} {
		got := requiredLiteral(tc.src)
		if tc.want == nil {
			if got != nil {
				t.Errorf("requiredLiteral(%q) = %q, want none", tc.src, got)
			}
			continue
		}
		if !slices.Contains(tc.want, string(got)) {
			t.Errorf("requiredLiteral(%q) = %q, want one of %q", tc.src, got, tc.want)
		}
	}
}

// TestRegexPrefilter checks that skipping the lines without the required
// literal finds exactly what running the expression on every line finds.
func TestRegexPrefilter(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	atoms := []string{"a", "b", "ab", "ba", `\s`, ".", "(a|b)", "(ab)+", "b*", "a?", "^", "$", `\n`, " ", "[ab]", "(?i:a)", "a{2}"}
	text := "ab \n\r"
	checked := 0
	for range 3000 {
		var src strings.Builder
		for range 1 + r.IntN(4) {
			src.WriteString(atoms[r.IntN(len(atoms))])
		}
		re, err := regexp.Compile(src.String())
		if err != nil {
			continue
		}
		var buf strings.Builder
		for range r.IntN(80) {
			buf.WriteByte(text[r.IntN(len(text))])
		}
		m := newRegexMatcher(re)
		every := regexMatcher{re: re}
		if len(m.required.q) > 0 {
			checked++
		}
		got := scanBuffer([]byte(buf.String()), m, 1000, 1, &scratch{})
		want := scanBuffer([]byte(buf.String()), every, 1000, 1, &scratch{})
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("pattern %q (required %q) on %q:\n got %+v\nwant %+v", src.String(), m.required.q, buf.String(), got, want)
		}
	}
	if checked < 500 {
		t.Fatalf("only %d patterns had a required literal: the test checks too little", checked)
	}
}
