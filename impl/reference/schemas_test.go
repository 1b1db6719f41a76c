package reference

import (
	"testing"

	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/tools/fcptest"
)

// TestSchemasCompile is what New's lazy registry relies on: every tool's
// schema compiles as NewRegistry requires
// (FR-VAL-01a), so compiling on first use never fails.
func TestSchemasCompile(t *testing.T) {
	if _, err := tool.NewRegistry(append(tools(Options{}, DefaultPolicies()), fcptest.Tools()...)...); err != nil {
		t.Fatal(err)
	}
}
