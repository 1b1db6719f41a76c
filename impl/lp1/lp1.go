// Package lp1 parses and applies Line Patch v1 (LP1.md), the patch language
// of the apply_patch tool. It is pure: no I/O, no package-level mutable state.
//
// Parse checks a whole patch against the EBNF of LP1.md and returns its file
// sections and operations. Decode turns file bytes into the canonical
// in-memory form of the newline model (LP1.md §1-3), Encode emits it again
// (§4), and Apply runs one section's operations in order on that form.
// Where LP1.md leaves a choice open, the package follows the readings
// I-LP-* recorded in spec/lp1-interpretations.draft.md; the code names them
// where they apply.
//
// Every error is an *Error. Parse and Apply errors carry the 1-based patch
// line they are about; Decode errors are about a file, not the patch, and
// carry line 0 and the file line in the message.
package lp1

import "fmt"

// OpKind is the command letter of an operation.
type OpKind byte

// The LP1 commands.
const (
	Replace         OpKind = 'R' // R [occ]: replace the matched block with the new block
	InsertAfter     OpKind = 'I' // I [occ]: insert the new block after the matched block
	InsertBefore    OpKind = 'P' // P [occ]: insert the new block before the matched block
	Erase           OpKind = 'E' // E [occ]: delete the matched block
	Append          OpKind = 'T' // T: append a block at the end of the file
	Prepend         OpKind = 'B' // B: prepend a block at the beginning of the file
	SetFinalNewline OpKind = 'N' // N + / N -: set whether the file ends with a newline
)

// Op is one operation of a file section. Fields a kind does not use are
// zero after Parse and ignored by Apply.
type Op struct {
	Kind OpKind
	// Occ is the 1-based occurrence selector of R/I/P/E; 0 when absent, in
	// which case the match must be unique.
	Occ int
	// Match is the block to find (R/I/P/E): line texts without line endings.
	Match []string
	// Block is the new block (R/I/P) or the block to add (T/B).
	Block []string
	// FinalNewline is true for "N +" and false for "N -".
	FinalNewline bool
	// Line is the 1-based patch line of the command.
	Line int
}

// Section is an "F <path>" section with its operations.
type Section struct {
	// Path is the path as written, with a quoted path's quotes removed and
	// its \" and \\ escapes decoded.
	Path string
	// Line is the 1-based patch line of the F command.
	Line int
	Ops  []Op
}

// Patch is a parsed LP1 patch: its file sections in patch order.
type Patch struct {
	Sections []Section
}

// Error is what every function of the package returns on failure.
type Error struct {
	// Line is the 1-based patch line the error is about; 0 when it is not
	// tied to a patch line (Decode, or an invalid File given to Apply).
	Line int
	Msg  string
}

// Error returns "line N: msg", or just msg when Line is 0.
func (e *Error) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

func errorf(line int, format string, args ...any) *Error {
	return &Error{Line: line, Msg: fmt.Sprintf(format, args...)}
}

// File is the canonical in-memory form of a file (LP1.md §3).
type File struct {
	// Lines are the line texts without line endings; nil for the empty file.
	Lines []string
	// FinalNewline reports whether the last line is followed by a line
	// ending. It is false whenever Lines is empty.
	FinalNewline bool
	// EOL is the file's line ending, "\n" or "\r\n". Decode sets "\n" when
	// the file has no line ending (the policy of §2); the zero value ""
	// means the same.
	EOL string
}
