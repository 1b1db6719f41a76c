package mutation

import (
	"bufio"
	"bytes"
	"fmt"
	"hash/fnv"
	"regexp"
	"sort"
	"strings"
)

// Sample returns up to n of sites that accept takes, chosen by seed: the
// sites in the order of a hash of (seed, key), the first n accepted. A
// site's place depends on its key and the seed alone, so the same seed
// over the same source picks the same mutants, and an edit elsewhere
// changes the sample only where it adds or removes sites.
func Sample(sites []Site, seed int64, n int, accept func(Site) bool) []Site {
	type ranked struct {
		h uint64
		s Site
	}
	r := make([]ranked, len(sites))
	for i, s := range sites {
		h := fnv.New64a()
		fmt.Fprintf(h, "%d\x00%s", seed, s.Key())
		r[i] = ranked{h.Sum64(), s}
	}
	sort.SliceStable(r, func(i, j int) bool { return r[i].h < r[j].h })
	var out []Site
	for _, x := range r {
		if len(out) == n {
			break
		}
		if accept == nil || accept(x.s) {
			out = append(out, x.s)
		}
	}
	return out
}

// Verdict classes.
const (
	// Equivalent: the mutant behaves as the original does.
	Equivalent = "equivalent"
	// SRDFree: the mutant changes only what the SRD leaves free.
	SRDFree = "srd-free"
)

// Verdict explains a survivor: a line "KEY  CLASS  REASON" of a verdicts
// file.
type Verdict struct {
	Key, Class, Reason string
	Line               int
}

var verdictLine = regexp.MustCompile(`^(.*?" #\d+)\s+(\S+)\s*(.*)$`)

// ParseVerdicts reads a verdicts file: one "KEY  equivalent|srd-free
// REASON" per line, blank lines and lines starting with "#" ignored. A line
// without a reason, with another class or a key given twice is an error
// naming the line.
func ParseVerdicts(name string, data []byte) (map[string]Verdict, error) {
	out := map[string]Verdict{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := verdictLine.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("%s:%d: want KEY (ending in #N) CLASS REASON", name, n)
		}
		v := Verdict{Key: m[1], Class: m[2], Reason: strings.TrimSpace(m[3]), Line: n}
		if v.Class != Equivalent && v.Class != SRDFree {
			return nil, fmt.Errorf("%s:%d: class %q: want %s or %s", name, n, v.Class, Equivalent, SRDFree)
		}
		if v.Reason == "" {
			return nil, fmt.Errorf("%s:%d: %s has no reason: say why the mutant is %s (the SRD sentence, or why behaviour is the same)", name, n, v.Key, v.Class)
		}
		if prev, ok := out[v.Key]; ok {
			return nil, fmt.Errorf("%s:%d: %s is already judged on line %d", name, n, v.Key, prev.Line)
		}
		out[v.Key] = v
	}
	return out, sc.Err()
}

// FormatVerdict is the verdicts-file line for a site.
func FormatVerdict(s Site, class, reason string) string {
	return s.Key() + "  " + class + "  " + reason
}
