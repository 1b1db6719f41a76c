package tool

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// MaxSummaryChars bounds an approval summary (FR-APR-01, FR-APR-06).
const MaxSummaryChars = 200

// Redacted replaces every secret Redact finds.
const Redacted = "[REDACTED]"

// redactors are the compiled patterns of Redact, compiled on first use
// (not at process start: a served reference must answer hello fast) and
// never modified.
type redactors struct {
	secretShapes       []*regexp.Regexp
	bearer, assignment *regexp.Regexp
}

var compiledRedactors = sync.OnceValue(func() redactors {
	return redactors{secretShapes: secretShapes(), bearer: bearer(), assignment: assignment()}
})

// secretShapes match credentials by their own shape, wherever they occur.
func secretShapes() []*regexp.Regexp {
	return []*regexp.Regexp{
		// PEM private keys, whole block (or up to the end when cut short).
		regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z ]*PRIVATE KEY-----|$)`),
		// OpenAI / Anthropic style keys: sk-..., sk-proj-..., sk-ant-...
		regexp.MustCompile(`\bsk-[A-Za-z0-9_\-]{8,}`),
		// GitHub tokens: ghp_, gho_, ghu_, ghs_, ghr_ and fine-grained github_pat_.
		regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{20,})`),
		// AWS access key IDs.
		regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`),
		// Slack tokens: xoxb-, xoxp-, xoxa-, xoxo-, xoxs-, xoxr-.
		regexp.MustCompile(`\bxox[bpaors]-[A-Za-z0-9\-]+`),
		// Google API keys.
		regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{35}`),
		// JSON Web Tokens.
		regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*`),
	}
}

// bearer matches an HTTP bearer credential; the scheme word is kept.
func bearer() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(bearer)\s+[A-Za-z0-9\-._~+/]+=*`)
}

// assignment matches "<secret word><sep><value>" such as password=hunter2,
// token: abc, "api_key": "abc" or PASSWORD='x'; group 1 is everything up to
// the value, which is kept, group 2 the value, which is replaced.
func assignment() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(\b[A-Za-z0-9_\-]*(?:password|passwd|pwd|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key|credentials?|auth)["']?\s*[:=]\s*)("[^"]*"|'[^']*'|[^\s,;&"']+)`)
}

// Redact masks the secrets a summary or log line may carry (FR-APR-01):
// API keys and tokens recognisable by their shape (sk-..., ghp_...,
// github_pat_..., AKIA..., xoxb-/xoxp-..., AIza..., JWTs, PEM private keys),
// bearer credentials ("Bearer abc" keeps "Bearer"), and the value of any
// key/value pair whose key names a secret (password=..., token: ...,
// "api_key": "..."; the key and separator are kept). Every secret becomes
// "[REDACTED]". Redact is idempotent and leaves other text unchanged.
func Redact(s string) string {
	re := compiledRedactors()
	for _, shape := range re.secretShapes {
		s = shape.ReplaceAllLiteralString(s, Redacted)
	}
	s = re.bearer.ReplaceAllString(s, "${1} "+Redacted)
	s = re.assignment.ReplaceAllStringFunc(s, func(m string) string {
		sub := re.assignment.FindStringSubmatch(m)
		value := sub[2]
		if strings.Trim(value, `"'`) == Redacted {
			return m
		}
		switch {
		case strings.HasPrefix(value, `"`):
			return sub[1] + `"` + Redacted + `"`
		case strings.HasPrefix(value, `'`):
			return sub[1] + `'` + Redacted + `'`
		}
		return sub[1] + Redacted
	})
	return s
}

// Summarize turns s into an approval summary (FR-APR-01, FR-APR-06): secrets
// redacted, then at most MaxSummaryChars characters (runes), the last of
// them "…" when anything was cut.
func Summarize(s string) string {
	return Truncate(Redact(s), MaxSummaryChars)
}

// Truncate keeps at most max characters (runes) of s; when s is longer, the
// result is its first max-1 characters followed by "…". It never splits a
// multi-byte character. max below 1 gives "".
func Truncate(s string, max int) string { return TruncateWith(s, max, "…") }

// TruncateWith is Truncate with another ellipsis: when s is longer than max
// characters, its first max-n characters followed by the n characters of
// ellipsis ("..." keeps 197 of 200, I-APR-02). A max below the ellipsis's
// length gives "".
func TruncateWith(s string, max int, ellipsis string) string {
	keep := max - utf8.RuneCountInString(ellipsis)
	if keep < 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == keep {
			return s[:i] + ellipsis
		}
		n++
	}
	return s
}

// SummarizeThreeDots is Summarize with "..." as its ellipsis (I-APR-02).
func SummarizeThreeDots(s string) string {
	return TruncateWith(Redact(s), MaxSummaryChars, "...")
}
