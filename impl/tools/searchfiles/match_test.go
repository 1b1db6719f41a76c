package searchfiles

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/impl/internal/tooltest"
)

func TestModesAndCase(t *testing.T) {
	root := tooltest.Build(t,
		tooltest.File("a.txt", "Alpha alpha ALPHA\nfoo.bar fooXbar\naaaa\n"),
		tooltest.File("k.txt", "\u212Aelvin kelvin KELVIN\nſtraße STRASSE\n"),
	)
	tests := []struct {
		name, args string
		want       []string
	}{
		{"exact smart lower is insensitive", `{"path":".","query":"alpha"}`,
			[]string{"a.txt:1:1:Alpha", "a.txt:1:7:alpha", "a.txt:1:13:ALPHA"}},
		{"exact smart upper is sensitive", `{"path":".","query":"Alpha"}`, []string{"a.txt:1:1:Alpha"}},
		{"exact sensitive", `{"path":".","query":"alpha","case":"sensitive"}`, []string{"a.txt:1:7:alpha"}},
		{"exact insensitive upper query", `{"path":".","query":"ALPHA","case":"insensitive"}`,
			[]string{"a.txt:1:1:Alpha", "a.txt:1:7:alpha", "a.txt:1:13:ALPHA"}},
		{"exact is literal (FR-SF-SRC-01)", `{"path":".","query":"foo.bar"}`, []string{"a.txt:2:1:foo.bar"}},
		{"non-overlapping occurrences", `{"path":".","query":"aa"}`, []string{"a.txt:3:1:aa", "a.txt:3:3:aa"}},
		// Simple case folding: K (U+212A) folds with k, ſ (U+017F) with s;
		// ß does not fold to "ss".
		{"Kelvin sign folds with k", `{"path":".","query":"kelvin"}`,
			[]string{"k.txt:1:1:\u212Aelvin", "k.txt:1:10:kelvin", "k.txt:1:17:KELVIN"}},
		{"long s folds with s", `{"path":".","query":"stra"}`, []string{"k.txt:2:1:ſtra", "k.txt:2:10:STRA"}},
		{"sharp s is not ss", `{"path":".","query":"straße","case":"insensitive"}`, []string{"k.txt:2:1:ſtraße"}},
		{"regex", `{"path":".","query":"foo.bar","mode":"regex"}`, []string{"a.txt:2:1:foo.bar", "a.txt:2:9:fooXbar"}},
		{"regex smart: \\S and \\W are not upper case", `{"path":".","query":"alpha\\S*","mode":"regex"}`,
			[]string{"a.txt:1:1:Alpha", "a.txt:1:7:alpha", "a.txt:1:13:ALPHA"}},
		{"regex smart: a literal upper case letter", `{"path":".","query":"AL\\w+","mode":"regex"}`, []string{"a.txt:1:13:ALPHA"}},
		{"regex inline flag", `{"path":".","query":"(?i)Alpha","mode":"regex"}`,
			[]string{"a.txt:1:1:Alpha", "a.txt:1:7:alpha", "a.txt:1:13:ALPHA"}},
		{"regex alternation under (?i)", `{"path":".","query":"xbar|alpha$","mode":"regex","case":"insensitive"}`,
			[]string{"a.txt:1:13:ALPHA", "a.txt:2:12:Xbar"}},
		{"regex anchors are per line", `{"path":".","query":"^a+$","mode":"regex"}`, []string{"a.txt:3:1:aaaa"}},
		{"regex cannot span lines", `{"path":".","query":"ALPHA\\nfoo","mode":"regex"}`, []string{}},
		{"exact cannot span lines", `{"path":".","query":"ALPHA\nfoo"}`, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := mustRun(t, root, tooltest.Call{Args: tc.args})
			if got := hits(t, out); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestFoldFastPath checks that the byte-wise case-insensitive search finds
// exactly what the (?i) regular expression finds.
func TestFoldFastPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("aAbBxX.\r\n ")
	for range 2000 {
		q := make([]byte, 1+rng.IntN(3))
		for i := range q {
			q[i] = alphabet[rng.IntN(6)]
		}
		line := make([]byte, rng.IntN(30))
		for i := range line {
			line[i] = alphabet[rng.IntN(len(alphabet)-1)]
		}
		lower, ok := asciiFoldable(string(q))
		if !ok {
			t.Fatalf("%q not foldable", q)
		}
		slow := newRegexMatcher(regexp.MustCompile("(?i)"+regexp.QuoteMeta(string(q)))).find(line, 100, nil, nil)
		for rare := range lower { // whichever byte the search stops at
			m := foldASCIIMatcher{q: lower, rare: rare}
			if fast := m.find(line, 100, nil, nil); !reflect.DeepEqual(fast, slow) {
				t.Fatalf("query %q (rare %d) line %q: fast %v, regexp %v", q, rare, line, fast, slow)
			}
			if got, want := m.next(line, 0), strings.Index(strings.ToLower(string(line)), string(lower)); got != want {
				t.Fatalf("query %q (rare %d) line %q: next %d, want %d", q, rare, line, got, want)
			}
		}
	}
	for _, q := range []string{"k", "S", "é", "ab\u212A"} {
		if _, ok := asciiFoldable(q); ok {
			t.Errorf("%q must not take the ASCII path", q)
		}
	}
}

func TestFuzzy(t *testing.T) {
	tests := []struct {
		query, line string
		fold        bool
		d, s, e     int // in characters
	}{
		{"abc", "abc", false, 0, 0, 3},
		{"abc", "xabd", false, 1, 1, 3},          // "ab" ends first among d=1
		{"hello", "help hello", false, 0, 5, 10}, // exact occurrence wins
		{"func main", "func  main()", false, 1, 0, 10},
		{"ab", "xb", false, 1, 1, 2}, // tie on starts: the shortest, "b"
		{"zz", "ab", false, 2, 0, 0}, // nothing better than the empty substring
		{"zz", "", false, 2, 0, 0},
		{"héllo", "a hëllo", false, 1, 2, 7}, // characters, not bytes
		{"hello", "HELLO", true, 0, 0, 5},
		{"hello", "HELLO", false, 5, 0, 0},
	}
	for _, tc := range tests {
		q, l := []rune(tc.query), []rune(tc.line)
		if tc.fold {
			for i := range q {
				q[i] = foldRune(q[i])
			}
			for i := range l {
				l[i] = foldRune(l[i])
			}
		}
		d, s, e := bestSubstring(q, l, &scratch{})
		if d != tc.d || s != tc.s || e != tc.e {
			t.Errorf("%q in %q: d=%d s=%d e=%d, want %d %d %d", tc.query, tc.line, d, s, e, tc.d, tc.s, tc.e)
		}
	}

	root := tooltest.Build(t,
		tooltest.File("f.txt", "hello\nhellp\nhelp\nHello\n\nfunc  main()\nh\u00e9llo w\n"),
	)
	run := func(args, config string) []string {
		out := mustRun(t, root, tooltest.Call{Args: args, Config: config})
		var got []string
		for _, m := range decode(t, out).Matches {
			got = append(got, fmt.Sprintf("%d:%d:%s:%v", m.Line, m.Column, m.MatchText, *m.Score))
		}
		return got
	}
	// Default threshold 0.8 is inclusive; smart case: "hello" ignores case.
	got := run(`{"path":".","query":"hello","mode":"fuzzy"}`, "")
	want := []string{"1:1:hello:1", "2:1:hell:0.8", "4:1:Hello:1", "7:1:héllo:0.8"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("threshold 0.8: got %q, want %q", got, want)
	}
	// Upper case in the query: case-sensitive, so "hello" is one edit away.
	got = run(`{"path":".","query":"Hello","mode":"fuzzy"}`, "")
	want = []string{"1:2:ello:0.8", "4:1:Hello:1"} // the shortest substring: "ello"
	if !reflect.DeepEqual(got, want) {
		t.Errorf("smart upper: got %q, want %q", got, want)
	}
	// CFG-SF-04: the configured threshold; 0 keeps every line, empty ones too.
	got = run(`{"path":".","query":"zz","mode":"fuzzy"}`, `{"search_files":{"fuzzy_threshold":0}}`)
	if len(got) != 7 || got[4] != "5:1::0" {
		t.Errorf("threshold 0: %q", got)
	}
	got = run(`{"path":".","query":"func main","mode":"fuzzy"}`, `{"search_files":{"fuzzy_threshold":1}}`)
	if len(got) != 0 {
		t.Errorf("threshold 1: %q", got)
	}
	out := mustRun(t, root, tooltest.Call{Args: `{"path":".","query":"func main","mode":"fuzzy"}`})
	if !strings.Contains(out, `"column":1,"match_text":"func  main","line_text":"func  main()","before":[],"after":[],"score":0.8888888888888888}`) {
		t.Errorf("fuzzy match object: %s", out)
	}
}

// TestAppendFloat checks the serde_json (ryu) rendering of scores.
func TestAppendFloat(t *testing.T) {
	tenth := 0.1 // a variable, so that tenth + 0.2 is rounded at run time
	tests := map[float64]string{
		1: "1.0", 0: "0.0", 0.8: "0.8", 0.75: "0.75", 2.0 / 3: "0.6666666666666666", 8.0 / 9: "0.8888888888888888",
		tenth + 0.2: "0.30000000000000004", 1e-5: "0.00001", 1.5e-5: "0.000015", 1e-6: "1e-6", 1.25e-7: "1.25e-7",
		123456: "123456.0", 1e15: "1000000000000000.0", 1e16: "1e16", 1.5e16: "1.5e16", 12.5: "12.5",
		-0.5: "-0.5", math.Copysign(0, -1): "-0.0", 5e-324: "5e-324", math.MaxFloat64: "1.7976931348623157e308",
	}
	for f, want := range tests {
		if got := string(appendFloat(nil, f)); got != want {
			t.Errorf("appendFloat(%v) = %s, want %s", f, got, want)
		}
	}
}

func TestLines(t *testing.T) {
	long := strings.Repeat("a", 1<<20)
	root := tooltest.Build(t,
		tooltest.File("crlf", "l1 x\r\nl2\r\nl3\rx\nlast x"),
		tooltest.File("empty", ""),
		tooltest.File("blank", "a\n\n\nb\n"),
		tooltest.File("long", "start\n"+long+"needle\nend\n"),
		tooltest.File("ctx", "1\n2\n3 m m\n4\n5\n"),
	)
	tests := []struct {
		name, args string
		want       []string
	}{
		{"CRLF and lone CR (I-SF-06)", `{"path":".","query":"x","include_globs":["crlf"]}`,
			[]string{"crlf:1:4:x", "crlf:3:4:x", "crlf:4:6:x"}},
		{"the CR before LF is not part of the line", `{"path":".","query":"x\r","include_globs":["crlf"]}`, []string{}},
		{"a lone CR is", `{"path":".","query":"3\rx","include_globs":["crlf"]}`, []string{"crlf:3:2:3\rx"}},
		{"$ before CRLF", `{"path":".","query":"x$","mode":"regex","include_globs":["crlf"]}`,
			[]string{"crlf:1:4:x", "crlf:3:4:x", "crlf:4:6:x"}},
		{"empty lines match ^$", `{"path":".","query":"^$","mode":"regex","include_globs":["blank","empty"]}`,
			[]string{"blank:2:1:", "blank:3:1:"}},
		{"empty matches (RE2 FindAll)", `{"path":".","query":"q*","mode":"regex","include_globs":["ctx"],"max_depth":1}`,
			[]string{"ctx:1:1:", "ctx:1:2:", "ctx:2:1:", "ctx:2:2:", "ctx:3:1:", "ctx:3:2:", "ctx:3:3:", "ctx:3:4:", "ctx:3:5:", "ctx:3:6:",
				"ctx:4:1:", "ctx:4:2:", "ctx:5:1:", "ctx:5:2:"}},
		{"very long line: byte column", `{"path":".","query":"needle"}`, []string{fmt.Sprintf("long:2:%d:needle", len(long)+1)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := mustRun(t, root, tooltest.Call{Args: tc.args, Budget: 8 << 20})
			if got := hits(t, out); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
	out := mustRun(t, root, tooltest.Call{Args: `{"path":".","query":"needle"}`, Budget: 8 << 20})
	if m := decode(t, out).Matches[0]; m.LineText != long+"needle" {
		t.Errorf("long line_text has %d bytes", len(m.LineText))
	}

	ctxTests := []struct {
		args          string
		before, after [][]string
	}{
		{`{"path":".","query":"m","include_globs":["ctx"],"context_lines":1}`,
			[][]string{{"2"}, {"2"}}, [][]string{{"4"}, {"4"}}},
		{`{"path":".","query":"m","include_globs":["ctx"],"context_lines":9}`,
			[][]string{{"1", "2"}, {"1", "2"}}, [][]string{{"4", "5"}, {"4", "5"}}},
		{`{"path":".","query":"[15]","mode":"regex","include_globs":["ctx"],"context_lines":2}`,
			[][]string{{}, {"3 m m", "4"}}, [][]string{{"2", "3 m m"}, {}}},
		{`{"path":".","query":"x","include_globs":["crlf"],"context_lines":1}`,
			[][]string{{}, {"l2"}, {"l3\rx"}}, [][]string{{"l2"}, {"last x"}, {}}},
		{`{"path":".","query":"b","include_globs":["blank"],"context_lines":2}`,
			[][]string{{"", ""}}, [][]string{{}}},
	}
	for _, tc := range ctxTests {
		o := decode(t, mustRun(t, root, tooltest.Call{Args: tc.args}))
		var before, after [][]string
		for _, m := range o.Matches {
			before, after = append(before, m.Before), append(after, m.After)
		}
		if !reflect.DeepEqual(before, tc.before) || !reflect.DeepEqual(after, tc.after) {
			t.Errorf("%s: before %q after %q, want %q %q", tc.args, before, after, tc.before, tc.after)
		}
	}
}

// TestBinary covers FR-SF-SRC-04 and T-SF-05: a NUL byte or invalid UTF-8
// anywhere in the file skips it, without an error entry.
func TestBinary(t *testing.T) {
	root := tooltest.Build(t,
		tooltest.File("nul", "needle\x00\n"),
		tooltest.File("late", strings.Repeat("text\n", 5000)+"needle \xff\n"),
		tooltest.File("cut", "needle \xe2\x82"),
		tooltest.File("surrogate", "needle \xed\xa0\x80"),
		tooltest.File("utf8", "needle é ✓ 😀\n"),
		tooltest.File("bom", "\ufeffneedle\n"),
	)
	out := mustRun(t, root, tooltest.Call{Args: `{"path":".","query":"needle"}`})
	if got, want := hits(t, out), []string{"bom:1:4:needle", "utf8:1:1:needle"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	o := decode(t, out)
	if o.Stats.FilesScanned != 6 || o.Stats.FilesMatched != 2 || len(o.Errors) != 0 {
		t.Errorf("stats %+v errors %v", o.Stats, o.Errors)
	}
}
