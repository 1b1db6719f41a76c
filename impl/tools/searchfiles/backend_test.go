package searchfiles

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/forge-conform/forge-conform/impl/internal/tooltest"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// externalBackends returns the external backends whose binary is
// installed; the equivalence tests compare them with native.
func externalBackends(tb testing.TB) []string {
	tb.Helper()
	var out []string
	for _, b := range []string{backendRg, backendUgrep} {
		if _, err := exec.LookPath(binaries[b].name); err == nil {
			out = append(out, b)
		} else {
			tb.Logf("%s not installed: backend %s not compared", binaries[b].name, b)
		}
	}
	if len(out) == 0 {
		tb.Skip("neither rg nor ugrep is installed")
	}
	return out
}

func backendConfig(backend, extra string) string {
	if extra != "" {
		extra = "," + extra
	}
	return `{"search_files":{"backend":"` + backend + `"` + extra + `}}`
}

// sameAsNative runs args with every backend and requires byte-identical
// outputs, or the same error. It reports whether a backend rejected the
// query as I-SF-22 allows (then the others are still compared).
func sameAsNative(t *testing.T, root, args, extraConfig string, backends []string) {
	t.Helper()
	want, _, werr := run(t, root, tooltest.Call{Args: args, Config: backendConfig(backendNative, extraConfig)})
	for _, b := range backends {
		got, _, err := run(t, root, tooltest.Call{Args: args, Config: backendConfig(b, extraConfig)})
		if err != nil && werr == nil {
			if te := tooltest.AsError(t, err); te.Kind == toolerr.BadArgs && strings.Contains(te.Message, "I-SF-22") {
				continue // a query the backend's engine cannot reproduce
			}
		}
		if fmt.Sprint(werr) != fmt.Sprint(err) || got != want {
			t.Errorf("%s with backend %s: %s", args, b, firstDiff(got, want, err, werr))
		}
	}
}

// firstDiff describes where two outputs part.
func firstDiff(got, want string, err, werr error) string {
	if err != nil || werr != nil {
		return fmt.Sprintf("error %v, want %v", err, werr)
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-200)
	return fmt.Sprintf("outputs differ at byte %d:\n got ...%s\nwant ...%s", i, got[from:min(len(got), i+200)], want[from:min(len(want), i+200)])
}

// equivalenceTree holds the texts the table below searches: CRLF, bare CR,
// a BOM, no final newline, Unicode with case-folding traps, a long line,
// many matches per line, binary and invalid UTF-8 files, and enough files
// to make several batches.
func equivalenceTree(t *testing.T) string {
	long := strings.Repeat("abc def ", 20000) + "needle" + strings.Repeat(" x", 5000)
	nodes := []tooltest.Node{
		tooltest.File("a.txt", "foo bar\nFoo BAR baz\nfoofoofoo\n\nlast line no newline foo"),
		tooltest.File("crlf.txt", "one foo\r\ntwo Foo\r\n\r\nthree\r\r\nfour\rfoo\r\nend\r"),
		tooltest.File("crlf2.txt", "foo\r\nfoo\r"),
		tooltest.File("bom.txt", "\ufefffoo at start\nsecond foo\n"),
		tooltest.File("uni.txt", "KELVIN \u212a k K\nLONG \u017f s S\nstra\u00dfe STRASSE ss\ncaf\u00e9 CAF\u00c9 \u00e9t\u00e9\n\u0130stanbul i\u0307 \u0131 I\n\u03a3\u03c3\u03c2 sigma\n\U0001F600 emoji \U0001F600x\n"),
		tooltest.File("long.txt", long+"\nshort needle\n"+long),
		tooltest.File("many.txt", strings.Repeat("aa ", 3000)+"\n"+strings.Repeat("a", 999)+"\n"),
		tooltest.File("words.go", "package main\n\nfunc main() {\n\tfmt.Println(\"hello, world\") // TODO\n}\n\nfunc  mainly(x int) int { return x*2 }\n"),
		tooltest.File("bin.dat", "foo\x00bar"),
		tooltest.File("bad.txt", "foo \xff\xfe"),
		tooltest.File("empty.txt", ""),
		tooltest.File("nl.txt", "\n\n\n"),
		tooltest.File("dashes.txt", "-e --regexp=x\n--fixed-strings -F\n"),
	}
	nodes = append(nodes, tooltest.Dir("d"))
	for i := range 40 {
		nodes = append(nodes, tooltest.File(fmt.Sprintf("d/f%02d.txt", i), strings.Repeat(fmt.Sprintf("line %d foo\n", i), i)))
	}
	return tooltest.Build(t, nodes...)
}

