package lp1

// Options are readings of LP1 where LP1.md leaves room or contradicts
// itself (spec/INTERPRETATIONS.md; package impl/readings names them). The
// zero value is the reference's reading of each, which the package-level
// Parse and Apply take.
type Options struct {
	// EmptySections accepts an F section with no operation, as the EBNF's
	// "{ file_stmt }" allows (I-LP-01 "accepted"); false follows the prose
	// ("one or more operations") and makes it a syntax error.
	EmptySections bool
	// EmptyMatchWithOcc lets an empty match block with an occurrence k
	// select the empty run before file line k (k from 1 to the number of
	// lines plus one), so that "E 1" with an empty block erases nothing
	// (I-LP-09 "applied"). Without an occurrence an empty match block is
	// still an error; false makes it an error always.
	EmptyMatchWithOcc bool
	// KeepFinalNewline keeps final_newline through the operations of a
	// section as §5 says ("preserved ... unless an N op is applied") and
	// applies §4's empty-file invariant to the section's result only
	// (I-LP-11 "preserved"): after E of every line of "a\n", "T b" gives
	// "b\n". false applies the invariant after every operation.
	KeepFinalNewline bool
}

// Parse is the package's Parse under o.
func (o Options) Parse(src string) (*Patch, error) {
	p := parser{lines: splitLines(src), opts: o}
	patch, err := p.patch()
	if err != nil {
		return nil, err
	}
	return patch, nil
}

// Apply is the package's Apply under o.
func (o Options) Apply(f File, ops []Op) (File, error) {
	return apply(f, ops, o)
}
