package canonjson

import (
	"encoding/json"
	"strings"
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

// TestElementsChunks: elements spread over many chunks, one longer than a
// chunk among them, give the same prefixes as one buffer would.
func TestElementsChunks(t *testing.T) {
	var e Elements
	var whole []string
	for i := range 5000 {
		s := strings.Repeat("x", i%97)
		if i == 2500 {
			s = strings.Repeat("y", 3*chunkSize)
		}
		e.Add(func(dst []byte) []byte { return AppendString(dst, s) })
		whole = append(whole, `"`+s+`"`)
	}
	if len(e.chunks) < 5 {
		t.Fatalf("%d chunks: the test means to span many", len(e.chunks))
	}
	for _, k := range []int{0, 1, 2499, 2500, 2501, 4999, 5000} {
		if got, want := string(e.Prefix(k)), strings.Join(whole[:k], ","); got != want {
			t.Fatalf("Prefix(%d): %d bytes, want %d", k, len(got), len(want))
		}
	}
	tail := func(dst []byte, k int) []byte { return append(dst, ']') }
	budget := int64(1 + len(strings.Join(whole[:3000], ",")) + 1)
	got, ok := e.FitPrefix([]byte("["), tail, budget)
	if want := "[" + strings.Join(whole[:3000], ",") + "]"; !ok || got != want {
		t.Fatalf("FitPrefix: %d bytes, %v; want %d", len(got), ok, len(want))
	}
}
