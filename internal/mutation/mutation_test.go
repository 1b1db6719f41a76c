package mutation

import (
	"github.com/google/go-cmp/cmp"

	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.sites")

// sitesOf parses and type-checks src (a package without imports) and
// lists its sites under name.
func sitesOf(t *testing.T, name string, src []byte) []Site {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
	if _, err := (&types.Config{}).Check("ops", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	return Sites(fset, f, name, src, info)
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// TestSitesGolden lists every site of testdata/ops.go.txt with the line
// it makes, against testdata/ops.sites (-update rewrites it).
func TestSitesGolden(t *testing.T) {
	src := readTestdata(t, "ops.go.txt")
	var b strings.Builder
	for _, s := range sitesOf(t, "ops.go", src) {
		lines := strings.Split(string(s.Apply(src)), "\n")
		fmt.Fprintf(&b, "%s\n\t%d: %s\n", s.Key(), s.Line, strings.TrimSpace(lines[s.Line-1]))
	}
	golden := filepath.Join("testdata", "ops.sites")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./internal/mutation -run TestSitesGolden -update writes it)", err)
	}
	if b.String() != string(want) {
		t.Errorf("sites differ from %s (rerun with -update and review git diff):\n%s", golden, b.String())
	}
}

// TestApply checks single mutants by key: the line they make, and what is
// left alone.
func TestApply(t *testing.T) {
	src := readTestdata(t, "ops.go.txt")
	sites := map[string]Site{}
	for _, s := range sitesOf(t, "ops.go", src) {
		sites[s.Key()] = s
	}
	for _, tc := range []struct {
		key, line string
	}{
		{`ops.go: Clamp: cond-boundary "<" -> "<=" #1`, "if n <= lo {"},
		{`ops.go: Clamp: cond-negate ">=" -> "<" #1`, "if n < hi && !(hi == 0) {"},
		{`ops.go: Clamp: logical "&&" -> "||" #1`, "if n >= hi || !(hi == 0) {"},
		{`ops.go: Clamp: not-removal "!" -> "" #1`, "if n >= hi && (hi == 0) {"},
		{`ops.go: Clamp: arith "-" -> "+" #1`, "n = hi + 1"},
		{`ops.go: Clamp: arith "+=" -> "-=" #1`, "n -= i * 2"},
		{`ops.go: Clamp: incdec "++" -> "--" #1`, "for i := 0; i < 3; i-- {"},
		{`ops.go: Clamp: int-literal "0" -> "1" #1`, "if n >= hi && !(hi == 1) {"},
		{`ops.go: Clamp: int-literal "3" -> "4" #1`, "for i := 0; i < 4; i++ {"},
		{`ops.go: Clamp: if-true "n < lo" -> "true" #1`, "if true {"},
		{`ops.go: Clamp: stmt-removal "n = hi - 1" -> "" #1`, "_, _ = n, hi - 1"},
		{`ops.go: (*walker).visit: bool-literal "false" -> "true" #1`, "return true"},
		{`ops.go: (*walker).visit: stmt-removal "w.note(name)" -> "" #1`, ""},
		{`ops.go: (*walker).visit: stmt-removal "w.seen[name] = true" -> "" #1`, "_, _ = w.seen[name], true"},
		{`ops.go: var limit: int-literal "25" -> "26" #1`, "var limit = 26"},
	} {
		s, ok := sites[tc.key]
		if !ok {
			t.Errorf("no site %s", tc.key)
			continue
		}
		got := strings.TrimSpace(strings.Split(string(s.Apply(src)), "\n")[s.Line-1])
		if got != tc.line {
			t.Errorf("%s: line %d = %q, want %q", tc.key, s.Line, got, tc.line)
		}
	}
	for key := range sites {
		for _, never := range []string{
			"arith \"+\" -> \"-\" #1",    // join's string concatenation
			"int-literal \"64\"",         // Grow's argument
			"int-literal \"8\"",          // a map's capacity
			"int-literal \"4\" -> \"5\"", // a slice's capacity
		} {
			if strings.Contains(key, never) && !strings.HasPrefix(key, "ops.go: Clamp") {
				t.Errorf("site %s should be left alone", key)
			}
		}
		if strings.Contains(key, "visit") && strings.Contains(key, `"1" -> "2"`) {
			t.Errorf("site %s is inside panic's argument", key)
		}
	}
}

// TestKeysStable: an unrelated edit above (a line, a new function) leaves
// every key as it was; the new function's sites are the only new keys.
func TestKeysStable(t *testing.T) {
	src := readTestdata(t, "ops.go.txt")
	before := keys(sitesOf(t, "ops.go", src))
	edited := bytes.Replace(src, []byte("// Clamp has"),
		[]byte("// Added a line.\n\nfunc added(x int) bool { return x > 2 }\n\n// Clamp has"), 1)
	after := keys(sitesOf(t, "ops.go", edited))
	for _, k := range before {
		if !slices.Contains(after, k) {
			t.Errorf("key changed by an unrelated edit: %s", k)
		}
	}
	for _, k := range after {
		if !slices.Contains(before, k) && !strings.HasPrefix(k, "ops.go: added: ") {
			t.Errorf("new key outside the added function: %s", k)
		}
	}
}

func keys(sites []Site) []string {
	var out []string
	for _, s := range sites {
		out = append(out, s.Key())
	}
	return out
}

// TestKeysUnique: ordinals make every key of a file unique.
func TestKeysUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range keys(sitesOf(t, "ops.go", readTestdata(t, "ops.go.txt"))) {
		if seen[k] {
			t.Errorf("key twice: %s", k)
		}
		seen[k] = true
	}
}

