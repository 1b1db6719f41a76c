package canonjson

import (
	"encoding/json"
	"testing"
)

func TestAppendString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", `"plain"`},
		{`q"b\s`, `"q\"b\\s"`},
		{"\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"\x00\x01\x1f", `"\u0000\u0001\u001f"`},
		{"\x1b[31m", `"\u001b[31m"`},
		{"<a>&b", `"<a>&b"`},
		{"\x7f", "\"\x7f\""},
		{"\u2028\u2029", "\"\u2028\u2029\""},
		{"é\uFFFD", "\"é\uFFFD\""},
		{"/", `"/"`},
	}
	for _, tt := range tests {
		got := string(AppendString(nil, tt.in))
		if got != tt.want {
			t.Errorf("AppendString(%q) = %s, want %s", tt.in, got, tt.want)
		}
		if n := StringLen(tt.in); n != len(tt.want) {
			t.Errorf("StringLen(%q) = %d, want %d", tt.in, n, len(tt.want))
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil || back != tt.in {
			t.Errorf("round trip of %q: %q, %v", tt.in, back, err)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("a\x00<\"")
	f.Fuzz(func(t *testing.T, s string) {
		out := AppendString(nil, s)
		if len(out) != StringLen(s) {
			t.Fatalf("StringLen mismatch for %q", s)
		}
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("invalid JSON %s: %v", out, err)
		}
		if json.Valid([]byte(`"`+s+`"`)) && back != s {
			t.Fatalf("round trip %q -> %q", s, back)
		}
	})
}