var equivalenceQueries = []string{
	`"query":"foo"`,
	`"query":"foo","case":"sensitive"`,
	`"query":"Foo"`,
	`"query":"foo","case":"insensitive"`,
	`"query":"FOO","case":"insensitive"`,
	`"query":"k","case":"insensitive"`,
	`"query":"\u212a","case":"insensitive"`,
	`"query":"s","case":"insensitive"`,
	`"query":"\u00c9T\u00c9","case":"insensitive"`,
	`"query":"\u03c3","case":"insensitive"`,
	`"query":"ss","case":"insensitive"`,
	`"query":"aa"`,
	`"query":"a","max_matches_per_file":7`,
	`"query":"needle","context_lines":2`,
	`"query":"foo","context_lines":3`,
	`"query":"\r"`,
	`"query":"foo\nbar"`,
	`"query":"\ufeff"`,
	`"query":" "`,
	`"query":"-e"`,
	`"query":"--fixed-strings"`,
	`"query":"a.b"`,
	`"query":"x*2"`,
	`"query":"\ud83d\ude00"`,
	`"query":"foo","max_results":5`,
	`"query":"foo","max_files":3`,
	`"query":"foo","include_globs":["d/**"],"max_results":7`,
	`"query":"foo","mode":"regex"`,
	`"query":"^foo","mode":"regex"`,
	`"query":"foo$","mode":"regex"`,
	`"query":"\\Afoo|foo\\z","mode":"regex"`,
	`"query":"(?m)^\\s*$","mode":"regex"`,
	`"query":"^$","mode":"regex"`,
	`"query":"\\bfoo\\b","mode":"regex"`,
	`"query":"\\Bfoo","mode":"regex"`,
	`"query":"\u00e9\\b","mode":"regex"`,
	`"query":"\\bt","mode":"regex"`,
	`"query":"[a-c]+","mode":"regex"`,
	`"query":"[^a-z ]+","mode":"regex"`,
	`"query":"[[:upper:]]{2,}","mode":"regex"`,
	`"query":"\\p{Greek}+","mode":"regex"`,
	`"query":"\\pL+","mode":"regex","case":"insensitive"`,
	`"query":"\\w+","mode":"regex"`,
	`"query":"\\d","mode":"regex"`,
	`"query":"\\s+","mode":"regex"`,
	`"query":"\\S+$","mode":"regex"`,
	`"query":".","mode":"regex","max_matches_per_file":50`,
	`"query":"(?s).","mode":"regex","max_matches_per_file":50`,
	`"query":"a.c","mode":"regex"`,
	`"query":"fo+|foo","mode":"regex"`,
	`"query":"a|ab|abc","mode":"regex"`,
	`"query":"(a|ab)(c|bcd)","mode":"regex"`,
	`"query":"a{2,3}","mode":"regex"`,
	`"query":"a{2,3}?","mode":"regex"`,
	`"query":"(?U)a+","mode":"regex"`,
	`"query":"f.*?o","mode":"regex"`,
	`"query":"f.*o","mode":"regex"`,
	`"query":"(?i)k","mode":"regex","case":"sensitive"`,
	`"query":"(?i:S)TRASSE","mode":"regex","case":"sensitive"`,
	`"query":"[k]","mode":"regex","case":"insensitive"`,
	`"query":"\\x{212A}","mode":"regex","case":"insensitive"`,
	`"query":"STRA\\x{DF}E","mode":"regex","case":"insensitive"`,
	`"query":"func\\s+main\\(","mode":"regex"`,
	`"query":"\\Qx*2\\E","mode":"regex"`,
	`"query":"[\\r]","mode":"regex"`,
	`"query":"\\r$","mode":"regex"`,
	`"query":"o\\n","mode":"regex"`,
	`"query":"[^x]\\n?","mode":"regex","max_matches_per_file":30`,
	`"query":"x*","mode":"regex","max_matches_per_file":40`,
	`"query":"a*","mode":"regex","max_matches_per_file":40`,
	`"query":"\\b","mode":"regex","max_matches_per_file":40`,
	`"query":"(|a)*","mode":"regex"`,
	`"query":"(a*)+b","mode":"regex"`,
	`"query":"needle","mode":"regex","context_lines":1`,
	`"query":"-e|--","mode":"regex"`,
}

// TestBackendsEquivalent is CFG-SF-01's promise read by I-SF-15: for each
// query of the table, rg and ugrep give the native backend's output byte
// for byte (or reject the query as I-SF-22 allows).
func TestBackendsEquivalent(t *testing.T) {
	backends := externalBackends(t)
	root := equivalenceTree(t)
	for _, q := range equivalenceQueries {
		for _, hidden := range []string{"false"} {
			sameAsNative(t, root, `{"path":".",`+q+`,"include_hidden":`+hidden+`}`, "", backends)
		}
	}
	// A small budget: output truncation sits in the shared code.
	sameAsNative(t, root, `{"path":".","query":"foo"}`, "", backends)
	out, _, _ := run(t, root, tooltest.Call{Args: `{"path":".","query":"foo"}`, Budget: 900, Config: backendConfig(backendRg, "")})
	if !strings.Contains(out, `"max_output_bytes"`) {
		t.Errorf("budget 900: %s", out)
	}
}

