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
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("invalid JSON %s: %v", out, err)
		}
		if json.Valid([]byte(`"`+s+`"`)) && back != s {
			t.Fatalf("round trip %q -> %q", s, back)
		}
	})
}

func TestElementsFitPrefix(t *testing.T) {
	var e Elements
	for _, s := range []string{"a", "bb", "ccc"} {
		e.Add(func(dst []byte) []byte { return AppendString(dst, s) })
	}
	if got := string(e.Prefix(2)); got != `"a","bb"` {
		t.Fatalf("Prefix(2) = %s", got)
	}
	// The tail says how many elements are in and whether any was dropped.
	tail := func(dst []byte, k int) []byte {
		dst = append(dst, ']', ',')
		dst = AppendInt(dst, int64(k))
		dst = append(dst, ',')
		dst = AppendBool(dst, k < e.Len())
		return append(dst, '}')
	}
	head := []byte(`{[`)
	tests := []struct {
		budget int64
		want   string
		ok     bool
	}{
		{100, `{["a","bb","ccc"],3,false}`, true},
		{int64(len(`{["a","bb","ccc"],3,false}`)), `{["a","bb","ccc"],3,false}`, true},
		{int64(len(`{["a","bb","ccc"],3,false}`)) - 1, `{["a","bb"],2,true}`, true},
		{int64(len(`{[],0,true}`)), `{[],0,true}`, true},
		{int64(len(`{[],0,true}`)) - 1, ``, false},
	}
	for _, tt := range tests {
		got, ok := e.FitPrefix(head, tail, tt.budget)
		if got != tt.want || ok != tt.ok {
			t.Errorf("FitPrefix(budget %d) = %q, %v; want %q, %v", tt.budget, got, ok, tt.want, tt.ok)
		}
	}
}
