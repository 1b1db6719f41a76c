package fcpclient

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// chunkLine must agree with encoding/json on every line it accepts, and
// refuse (to the general path) what it cannot decode identically.
func TestChunkLine(t *testing.T) {
	tests := []struct {
		line string
		ok   bool
	}{
		{`{"seq":7,"event":"stdout","id":"c1","chunk":"hello\n"}`, true},
		{`{"seq":7,"event":"stderr","id":"c1","chunk":""}`, true},
		{`{"seq":-1,"event":"stdout","id":"c1","chunk":"x"}`, true},
		{`{"seq":0,"event":"stdout","id":"c\"1","chunk":"a\\b\/c\b\f\n\r\t\u00e9\u0001 é"}`, true},
		{`{"seq":7,"event":"stdout","id":"c1","chunk":"\uD83D\uDE00"}`, false}, // a surrogate pair: general path
		{`{"seq":7,"event":"stdout","id":"c1","chunk":"\uD83D"}`, false},
		{`{"seq":7,"event":"stdout","id":"c1","chunk":"a` + "\x01" + `"}`, false},
		{`{"seq":7,"event":"stdout","id":"c1","chunk":"\x"}`, false},
		{`{"seq":7,"event":"stdout","id":"c1","chunk":"\u12"}`, false},
		{`{"seq":7,"event":"stdout","id":"c1","chunk":"\u+123"}`, false},
		{`{"seq":7,"event":"stdout","id":"c1","chunk":"x","extra":1}`, false},
		{`{"seq":7,"event":"stdout","id":"c1","chunk":"x"} `, false},
		{`{"seq":07,"event":"stdout","id":"c1","chunk":"x"}`, false},
		{`{"seq":-0,"event":"stdout","id":"c1","chunk":"x"}`, true},
		{`{"seq":-,"event":"stdout","id":"c1","chunk":"x"}`, false},
		{`{"seq":1.5,"event":"stdout","id":"c1","chunk":"x"}`, false},
		{`{"seq":7,"event":"started","id":"c1","chunk":"x"}`, false},
		{`{"seq":7, "event":"stdout","id":"c1","chunk":"x"}`, false},
		{`{"seq":7,"event":"stdout","chunk":"x","id":"c1"}`, false},
		{`{"seq":7,"event":"stdout","id":"c1","chunk":"unterminated}`, false},
		{`{"seq":7,"event":"stdout","id":1,"chunk":"x"}`, false},
	}
	for _, tt := range tests {
		seq, event, id, chunk, ok := chunkLine([]byte(tt.line))
		if ok != tt.ok {
			t.Errorf("chunkLine(%s) ok = %v, want %v", tt.line, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		var want struct {
			Seq   int64  `json:"seq"`
			Event string `json:"event"`
			ID    string `json:"id"`
			Chunk string `json:"chunk"`
		}
		if err := json.Unmarshal([]byte(tt.line), &want); err != nil {
			t.Errorf("chunkLine accepted %s, which encoding/json refuses: %v", tt.line, err)
			continue
		}
		if seq != want.Seq || event != want.Event || id != want.ID || chunk != want.Chunk {
			t.Errorf("chunkLine(%s) = %d %q %q %q, encoding/json says %d %q %q %q", tt.line, seq, event, id, chunk, want.Seq, want.Event, want.ID, want.Chunk)
		}
	}
}

// Every chunk encoding/json writes for any string decodes back the same.
func FuzzChunkLine(f *testing.F) {
	for _, s := range []string{"", "a\nb", "é\u2028<>&\"\\", "\x00\x1f\x7f", "\U0001F600"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		chunk, _ := json.Marshal(s)
		line := `{"seq":3,"event":"stdout","id":"c1","chunk":` + string(chunk) + `}`
		_, _, _, got, ok := chunkLine([]byte(line))
		if ok && got != s {
			t.Fatalf("chunkLine decoded %q as %q", s, got)
		}
	})
}