// TestBackendsRejections: the queries I-SF-22 rejects, and the ones it
// must not.
func TestBackendsRejections(t *testing.T) {
	for _, c := range []struct {
		backend, mode, query string
		fold                 bool
		reject               bool
	}{
		{backendRg, modeRegex, `x*`, false, false},
		{backendUgrep, modeRegex, `x*`, false, true},
		{backendUgrep, modeRegex, `^`, false, true},
		{backendUgrep, modeRegex, `\b`, false, true},
		{backendUgrep, modeRegex, `a(|b)c`, false, false},
		{backendRg, modeRegex, `(|a)*`, false, true},
		{backendRg, modeRegex, `(a*)+b`, false, true},
		{backendRg, modeRegex, `(a?){3}`, false, true},
		{backendRg, modeRegex, `(ab?)+`, false, false},
		{backendRg, modeRegex, `\b`, false, true},
		{backendRg, modeRegex, `\bx`, false, false},
		{backendRg, modeRegex, `$^`, false, true},
		{backendRg, modeRegex, `$((?:^|.))($^)`, false, true},
		{backendRg, modeRegex, `(a$|^b)`, false, false},
		{backendRg, modeRegex, `^$`, false, false},
		{backendUgrep, modeExact, `a`, true, false},
	} {
		_, err := newExtQuery(c.backend, c.mode, c.query, c.fold)
		if (err != nil) != c.reject {
			t.Errorf("%s %s %q: err %v, want rejected %v", c.backend, c.mode, c.query, err, c.reject)
		}
	}
}

// TestBackendsRandom compares the backends on random patterns over random
// lines: a differential test of the pattern translation (I-SF-21).
func TestBackendsRandom(t *testing.T) {
	backends := externalBackends(t)
	seed := uint64(1)
	if v, err := strconv.ParseUint(os.Getenv("SEARCHFILES_RANDOM_SEED"), 10, 64); err == nil {
		seed = v
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	alphabet := []string{"a", "b", "A", "B", " ", "k", "K", "\u212a", "\u00e9", "\u00c9", "_", "1", "-", "\r", "\u017f", "s", "\U0001F600"}
	var lines []string
	for range 300 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		lines = append(lines, b.String())
	}
	root := tooltest.Build(t, tooltest.File("r.txt", strings.Join(lines, "\n")))
	atoms := []string{"a", "b", "A", "k", "s", "\u00e9", ".", `\w`, `\W`, `\d`, `\s`, `\S`, `[ab]`, `[^a]`, `[a-z]`, `[[:alpha:]]`, `\pL`, `\PL`, `\b`, `\B`, `^`, `$`, `\x{212A}`, `(?i:k)`, `(?i:\x{E9})`, " ", "-", `\r`}
	var gen func(depth int) string
	gen = func(depth int) string {
		if depth == 0 || rng.IntN(3) == 0 {
			return atoms[rng.IntN(len(atoms))]
		}
		switch rng.IntN(6) {
		case 0:
			return gen(depth-1) + gen(depth-1)
		case 1:
			return "(?:" + gen(depth-1) + "|" + gen(depth-1) + ")"
		case 2:
			return "(?:" + gen(depth-1) + ")" + []string{"*", "+", "?", "{1,2}", "*?", "+?", "{2}"}[rng.IntN(7)]
		case 3:
			return "(" + gen(depth-1) + ")"
		default:
			return gen(depth-1) + gen(depth-1) + gen(depth-1)
		}
	}
	n := 120
	if v, err := strconv.Atoi(os.Getenv("SEARCHFILES_RANDOM_N")); err == nil {
		n = v
	}
	if testing.Short() {
		n = 20
	}
	for range n {
		pat := gen(3)
		q := strconv.Quote(pat)
		cases := []string{"sensitive", "insensitive"}
		sameAsNative(t, root, `{"path":".","mode":"regex","query":`+q+`,"case":"`+cases[rng.IntN(2)]+`","max_matches_per_file":1000}`, `"max_matches_per_file":1000`, backends)
	}
}

