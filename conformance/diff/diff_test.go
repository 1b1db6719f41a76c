package diff_test

import (
	"encoding/json"
	"testing"

	"github.com/forge-conform/forge-conform/conformance/diff"
)

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestText(t *testing.T) {
	tests := []struct {
		name, want, got, diff string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n", "--- want\n+++ got\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"missing final newline", "a\n", "a", "--- want\n+++ got\n@@ -1,1 +1,1 @@\n-a\n+a\n\\ No newline at end of file\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := diff.Text(tt.want, tt.got); got != tt.diff {
				t.Errorf("Text() =\n%s\nwant\n%s", got, tt.diff)
			}
		})
	}
}

func TestPrettyKeyOrder(t *testing.T) {
	tests := []struct {
		name, value, want string
		hints             []string
	}{
		{"alphabetical without hints", `{"b":1,"a":[true,null,"x<y"]}`,
			"{\n  \"a\": [\n    true,\n    null,\n    \"x<y\"\n  ],\n  \"b\": 1\n}\n", nil},
		{"hint order first, then the rest", `{"z":1,"path":".","entries":[{"type":"file","name":"a","x":0}]}`,
			"{\n  \"path\": \".\",\n  \"entries\": [\n    {\n      \"name\": \"a\",\n      \"type\": \"file\",\n      \"x\": 0\n    }\n  ],\n  \"z\": 1\n}\n",
			[]string{`{"path":".","entries":[{"name":"b"},{"name":"c","type":"dir"}]}`}},
		{"a later hint adds keys", `{"b":1,"a":2,"c":3}`, "{\n  \"c\": 3,\n  \"b\": 1,\n  \"a\": 2\n}\n",
			[]string{`{"c":0}`, `{"b":0,"c":0}`}},
		{"empty containers", `{"a":{},"b":[]}`, "{\n  \"a\": {},\n  \"b\": []\n}\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hints [][]byte
			for _, h := range tt.hints {
				hints = append(hints, []byte(h))
			}
			if got := diff.Pretty(decode(t, tt.value), hints...); got != tt.want {
				t.Errorf("Pretty() =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestJSON(t *testing.T) {
	type denial struct {
		Reason  string `json:"reason"`
		Pattern string `json:"pattern,omitempty"`
	}
	tests := []struct {
		name      string
		want, got any
		diff      string
	}{
		{"equal", map[string]any{"a": 1.0}, map[string]any{"a": 1.0}, ""},
		{"struct values render as JSON", denial{Reason: "DeniedPattern", Pattern: "**/.ssh/**"}, denial{Reason: "DeniedPattern"},
			"--- want\n+++ got\n@@ -1,4 +1,3 @@\n {\n-  \"reason\": \"DeniedPattern\",\n-  \"pattern\": \"**/.ssh/**\"\n+  \"reason\": \"DeniedPattern\"\n }\n"},
		{"numbers as written", decode(t, `{"n":1e3}`), json.Number("5"), "--- want\n+++ got\n@@ -1,3 +1,1 @@\n-{\n-  \"n\": 1000\n-}\n+5\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := diff.JSON(tt.want, tt.got); got != tt.diff {
				t.Errorf("JSON() =\n%s\nwant\n%s", got, tt.diff)
			}
		})
	}
}

func TestContent(t *testing.T) {
	tests := []struct{ name, want, got, diff string }{
		{"equal", `{"a":1}`, `{"a":1}`, ""},
		{"one-line JSON is pretty-printed in want's key order", `{"b":1,"a":2}`, `{"a":2,"b":3}`,
			"--- want\n+++ got\n@@ -1,4 +1,4 @@\n {\n-  \"b\": 1,\n+  \"b\": 3,\n   \"a\": 2\n }\n"},
		{"bytes that differ only in spacing fall back to text", `{"a":1}`, `{"a": 1}`,
			"--- want\n+++ got\n@@ -1,1 +1,1 @@\n-{\"a\":1}\n\\ No newline at end of file\n+{\"a\": 1}\n\\ No newline at end of file\n"},
		{"text", "x\ny\n", "x\nz\n", "--- want\n+++ got\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := diff.Content(tt.want, tt.got); got != tt.diff {
				t.Errorf("Content() =\n%s\nwant\n%s", got, tt.diff)
			}
		})
	}
}
