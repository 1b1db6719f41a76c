package fcp_test

import (
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/spec/fcp"
)

// PROTOCOL.md lists every op in its envelope table and every schema file
// in its schema table.
func TestProtocolDocListsOpsAndSchemas(t *testing.T) {
	doc, err := os.ReadFile("../PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	var opRow string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "| `op` |") {
			opRow = l
		}
	}
	for _, op := range []string{fcp.OpHello, fcp.OpCall, fcp.OpDefinitions, fcp.OpSummary, fcp.OpReset, fcp.OpBye} {
		if !strings.Contains(opRow, "`"+op+"`") {
			t.Errorf("PROTOCOL.md's envelope row for op does not list %q: %s", op, opRow)
		}
		if !strings.Contains(text, "### ") || !strings.Contains(text, "`"+op+"`\n") {
			t.Errorf("PROTOCOL.md has no section heading for op %q", op)
		}
	}
	names, err := fs.Glob(fcp.SchemaFS(), "*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if !strings.Contains(text, "| `"+n+"` |") {
			t.Errorf("PROTOCOL.md's schema table does not list spec/fcp/schema/%s", n)
		}
	}
}
