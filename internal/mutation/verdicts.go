package mutation

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Verdict explains a survivor: a line "KEY  CLASS  REASON" of a verdicts
// file. A key with a wildcard is a pattern, so that one line judges every
// site of a shape: a final "#*" stands for any ordinal (every occurrence of
// one mutation in a function), and any other "*" for any text ("rule: *
// #*", every mutation of one function; "if-*", both if-true and if-false;
// "r.v.Look.* != nil" inside the quoted code), but for a "*" right after
// "(", which is itself: a pointer receiver "(*T).M", or "(*p)" in code. So
// a site's key copied as it is, with a "*" of its code, is a pattern that
// matches that site (and any of the same function and operator whose code
// differs only there). The file part of a pattern is literal: a pattern
// never spans files.
type Verdict struct {
	Key, Class, Reason string
	// File and Line say where the verdict is written.
	File string
	Line int
}

// Pos is "file:line", where the verdict is written.
func (v Verdict) Pos() string { return fmt.Sprintf("%s:%d", v.File, v.Line) }

// Pattern says whether the verdict's key is a pattern.
func (v Verdict) Pattern() bool {
	parts, ordinal := splitPattern(v.Key)
	return ordinal || len(parts) > 1
}

// splitPattern cuts a key at its "*" wildcards (see Verdict) into the
// literal texts between them, and says whether it ends in "#*".
func splitPattern(key string) (literals []string, ordinal bool) {
	body, ordinal := strings.CutSuffix(key, "#*")
	start := 0
	for i := 0; i < len(body); i++ {
		if body[i] == '*' && (i == 0 || body[i-1] != '(') {
			literals = append(literals, body[start:i])
			start = i + 1
		}
	}
	return append(literals, body[start:]), ordinal
}

// Verdicts are a verdicts file read: the lines naming one site, and the
// patterns, tried in file order when no line names a site.
type Verdicts struct {
	exact    map[string]Verdict
	patterns []pattern
	seen     map[string]Verdict
}

type pattern struct {
	Verdict
	re *regexp.Regexp
}

// Lookup returns the verdict of a site's key: its own line, or else the
// first pattern that matches it.
func (vs Verdicts) Lookup(key string) (Verdict, bool) {
	if v, ok := vs.exact[key]; ok {
		return v, true
	}
	for _, p := range vs.patterns {
		if p.re.MatchString(key) {
			return p.Verdict, true
		}
	}
	return Verdict{}, false
}

// Matches says whether verdict v judges key (its own key, or a pattern
// that matches it).
func (vs Verdicts) Matches(v Verdict, key string) bool { return vs.Matcher(v)(key) }

// Matcher returns the test of whether verdict v judges a key, its pattern
// looked up once (for a test over many keys).
func (vs Verdicts) Matcher(v Verdict) func(key string) bool {
	if v.Pattern() {
		for _, p := range vs.patterns {
			if p.File == v.File && p.Line == v.Line {
				return p.re.MatchString
			}
		}
		return func(string) bool { return false }
	}
	return func(key string) bool { return key == v.Key }
}

// All returns every verdict, in the order of the files and their lines.
func (vs Verdicts) All() []Verdict {
	out := make([]Verdict, 0, len(vs.exact)+len(vs.patterns))
	for _, v := range vs.exact {
		out = append(out, v)
	}
	for _, p := range vs.patterns {
		out = append(out, p.Verdict)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Line < out[j].Line
	})
	return out
}

// Len is the number of lines.
func (vs Verdicts) Len() int { return len(vs.exact) + len(vs.patterns) }

var verdictLine = regexp.MustCompile(`^(.*?["*] #(?:\d+|\*))\s+(\S+)\s*(.*)$`)

// ReadVerdicts reads the verdicts at path: one file, or a directory whose
// *.txt files (in name order) each hold verdicts, one package's say.
func ReadVerdicts(path string) (Verdicts, error) {
	info, err := os.Stat(path)
	if err != nil {
		return Verdicts{}, err
	}
	files := []string{path}
	if info.IsDir() {
		if files, err = filepath.Glob(filepath.Join(path, "*.txt")); err != nil {
			return Verdicts{}, err
		}
		sort.Strings(files)
	}
	vs := Verdicts{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return Verdicts{}, err
		}
		if err := vs.parse(f, raw); err != nil {
			return Verdicts{}, err
		}
	}
	return vs, nil
}

// ParseVerdicts reads a verdicts file: one "KEY  equivalent|srd-free
// REASON" per line, blank lines and lines starting with "#" ignored. A line
// without a reason, with another class, a key given twice or a pattern
// whose file part is not literal is an error naming the line.
func ParseVerdicts(name string, data []byte) (Verdicts, error) {
	vs := Verdicts{}
	if err := vs.parse(name, data); err != nil {
		return Verdicts{}, err
	}
	return vs, nil
}

func (vs *Verdicts) parse(name string, data []byte) error {
	if vs.exact == nil {
		vs.exact, vs.seen = map[string]Verdict{}, map[string]Verdict{}
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := verdictLine.FindStringSubmatch(line)
		if m == nil {
			return fmt.Errorf("%s:%d: want KEY (ending in #N, or #* in a pattern) CLASS REASON", name, n)
		}
		v := Verdict{Key: m[1], Class: m[2], Reason: strings.TrimSpace(m[3]), File: name, Line: n}
		if v.Class != Equivalent && v.Class != SRDFree {
			return fmt.Errorf("%s: class %q: want %s or %s", v.Pos(), v.Class, Equivalent, SRDFree)
		}
		if v.Reason == "" {
			return fmt.Errorf("%s: %s has no reason: say why the mutant is %s (the SRD sentence, or why behaviour is the same)", v.Pos(), v.Key, v.Class)
		}
		if prev, ok := vs.seen[v.Key]; ok {
			return fmt.Errorf("%s: %s is already judged at %s", v.Pos(), v.Key, prev.Pos())
		}
		vs.seen[v.Key] = v
		if !v.Pattern() {
			vs.exact[v.Key] = v
			continue
		}
		literals, ordinal := splitPattern(v.Key)
		if file, _, ok := strings.Cut(v.Key, ": "); !ok || !strings.HasPrefix(literals[0], file+": ") {
			return fmt.Errorf("%s: pattern %s: name its file literally (a pattern judges sites of one file)", v.Pos(), v.Key)
		}
		for i := range literals {
			literals[i] = regexp.QuoteMeta(literals[i])
		}
		expr := "^" + strings.Join(literals, ".*")
		if ordinal {
			expr += `#\d+`
		}
		vs.patterns = append(vs.patterns, pattern{v, regexp.MustCompile(expr + "$")})
	}
	return sc.Err()
}
