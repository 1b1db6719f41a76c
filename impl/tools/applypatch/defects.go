package applypatch

import (
	"slices"

	"github.com/forge-conform/forge-conform/impl/lp1"
)

// Defects are deliberate apply_patch bugs, for the suite's self-test: each
// one makes the tool break the requirement its comment names, so that the
// suite must fail the mutant naming that requirement. The zero value
// conforms.
type Defects struct {
	// SkipStaleCheck patches existing files without the read-before-write
	// checks: a file never read, or changed since it was read, is patched
	// all the same (violates FR-TOOL-PATCH-02a, FR-TOOL-PATCH-02b).
	SkipStaleCheck bool
	// NonAtomic writes each file as soon as it is staged, so a failure in
	// a later file leaves the earlier ones written (violates
	// FR-TOOL-PATCH-01a, T-PATCH-01).
	NonAtomic bool
	// TrailingNewlineOnCreate gives a file created by T or B a final
	// newline the patch did not ask for (violates LP1's creation
	// semantics, I-AP-01).
	TrailingNewlineOnCreate bool
	// OccFromEnd counts an occurrence selector from the bottom of the
	// file instead of the top (violates LP1's occurrence rule, I-LP-08).
	OccFromEnd bool
}

// applyOccFromEnd is lp1.Apply with Defects.OccFromEnd: before each op,
// occurrence k of its match block is rewritten to n-k+1, n being the
// number of runs the op's match block has in the current content.
func applyOccFromEnd(f lp1.File, ops []lp1.Op) (lp1.File, error) {
	for _, op := range ops {
		n := 0
		for i := 0; op.Occ > 0 && i+len(op.Match) <= len(f.Lines); i++ {
			if slices.Equal(f.Lines[i:i+len(op.Match)], op.Match) {
				n++
			}
		}
		if op.Occ > 0 && op.Occ <= n {
			op.Occ = n - op.Occ + 1
		}
		var err error
		if f, err = lp1.Apply(f, []lp1.Op{op}); err != nil {
			return lp1.File{}, err
		}
	}
	return f, nil
}
