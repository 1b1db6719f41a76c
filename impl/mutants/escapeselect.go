package mutants

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/forge-conform/forge-conform/impl/executor"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// escapeSelectMutants are two defects mutation testing found no case for:
// list_directory writing U+0008 and U+000C in the \u form instead of
// JSON's two-character one (I-LD-03), and an approve_selected that cannot
// select the only call a confirmation asks about.
func escapeSelectMutants() []Mutant {
	return []Mutant{
		{
			Name: "list-directory-long-bf-escapes", Doc: `list_directory writes U+0008 and U+000C in names as \u0008 and \u000c instead of \b and \f`,
			Specs:   []string{"list_directory"},
			Breaks:  ids("list_directory", "FR-LD-OUT-02a"),
			Options: wrap(onTool("list_directory", longBFEscapes)),
		},
		{
			Name: "approve-selected-needs-another", Doc: "approve_selected keeps a selected id only when the confirmation asks about some other call (an id compared with != instead of ==), so selecting the only call asked about denies it",
			Specs: []string{"tool_executor"}, Run: []string{"tool_executor/turn-*"},
			Breaks:  ids("tool_executor", "T-APR-02"),
			Options: engine(executor.Options{Decide: selectAmongOthers}),
		},
	}
}

// longBFEscapes rewrites list_directory's result so that every \b and \f
// escape of its JSON strings is written \u0008 and \u000c.
func longBFEscapes(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	return rewriteWithinBudget(inner, ctx, args, c, func(out string) string {
		var b strings.Builder
		for i := 0; i < len(out); i++ {
			if out[i] != '\\' || i+1 == len(out) {
				b.WriteByte(out[i])
				continue
			}
			i++
			switch out[i] {
			case 'b':
				b.WriteString(`\u0008`)
			case 'f':
				b.WriteString(`\u000c`)
			default:
				b.WriteByte('\\')
				b.WriteByte(out[i])
			}
		}
		return b.String()
	})
}

// selectAmongOthers takes the user's decision, and of an approve_selected
// keeps only the ids that differ from some request's id, as a check of the
// ids written with != for ==: a selection of the sole request comes out
// empty, and the call is denied.
func selectAmongOthers(ctx context.Context, ui executor.UI, reqs []fcp.Confirmation) (executor.Decision, error) {
	d, err := ui.Confirm(ctx, reqs)
	if err != nil || d.Kind != fcp.DecisionApproveSelected {
		return d, err
	}
	var kept []string
	for _, id := range d.IDs {
		if slices.ContainsFunc(reqs, func(c fcp.Confirmation) bool { return c.ID != id }) {
			kept = append(kept, id)
		}
	}
	d.IDs = kept
	return d, nil
}
