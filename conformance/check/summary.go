package check

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// summaryChecks registers the invariant of every op "summary" response,
// whatever the tool: §3.4.6 gives the summary texts only as guidance
// (cases check them as advice), but three rules on them are MUSTs.
//
//   - FR-APR-01: executors that may require confirmation "MUST provide a
//     summary": a blank summary (empty, or white space only) provides
//     none. Its words are free.
//   - FR-APR-06: the planner MUST "Truncate summary to ≤ 200 characters
//     with ellipsis" (FR-APR-01 says the same as a SHOULD). A summary is
//     therefore at most 200 characters, and one that was cut ends with an
//     ellipsis.
//   - FR-APR-01: "Summary MUST redact secrets (tokens, credentials, API
//     keys, passwords)". A secret of the call's arguments must not appear
//     in the summary.
//
// Every reading the text allows is accepted:
//   - "characters" are counted as user-perceived characters at their
//     fewest: combining marks, zero-width joiners and variation selectors
//     do not count (an implementation counting scalar values, UTF-16 units
//     or bytes gives a count at least as high, so it passes too);
//   - the ellipsis is "…" (U+2026) or "...";
//   - a cut is recognised only where it cannot be mistaken: a summary within
//     10 characters of the limit (any cut "to ≤ 200" lands there in
//     practice) that ends inside an argument's text, i.e. whose last 16
//     characters occur in a line of a string argument but at no line's
//     end. A tool's own abbreviation of a shorter summary is not a cut;
//   - a secret is only what no reading can call anything else: a value of
//     a well-known credential format (sk-... API keys, GitHub, AWS, Slack
//     and Google tokens, JWTs, PEM private keys), a bearer token, or the
//     value of a password=/token=/api_key=/secret= assignment. How it is
//     redacted (masked, elided, replaced by a word) is free.
func summaryChecks() (string, func(Input) []Failure) {
	return "summary", summaryInvariants
}

// summaryMaxChars is FR-APR-06's bound.
const summaryMaxChars = 200

// summaryCutTail is how many characters of a summary's end are looked for
// inside the arguments when deciding whether it was cut; summaryCutNear is
// how close to the bound a summary must be for that to be asked.
const (
	summaryCutTail = 16
	summaryCutNear = 10
)

// secretShapes are credentials by their own shape. Each names what the
// SRD's list ("tokens, credentials, API keys, passwords") calls it.
var secretShapes = []struct {
	what string
	re   *regexp.Regexp
}{
	{"API key", regexp.MustCompile(`\bsk-[A-Za-z0-9_\-]{16,}`)},
	{"GitHub token", regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})`)},
	{"AWS access key", regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{"Slack token", regexp.MustCompile(`\bxox[bpaors]-[A-Za-z0-9\-]{10,}`)},
	{"Google API key", regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{35}`)},
	{"JSON Web Token", regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`)},
	{"private key", regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----`)},
}

// secretValues are credentials by their context: group 1 is the secret.
var secretValues = []struct {
	what string
	re   *regexp.Regexp
}{
	{"bearer token", regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{12,}=*)`)},
	{"password", regexp.MustCompile(`(?i)\b(?:password|passwd|secret|token|api[_\-]?key)\s*[:=]\s*["']?([^\s"',;&]{6,})`)},
}

// summaryInvariants checks one summary response (FR-APR-01, FR-APR-06).
func summaryInvariants(in Input) []Failure {
	if in.Resp.OK == nil || !*in.Resp.OK || in.Resp.Summary == nil {
		return nil
	}
	s := *in.Resp.Summary
	if strings.TrimSpace(s) == "" {
		return []Failure{fail(KindInvariant, fmt.Sprintf(
			"the summary is %q; FR-APR-01: an executor that may require confirmation MUST provide a summary, and a blank one summarizes nothing", s),
			"tool_executor:FR-APR-01")}
	}
	var out []Failure
	args := stringLeaves(in.Args)
	if n := perceivedChars(s); n > summaryMaxChars {
		out = append(out, fail(KindInvariant, fmt.Sprintf(
			"the summary has %d characters; FR-APR-06 asks the planner to truncate it to ≤ 200 characters with an ellipsis", n),
			"tool_executor:FR-APR-06"))
	} else if tail, ok := cutWithoutEllipsis(s, args); ok {
		out = append(out, fail(KindInvariant, fmt.Sprintf(
			"the summary (%d characters) stops inside an argument (%q) without an ellipsis; FR-APR-06: truncate with ellipsis", n, tail),
			"tool_executor:FR-APR-06"))
	}
	for _, sec := range secretsIn(args) {
		if strings.Contains(s, sec.value) {
			out = append(out, fail(KindInvariant, fmt.Sprintf(
				"the summary shows the %s %q of the arguments; FR-APR-01: summary MUST redact secrets", sec.what, sec.value),
				"tool_executor:FR-APR-01"))
		}
	}
	return out
}

// perceivedChars counts s's characters at their fewest: marks, zero-width
// joiners and variation selectors join the character before them.
func perceivedChars(s string) int {
	n := 0
	for _, r := range s {
		if unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc, unicode.Variation_Selector) || r == '\u200d' {
			continue
		}
		n++
	}
	return n
}

// cutWithoutEllipsis reports whether s was cut near the bound without an
// ellipsis, and the tail that shows it.
func cutWithoutEllipsis(s string, args []string) (string, bool) {
	if strings.HasSuffix(s, "…") || strings.HasSuffix(s, "...") {
		return "", false
	}
	rs := []rune(s)
	if perceivedChars(s) < summaryMaxChars-summaryCutNear || len(rs) < summaryCutTail {
		return "", false
	}
	tail := string(rs[len(rs)-summaryCutTail:])
	inside := false
	for _, a := range args {
		for _, line := range strings.Split(a, "\n") {
			line = strings.TrimSuffix(line, "\r")
			if strings.HasSuffix(line, tail) {
				return "", false
			}
			if strings.Contains(line, tail) {
				inside = true
			}
		}
	}
	return tail, inside
}

// secret is one credential found in the arguments.
type secret struct{ what, value string }

// secretsIn finds the credentials in the argument strings.
func secretsIn(args []string) []secret {
	var out []secret
	for _, a := range args {
		for _, sh := range secretShapes {
			for _, m := range sh.re.FindAllString(a, -1) {
				out = append(out, secret{sh.what, m})
			}
		}
		for _, sv := range secretValues {
			for _, m := range sv.re.FindAllStringSubmatch(a, -1) {
				out = append(out, secret{sv.what, m[1]})
			}
		}
	}
	return out
}

// stringLeaves returns every string in v (a decoded JSON value), depth
// first.
func stringLeaves(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case map[string]any:
		var out []string
		for _, k := range slices.Sorted(maps.Keys(x)) {
			out = append(out, stringLeaves(x[k])...)
		}
		return out
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, stringLeaves(e)...)
		}
		return out
	}
	return nil
}
