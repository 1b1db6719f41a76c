package spec_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/internal/srddir"
	"github.com/forge-conform/forge-conform/spec"
)

func TestDocumentVersion(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"bold line under a subtitle", "# A Tool\n\n## Software Requirements Document\n\n**Version:** 1.1\n**Date:** 2026-01-01\n", "1.1"},
		{"plain line", "# A Tool\nVersion: 2.0.3\n", "2.0.3"},
		{"bold label, colon outside", "# A Tool\n**Version**: v1.12\n", "1.12"},
		{"front matter", "---\ntitle: x\nversion: 3.4\n---\n# A Tool v9\n", "3.4"},
		{"title", "# Line Patch v1\n\nText.\n", "1"},
		{"title with minor", "# Sample SRD v1.2 (draft)\n", "1.2"},
		{"none", "# Tool: `x` (function)\n\n## 0. Purpose\n", ""},
		{"not in a later heading", "# Tool\n\n## Changes in v2\n", ""},
		{"too far down", "# Tool\n" + strings.Repeat("text\n", 50) + "**Version:** 9\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := spec.DocumentVersion(tt.text); got != tt.want {
				t.Errorf("DocumentVersion = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCompareVersions(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"1.12", "1.2", 1}, {"1.0", "1", 0}, {"1.1", "1.1.1", -1}, {"v2", "1.9", 1}, {"0.9", "1.0", -1},
	}
	for _, tt := range tests {
		got, err := spec.CompareVersions(tt.a, tt.b)
		if err != nil || got != tt.want {
			t.Errorf("CompareVersions(%q, %q) = %d, %v; want %d", tt.a, tt.b, got, err, tt.want)
		}
	}
	if _, err := spec.CompareVersions("1.x", "1"); err == nil {
		t.Error("CompareVersions(1.x) gave no error")
	}
}

func TestRewriteVersion(t *testing.T) {
	in := "{\n  \"spec\": \"x\",\n  \"document\": \"X.md\",\n  \"title\": \"X\",\n  \"requirements\": []\n}\n"
	out, err := spec.RewriteVersion([]byte(in), "1.1")
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"spec\": \"x\",\n  \"document\": \"X.md\",\n  \"version\": \"1.1\",\n  \"title\": \"X\",\n  \"requirements\": []\n}\n"
	if string(out) != want {
		t.Fatalf("inserted:\n%s\nwant:\n%s", out, want)
	}
	again, err := spec.RewriteVersion(out, "1.2")
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != strings.Replace(want, "1.1", "1.2", 1) {
		t.Fatalf("replaced:\n%s", again)
	}
	if _, err := spec.RewriteVersion([]byte("{}"), "1"); err == nil {
		t.Error("a file without a document member gave no error")
	}
}

// Every catalog records the version its document states (with the SRDs in
// FORGE_CONFORM_SRD_DIR).
func TestCatalogVersionsMatchSRDs(t *testing.T) {
	dir, why := srddir.Lookup()
	if dir == "" {
		t.Skip(why)
	}
	set, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range set.Names() {
		c := set.Catalogs[n]
		text, err := os.ReadFile(filepath.Join(dir, c.Document))
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		if got := spec.DocumentVersion(string(text)); got != c.Version {
			t.Errorf("%s: catalog version %q, %s states %q: `forge-conform spec update --srd %s`", n, c.Version, c.Document, got, c.Document)
		}
	}
}
