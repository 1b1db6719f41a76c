package srddir_test

import (
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/internal/srddir"
)

func TestLookup(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, value string
		wantDir     string
		wantWhy     string
	}{
		{"unset", "", "", "is unset: set it"},
		{"a directory", dir, dir, ""},
		{"no such directory", dir + "/missing", "", "is not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(srddir.Env, tt.value)
			got, why := srddir.Lookup()
			if got != tt.wantDir || !strings.Contains(why, tt.wantWhy) || (tt.wantWhy == "") != (why == "") {
				t.Errorf("Lookup() = %q, %q; want %q and a reason containing %q", got, why, tt.wantDir, tt.wantWhy)
			}
			if why != "" && !strings.Contains(why, srddir.Env) {
				t.Errorf("the reason %q does not name %s", why, srddir.Env)
			}
		})
	}
}
