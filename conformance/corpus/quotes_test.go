package corpus_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/conformance/cases"
	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/internal/srddir"
)

// handlerQuotes are message words a seed does not print but cites: the
// Codex list_dir seed (CODEX_LIST_DIR.md) names its handler,
// codex-rs/core/src/tools/handlers/list_dir.rs, as the authority, and these
// are that handler's strings. They count for codex_list_dir cases only.
var handlerQuotes = map[string]string{
	"failed to read directory: ": "codex-rs/core/src/tools/handlers/list_dir.rs, cited by CODEX_LIST_DIR.md",
}

var number = regexp.MustCompile(`^[0-9]+$`)

// quotes reports whether w quotes the (lower-cased) seeds: all of it, or a
// number, or a handler quote of the spec, or a seed quote of at least four
// characters ending in a space followed by data of the case's arguments.
func quotes(seeds, spec, args, w string) bool {
	lw := strings.ToLower(w)
	if number.MatchString(w) || strings.Contains(seeds, lw) {
		return true
	}
	if _, ok := handlerQuotes[w]; ok && spec == "codex_list_dir" {
		return true
	}
	for i := 4; i < len(w); i++ {
		if w[i-1] == ' ' && strings.Contains(seeds, lw[:i]) && strings.Contains(args, w[i:]) {
			return true
		}
	}
	return false
}

func TestQuotes(t *testing.T) {
	seeds := "modified: <path>\nfile was not read before patching\nlist_dir handler"
	tests := []struct {
		spec, args, w string
		want          bool
	}{
		{"lp1", "", "File was not read before patching", true},
		{"lp1", "", "line 3:", false},
		{"lp1", `{"patch":"F b.txt"}`, "modified: b.txt", true},
		{"lp1", `{"patch":"F c.txt"}`, "modified: b.txt", false},
		{"lp1", "", "6", true},
		{"codex_list_dir", "", "failed to read directory: ", true},
		{"list_directory", "", "failed to read directory: ", false},
		{"lp1", `{"patch":"ine 3:"}`, "line 3:", false},
	}
	for _, tt := range tests {
		if got := quotes(seeds, tt.spec, tt.args, tt.w); got != tt.want {
			t.Errorf("quotes(%s, %q) = %v, want %v", tt.spec, tt.w, got, tt.want)
		}
	}
}

// TestMessageWordsQuoteTheSeeds is the guard of the rule in
// spec/INTERPRETATIONS.md: every word a case requires of a message or an
// output (error.message, error.message_contains, contains) is a quote of a
// seed document, case-insensitively, so the suite never fails an
// implementation for wording the spec does not state. A word may also be a
// seed quote followed by data of the case itself (the path in
// "modified: b.txt"), or a number (a byte count the SRD requires). Advice
// words are exempt: they are advice, not requirements.
func TestMessageWordsQuoteTheSeeds(t *testing.T) {
	dir := srddir.Require(t)
	docs, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil || len(docs) == 0 {
		t.Skipf("no SRD .md files in %s (set %s to the directory holding LP1.md, TOOL_EXECUTOR_SRD.md, ...): cannot verify that message words quote the specs; CI always has them", dir, srddir.Env)
	}
	var text strings.Builder
	for _, p := range docs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		text.WriteString(strings.ToLower(string(b)))
		text.WriteString("\n")
	}
	seeds := text.String()
	c, err := corpus.Load(cases.FS)
	if err != nil {
		t.Fatal(err)
	}
	// A path placeholder ("$PATH(b.txt)") counts as the path as written.
	quoted := func(k *corpus.Case, w string) bool { return quotes(seeds, k.Spec, string(k.Args), corpus.AsWritten(w)) }
	n := 0
	for _, k := range c.Cases {
		alts := append([]corpus.Expect{k.Expect}, k.Expect.AnyOf...)
		for _, e := range alts {
			words := append([]string(nil), e.Contains...)
			if e.Error != nil {
				words = append(words, e.Error.MessageContains...)
				if e.Error.Message != nil {
					words = append(words, *e.Error.Message)
				}
			}
			for _, w := range words {
				n++
				if !quoted(k, w) {
					t.Errorf("%s (%s): %q occurs in no seed document: require only words the SRD names (or make it advice)", k.FullName(), k.File, w)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("found no message words at all: the guard checks nothing")
	}
}