// fakeBinary writes an executable shell script named name into a new
// directory, which becomes the whole PATH.
func fakeBinary(t *testing.T, name, script string) string {
	t.Helper()
	dir := t.TempDir()
	if name != "" {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	return dir
}

// TestBinaryCheck is T-SF-14 / I-SF-15: a missing, unreadable or too old
// binary fails the call with ExecutionFailed "binary check failed".
func TestBinaryCheck(t *testing.T) {
	root := tooltest.Build(t, tooltest.File("a.txt", "foo\n"))
	for _, c := range []struct {
		name, backend, bin, script, words string
	}{
		{"rg missing", backendRg, "", "", "not found"},
		{"ugrep missing", backendUgrep, "", "", "not found"},
		{"rg too old", backendRg, "rg", `echo "ripgrep 12.1.1"`, "older than the minimum 13.0.0"},
		{"ugrep too old", backendUgrep, "ugrep", `echo "ugrep 3.10.9 x86_64-pc-linux-gnu"`, "older than the minimum 3.11.0"},
		{"ugrep 2", backendUgrep, "ugrep", `echo "ugrep 2.5"`, "older than the minimum"},
		{"rg not rg", backendRg, "rg", `echo "grep (GNU grep) 3.8"`, "cannot read the version"},
		{"rg fails", backendRg, "rg", `exit 3`, "--version` failed"},
		{"rg not executable", backendRg, "rg", "", "not found"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := fakeBinary(t, c.bin, c.script)
			if c.name == "rg not executable" {
				_ = os.Remove(filepath.Join(dir, "rg"))
				if err := os.WriteFile(filepath.Join(dir, "rg"), []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, _, err := run(t, root, tooltest.Call{Args: `{"path":".","query":"foo"}`, Config: backendConfig(c.backend, "")})
			tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "binary check failed", c.words)
		})
	}
	// Validation comes first (I-SF-02): fuzzy is BadArgs even without the
	// binary.
	fakeBinary(t, "", "")
	for _, b := range []string{backendRg, backendUgrep} {
		_, _, err := run(t, root, tooltest.Call{Args: `{"path":".","query":"foo","mode":"fuzzy"}`, Config: backendConfig(b, "")})
		tooltest.ErrorKind(t, err, toolerr.BadArgs, "fuzzy")
		_, _, err = run(t, root, tooltest.Call{Args: `{"path":".","query":"foo"}`, Config: backendConfig(b, `"mode_default":"fuzzy"`)})
		tooltest.ErrorKind(t, err, toolerr.BadArgs, "fuzzy")
	}
}

// TestBinaryCheckCache: a Tool from New checks a binary once, and again
// when the file changes.
func TestBinaryCheckCache(t *testing.T) {
	dir := fakeBinary(t, "rg", `echo "ripgrep 13.0.0"; echo x >> "$0.count"`)
	c := New().bins
	for range 3 {
		if _, err := c.checkBackend(context.Background(), backendRg, false, os.Getenv("PATH")); err != nil {
			t.Fatal(err)
		}
	}
	count := func() int {
		b, _ := os.ReadFile(filepath.Join(dir, "rg.count"))
		return strings.Count(string(b), "x")
	}
	if n := count(); n != 1 {
		t.Errorf("--version ran %d times, want 1", n)
	}
	if err := os.WriteFile(filepath.Join(dir, "rg"), []byte("#!/bin/sh\necho 'ripgrep 11.0.0'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := c.checkBackend(context.Background(), backendRg, false, os.Getenv("PATH")); err == nil {
		t.Errorf("a replaced, too old binary passed the cached check")
	}
	var zero *binChecker // Tool{}: no cache, checks every time
	if _, err := zero.checkBackend(context.Background(), backendRg, false, os.Getenv("PATH")); err == nil {
		t.Errorf("too old binary passed")
	}
}

// TestBackendChildBounded: a binary that hangs is killed when the call's
// context ends, and one that prints without end is stopped at the output
// bound.
func TestBackendChildBounded(t *testing.T) {
	root := tooltest.Build(t, tooltest.File("a.txt", "foo\n"))
	fakeBinary(t, "rg", `if [ "$1" = --version ]; then echo "ripgrep 13.0.0"; exit 0; fi; exec /bin/sleep 30`)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err := run(t, root, tooltest.Call{Args: `{"path":".","query":"foo"}`, Config: backendConfig(backendRg, ""), Context: ctx})
	tooltest.ErrorKind(t, err, toolerr.Timeout)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the call took %v after its context ended", d)
	}

	fakeBinary(t, "rg", `if [ "$1" = --version ]; then echo "ripgrep 13.0.0"; exit 0; fi; cat >/dev/null; while :; do echo "1:x"; done`)
	_, _, err = run(t, root, tooltest.Call{Args: `{"path":".","query":"foo"}`, Config: backendConfig(backendRg, "")})
	tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "rg backend failed")

	fakeBinary(t, "ugrep", `if [ "$1" = --version ]; then echo "ugrep 3.11.2"; exit 0; fi; echo "bad pattern" >&2; exit 2`)
	_, _, err = run(t, root, tooltest.Call{Args: `{"path":".","query":"foo"}`, Config: backendConfig(backendUgrep, "")})
	tooltest.ErrorKind(t, err, toolerr.ExecutionFailed, "ugrep backend failed", "bad pattern")
}
