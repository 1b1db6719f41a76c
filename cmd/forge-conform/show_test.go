package main

import (
	"strings"
	"testing"
)

func TestReadable(t *testing.T) {
	long := strings.Repeat("é", longString) // 2 bytes a character
	tests := []struct{ name, in, want string }{
		{"short line unchanged", `{"b":1,"a":"x"}`, `{"b":1,"a":"x"}`},
		{"long line without a long string unchanged", `{"b":1,"a":"` + strings.Repeat("x", longString) + `","n":1.50}`,
			`{"b":1,"a":"` + strings.Repeat("x", longString) + `","n":1.50}`},
		{"long string shortened on a rune boundary", `{"m":[{"s":"` + long + `"}],"n":1.50}`,
			`{"m":[{"s":"<8192 bytes: ` + strings.Repeat("é", 16) + `…>"}],"n":1.50}`},
		{"not JSON unchanged", `{"s":"` + long, `{"s":"` + long},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(readable([]byte(tt.in))); got != tt.want {
				t.Errorf("readable = %.300s (%d bytes), want %.300s", got, len(got), tt.want)
			}
		})
	}
}