func TestGeneratedHasNoSites(t *testing.T) {
	if s := sitesOf(t, "gen.go", readTestdata(t, "generated.go.txt")); len(s) != 0 {
		t.Errorf("a generated file has %d sites, want none", len(s))
	}
}

func TestSample(t *testing.T) {
	sites := sitesOf(t, "ops.go", readTestdata(t, "ops.go.txt"))
	a, b := keys(Sample(sites, 1, 5, nil)), keys(Sample(sites, 1, 5, nil))
	if !slices.Equal(a, b) || len(a) != 5 {
		t.Fatalf("the same seed sampled %v, then %v", a, b)
	}
	if c := keys(Sample(sites, 2, 5, nil)); slices.Equal(a, c) {
		t.Errorf("seeds 1 and 2 sampled the same %v", a)
	}
	// Without the first sampled site, the sample is the rest of it and
	// one more: the others keep their places.
	var rest []Site
	for _, s := range sites {
		if s.Key() != a[0] {
			rest = append(rest, s)
		}
	}
	d := keys(Sample(rest, 1, 5, nil))
	if !slices.Equal(d[:4], a[1:]) {
		t.Errorf("removing %s changed the rest of the sample: %v, then %v", a[0], a, d)
	}
	// accept skips sites, and the next ones take their places.
	e := keys(Sample(sites, 1, 4, func(s Site) bool { return s.Key() != a[1] }))
	if slices.Contains(e, a[1]) || e[0] != a[0] || e[1] != a[2] {
		t.Errorf("a refused site: %v, then %v", a, e)
	}
	if all := Sample(sites, 1, len(sites)+10, nil); len(all) != len(sites) {
		t.Errorf("n above the sites: got %d, want %d", len(all), len(sites))
	}
}

