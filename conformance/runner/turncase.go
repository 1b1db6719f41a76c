package runner

import (
	"encoding/json"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/fixture"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// TurnRequestFor is the turn request the runner sends for the turn case c
// on the materialized fixture l, with overlay (Options.Config) merged over
// the case's config: what `forge-tui --case` runs.
func TurnRequestFor(c *corpus.Case, l fixture.Layout, overlay json.RawMessage) (fcp.TurnRequest, error) {
	return turnRequest(c, l, caseConfig(c, overlay, l))
}
