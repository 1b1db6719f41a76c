package tool_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/forge-conform/forge-conform/impl/tool"
)

func TestRedact(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain text untouched", "Apply patch to 2 file(s): a.txt, b/c.go", "Apply patch to 2 file(s): a.txt, b/c.go"},
		{"openai key", "key sk-abcdefghijklmnop1234 here", "key [REDACTED] here"},
		{"anthropic key", "sk-ant-api03-AbCdEf_12345678", "[REDACTED]"},
		{"short sk- is not a key", "task-list sk-1", "task-list sk-1"},
		{"github token", "ghp_0123456789abcdefABCDEF0123", "[REDACTED]"},
		{"github fine-grained", "github_pat_11ABCDEFG0123456789_abcdefghij", "[REDACTED]"},
		{"aws key id", "AKIAIOSFODNN7EXAMPLE", "[REDACTED]"},
		{"aws lowercase is not a key", "akiaiosfodnn7example", "akiaiosfodnn7example"},
		{"slack bot", "xoxb-123-456-abcDEF", "[REDACTED]"},
		{"slack user", "use xoxp-1-2-3 now", "use [REDACTED] now"},
		{"password=", "mysql -u root password=hunter2 -h db", "mysql -u root password=[REDACTED] -h db"},
		{"PASSWORD env", "DB_PASSWORD=s3cr3t!", "DB_PASSWORD=[REDACTED]"},
		{"token colon", "token: abc.def", "token: [REDACTED]"},
		{"json api_key", `{"api_key": "abc123"}`, `{"api_key": "[REDACTED]"}`},
		{"single quoted", "secret='a b c'", "secret='[REDACTED]'"},
		{"url query", "https://x.test/?access_key=AAA&x=1", "https://x.test/?access_key=[REDACTED]&x=1"},
		{"bearer", "Authorization: Bearer eyJhbGciOi.abc-def_ghi", "Authorization: Bearer [REDACTED]"},
		{"bearer lower", "curl -H 'authorization: bearer abcDEF123=='", "curl -H 'authorization: bearer [REDACTED]'"},
		{"jwt alone", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig-nature", "[REDACTED]"},
		{"private key block", "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- done", "[REDACTED] done"},
		{"max_tokens is not a secret", "max_tokens=5 tokens: 7", "max_tokens=5 tokens: 7"},
		{"author is not auth", "author: Ann", "author: Ann"},
		{"two secrets", "password=a token=b", "password=[REDACTED] token=[REDACTED]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tool.Redact(tc.in)
			if got != tc.want {
				t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if again := tool.Redact(got); again != got {
				t.Errorf("Redact is not idempotent: %q -> %q", got, again)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	long := strings.Repeat("é", 250)
	tests := []struct {
		name, in, want string
	}{
		{"short", "List .", "List ."},
		{"exactly 200", strings.Repeat("a", 200), strings.Repeat("a", 200)},
		{"201 cut", strings.Repeat("a", 201), strings.Repeat("a", 199) + "…"},
		{"multibyte cut on a rune boundary", long, strings.Repeat("é", 199) + "…"},
		{"redacted before cutting", "password=" + strings.Repeat("x", 300), "password=[REDACTED]"},
		{"secret past the cut still redacted", strings.Repeat("a", 195) + " sk-abcdefghijklmnop", strings.Repeat("a", 195) + " [RE…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tool.Summarize(tc.in)
			if got != tc.want {
				t.Errorf("Summarize = %q, want %q", got, tc.want)
			}
			if n := utf8.RuneCountInString(got); n > tool.MaxSummaryChars || !utf8.ValidString(got) {
				t.Errorf("Summarize gave %d characters (valid UTF-8: %v)", n, utf8.ValidString(got))
			}
		})
	}
	if got := tool.Truncate("abc", 0); got != "" {
		t.Errorf("Truncate(abc, 0) = %q", got)
	}
	if got := tool.Truncate("abc", 1); got != "…" {
		t.Errorf("Truncate(abc, 1) = %q", got)
	}
}