func TestParseVerdicts(t *testing.T) {
	const key = `impl/x/a.go: (*w).visit: cond-boundary "<" -> "<=" #2`
	for _, tc := range []struct {
		name, in string
		want     []Verdict
		err      string
	}{
		{name: "lines and comments", in: "# why\n\n" + key + "  equivalent  len(s) is never negative\n" +
			`impl/x/b.go: F: if-true "a > b" -> "true" #1	srd-free	FR-X-01 leaves the order free` + "\n",
			want: []Verdict{{Key: key, Class: Equivalent, Reason: "len(s) is never negative", File: "test.txt", Line: 3},
				{Key: `impl/x/b.go: F: if-true "a > b" -> "true" #1`, Class: SRDFree, Reason: "FR-X-01 leaves the order free", File: "test.txt", Line: 4}}},
		{name: "pattern", in: `impl/x/a.go: (*w).visit: if-false "err != nil" -> "false" #*  srd-free  only I/O errors` + "\n",
			want: []Verdict{{Key: `impl/x/a.go: (*w).visit: if-false "err != nil" -> "false" #*`, Class: SRDFree, Reason: "only I/O errors", File: "test.txt", Line: 1}}},
		{name: "no reason", in: key + "  equivalent\n", err: "test.txt:1: " + key + " has no reason"},
		{name: "unknown class", in: key + "  harmless  it is\n", err: `test.txt:1: class "harmless"`},
		{name: "no key", in: "equivalent because\n", err: "test.txt:1: want KEY"},
		{name: "twice", in: key + " equivalent a\n" + key + " srd-free b\n", err: "test.txt:2: " + key + " is already judged at test.txt:1"},
		{name: "pattern over files", in: `*: F: if-true "a" -> "true" #*  equivalent  no`, err: "test.txt:1: pattern"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseVerdicts("test.txt", []byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error %v, want one starting %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got.All()); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestVerdictsLookup: a site's own line wins over a pattern, patterns are
// tried in file order, a "*" matches any text (none included), and a "*"
// right after "(" is itself.
func TestVerdictsLookup(t *testing.T) {
	vs, err := ParseVerdicts("v.txt", []byte(strings.Join([]string{
		`impl/x/a.go: F: if-false "err != nil" -> "false" #2  equivalent  the second check repeats the first`,
		`impl/x/a.go: F: if-false "err != nil" -> "false" #*  srd-free  only I/O errors`,
		`impl/x/a.go: *: stmt-removal * #*  srd-free  log lines`,
		`impl/x/a.go: (*T).M: arith "a * b" -> "a / b" #1  equivalent  b is 1`,
		`impl/x/a.go: H: if-false "r.Look.* != nil" -> "false" #*  equivalent  no Look hook is set`,
		`impl/x/a.go: (*T).M: * #*  srd-free  all look`,
		`impl/x/a.go: G: if-* "ok" -> * #*  srd-free  ok is only a hint`,
		`impl/x/a.go: (*T).P: arith "(*p).y + 1" -> "(*p).y - 1" #1  equivalent  y is never read`,
	}, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key  string
		line int
	}{
		{`impl/x/a.go: F: if-false "err != nil" -> "false" #2`, 1},
		{`impl/x/a.go: F: if-false "err != nil" -> "false" #1`, 2},
		{`impl/x/a.go: (*T).G: stmt-removal "log.Print(x)" -> "" #3`, 3},
		{`impl/x/a.go: F: if-true "err != nil" -> "true" #1`, 0},
		{`impl/x/b.go: F: if-false "err != nil" -> "false" #1`, 0},
		{`impl/x/a.go: F: if-false "err != nil" -> "false" #12x`, 0},
		{`impl/x/a.go: (*T).M: arith "a * b" -> "a / b" #1`, 4},
		{`impl/x/a.go: (*T).M: arith "a * b" -> "a / b" #2`, 6},
		{`impl/x/a.go: (*T).N: arith "a * b" -> "a / b" #1`, 0},
		{`impl/x/a.go: (XT).M: if-true "x" -> "true" #1`, 0},
		{`impl/x/a.go: G: if-false "ok" -> "false" #2`, 7},
		{`impl/x/a.go: G: if-true "ok" -> "true" #1`, 7},
		{`impl/x/a.go: G: if-true "!ok" -> "true" #1`, 0},
		{`impl/x/a.go: H: if-false "r.Look.NotRun != nil" -> "false" #1`, 5},
		{`impl/x/a.go: (*T).P: arith "(*p).y + 1" -> "(*p).y - 1" #1`, 8},
		{`impl/x/a.go: (*T).P: arith "(Xp).y + 1" -> "(Xp).y - 1" #1`, 0},
	} {
		v, ok := vs.Lookup(tc.key)
		if got := map[bool]int{true: v.Line}[ok]; got != tc.line {
			t.Errorf("Lookup(%s): line %d, want %d", tc.key, got, tc.line)
		}
		if ok && !vs.Matches(v, tc.key) {
			t.Errorf("Matches(line %d, %s) = false, though Lookup found it", v.Line, tc.key)
		}
	}
}

// TestReadVerdictsDir: a directory's *.txt files are read in name order,
// each verdict knows its file, and a key judged in two files is an error
// naming both.
func TestReadVerdictsDir(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := `impl/a/a.go: F: if-true "x" -> "true" #1  equivalent  x always holds`
	write("impl-a.txt", "# package a\n"+a+"\n")
	write("impl-b.txt", `impl/b/b.go: G: * #*  srd-free  all look`+"\n")
	write("notes.md", "not read\n")
	vs, err := ReadVerdicts(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs.All() {
		got = append(got, fmt.Sprintf("%s %s", filepath.Base(v.File), v.Key))
	}
	want := []string{`impl-a.txt impl/a/a.go: F: if-true "x" -> "true" #1`, `impl-b.txt impl/b/b.go: G: * #*`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	if v, ok := vs.Lookup(`impl/b/b.go: G: arith "+" -> "-" #3`); !ok || v.Pos() != filepath.Join(dir, "impl-b.txt")+":1" {
		t.Errorf("Lookup through the second file's pattern: %+v, %v", v, ok)
	}
	write("impl-c.txt", a+"\n")
	if _, err := ReadVerdicts(dir); err == nil || !strings.Contains(err.Error(), "impl-c.txt:1: ") || !strings.Contains(err.Error(), "impl-a.txt:2") {
		t.Errorf("a key judged in two files: error %v, want one naming both", err)
	}
}
