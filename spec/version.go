package spec

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// preambleLines is how far DocumentVersion looks for a Version line.
const preambleLines = 40

var (
	// versionLine is a "**Version:** 1.1" or "Version: 1.1" line.
	versionLine = regexp.MustCompile(`(?mi)^\s*(?:[*_]{0,2})version(?:[*_]{0,2})\s*:\s*(?:[*_]{0,2})\s*v?(\d+(?:\.\d+)*)\b`)
	// titleVersion is "v1.1" (or "v1") in a heading.
	titleVersion = regexp.MustCompile(`\bv(\d+(?:\.\d+)*)\b`)
)

// DocumentVersion returns the version an SRD states of itself, without a
// leading "v": a "version:" member of YAML front matter, else a
// "**Version:** X" line among its first 40 lines, else a "vX[.Y]" in its
// first heading ("Line Patch v1" is "1"). It returns "" when the document
// states none.
func DocumentVersion(text string) string {
	head := text
	if rest, ok := strings.CutPrefix(text, "---\n"); ok {
		if front, _, ok := strings.Cut(rest, "\n---"); ok {
			if m := versionLine.FindStringSubmatch(front); m != nil {
				return m[1]
			}
		}
	}
	// Only the preamble: the first lines, where a title page states it.
	lines := strings.SplitN(head, "\n", preambleLines+1)
	title := ""
	for i, l := range lines {
		if i == preambleLines {
			break
		}
		if strings.HasPrefix(l, "#") {
			if title == "" {
				title = l
			}
			continue
		}
		if m := versionLine.FindStringSubmatch(l); m != nil {
			return m[1]
		}
	}
	if m := titleVersion.FindStringSubmatch(title); m != nil {
		return m[1]
	}
	return ""
}

// CompareVersions compares dotted versions numerically ("1.12" > "1.2";
// a missing part counts as 0). It returns -1, 0 or +1, and an error that
// names the version that is not dotted numbers.
func CompareVersions(a, b string) (int, error) {
	pa, err := versionParts(a)
	if err != nil {
		return 0, err
	}
	pb, err := versionParts(b)
	if err != nil {
		return 0, err
	}
	for i := 0; i < max(len(pa), len(pb)); i++ {
		var x, y int
		if i < len(pa) {
			x = pa[i]
		}
		if i < len(pb) {
			y = pb[i]
		}
		switch {
		case x < y:
			return -1, nil
		case x > y:
			return 1, nil
		}
	}
	return 0, nil
}

func versionParts(v string) ([]int, error) {
	var out []int
	for _, p := range strings.Split(strings.TrimPrefix(v, "v"), ".") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("version %q: want dotted numbers such as 1.2", v)
		}
		out = append(out, n)
	}
	return out, nil
}

// topVersion is the catalog's own "version" member (two-space indent).
var topVersion = regexp.MustCompile(`(?m)^  "version": "[^"\n]*"`)

// documentMember is the catalog's "document" member line.
var documentMember = regexp.MustCompile(`(?m)^  "document": "[^"\n]*",\n`)

// RewriteVersion returns a catalog file (two-space indented) with its
// top-level "version" set to v, inserted after "document" when absent;
// every other byte stays as it was.
func RewriteVersion(file []byte, v string) ([]byte, error) {
	q := strconv.Quote(v)
	if loc := topVersion.FindIndex(file); loc != nil {
		return append(append(append([]byte{}, file[:loc[0]]...), `  "version": `+q...), file[loc[1]:]...), nil
	}
	loc := documentMember.FindIndex(file)
	if loc == nil {
		return nil, fmt.Errorf("rewrite version: no top-level \"document\" member on a line of its own (format the catalog with two-space indentation)")
	}
	return append(append(append([]byte{}, file[:loc[1]]...), `  "version": `+q+",\n"...), file[loc[1]:]...), nil
}
