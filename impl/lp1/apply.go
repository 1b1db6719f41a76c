package lp1

import (
	"fmt"
	"strings"
)

// Apply runs ops in order, each on the content the previous one left
// (LP1.md "Normative semantics"), and returns the new content; f is not
// modified. On failure it returns the zero File and an *Error carrying the
// failing op's Line.
//
// R/I/P/E find Match as a run of whole lines compared byte for byte. With
// Occ 0 the run must occur exactly once; with Occ k it is the k-th run in
// order of start line, overlapping runs counted (I-LP-08). An empty Match is
// an error (I-LP-09). New lines take the file's EOL, since lines carry none.
// T and B add their block after the last or before the first line; an empty
// block changes nothing (I-LP-13). N follows LP1.md §5. FinalNewline is
// otherwise kept, except that after every op a file left without lines has
// FinalNewline false (§4's invariant; I-LP-11).
func Apply(f File, ops []Op) (File, error) { return apply(f, ops, Options{}) }

// apply is Apply under o.
func apply(f File, ops []Op, o Options) (File, error) {
	if msg := checkFile(f); msg != "" {
		return File{}, &Error{Msg: "invalid file: " + msg}
	}
	st := File{Lines: append([]string(nil), f.Lines...), FinalNewline: f.FinalNewline, EOL: f.EOL}
	if st.EOL == "" {
		st.EOL = lf
	}
	for _, op := range ops {
		if err := applyOp(&st, op, o); err != nil {
			return File{}, err
		}
		if len(st.Lines) == 0 && !o.KeepFinalNewline {
			st.Lines, st.FinalNewline = nil, false
		}
	}
	if len(st.Lines) == 0 {
		st.Lines, st.FinalNewline = nil, false
	}
	return st, nil
}

// checkFile reports what makes f unlike anything Decode returns.
func checkFile(f File) string {
	switch {
	case f.EOL != "" && f.EOL != lf && f.EOL != crlf:
		return fmt.Sprintf(`EOL is %q, want "\n" or "\r\n"`, f.EOL)
	case len(f.Lines) == 0 && f.FinalNewline:
		return "FinalNewline is set on a file without lines"
	}
	for i, l := range f.Lines {
		if strings.ContainsAny(l, "\r\n") {
			return fmt.Sprintf("line %d contains a line break", i+1)
		}
	}
	return ""
}

// checkRows reports a row of a block that could not be a line.
func checkRows(rows []string) string {
	for i, r := range rows {
		if strings.ContainsAny(r, "\r\n") {
			return fmt.Sprintf("row %d contains a line break", i+1)
		}
	}
	return ""
}

// name is the command as written, for messages: "R" or "R 2".
func (op Op) name() string {
	if op.Occ > 0 {
		return fmt.Sprintf("%c %d", op.Kind, op.Occ)
	}
	return string(rune(op.Kind))
}

func applyOp(st *File, op Op, o Options) *Error {
	switch op.Kind {
	case Replace, InsertAfter, InsertBefore, Erase:
		if op.Occ < 0 {
			return errorf(op.Line, "%c: invalid occurrence %d", op.Kind, op.Occ)
		}
		if msg := checkRows(op.Match); msg != "" {
			return errorf(op.Line, "%s: match block %s", op.name(), msg)
		}
		if op.Kind != Erase {
			if msg := checkRows(op.Block); msg != "" {
				return errorf(op.Line, "%s: new block %s", op.name(), msg)
			}
		}
		at, err := find(st.Lines, op, o)
		if err != nil {
			return err
		}
		m := len(op.Match)
		switch op.Kind {
		case Replace:
			st.Lines = splice(st.Lines, at, m, op.Block)
		case InsertAfter:
			st.Lines = splice(st.Lines, at+m, 0, op.Block)
		case InsertBefore:
			st.Lines = splice(st.Lines, at, 0, op.Block)
		case Erase:
			st.Lines = splice(st.Lines, at, m, nil)
		}
	case Append, Prepend:
		if op.Occ != 0 {
			return errorf(op.Line, "%c takes no occurrence", op.Kind)
		}
		if msg := checkRows(op.Block); msg != "" {
			return errorf(op.Line, "%c: block %s", op.Kind, msg)
		}
		if op.Kind == Append {
			st.Lines = splice(st.Lines, len(st.Lines), 0, op.Block)
		} else {
			st.Lines = splice(st.Lines, 0, 0, op.Block)
		}
	case SetFinalNewline:
		if op.Occ != 0 {
			return errorf(op.Line, "N takes no occurrence")
		}
		if op.FinalNewline {
			if len(st.Lines) == 0 {
				st.Lines = []string{""}
			}
			st.FinalNewline = true
		} else {
			if len(st.Lines) == 1 && st.Lines[0] == "" && st.FinalNewline {
				st.Lines = nil
			}
			st.FinalNewline = false
		}
	default:
		return errorf(op.Line, "unknown operation %q", rune(op.Kind))
	}
	return nil
}

// find returns the start of the run of lines op selects.
func find(lines []string, op Op, o Options) (int, *Error) {
	if len(op.Match) == 0 && op.Occ > 0 && o.EmptyMatchWithOcc {
		if op.Occ > len(lines)+1 {
			return 0, errorf(op.Line, "%s: occurrence %d requested, but an empty match block matches only %d time%s", op.name(), op.Occ, len(lines)+1, plural(len(lines)+1))
		}
		return op.Occ - 1, nil
	}
	if len(op.Match) == 0 {
		return 0, errorf(op.Line, "%s: the match block is empty (it would match at every position)", op.name())
	}
	var starts []int
	for i := 0; i+len(op.Match) <= len(lines); i++ {
		if equal(lines[i:i+len(op.Match)], op.Match) {
			starts = append(starts, i)
		}
	}
	switch {
	case len(starts) == 0:
		return 0, errorf(op.Line, "%s: the match block (%s) is not in the file", op.name(), describe(op.Match))
	case op.Occ == 0 && len(starts) > 1:
		return 0, errorf(op.Line, "%s: the match block (%s) is ambiguous: it matches %d times, at file lines %s; add an occurrence number", op.name(), describe(op.Match), len(starts), lineList(starts))
	case op.Occ > len(starts):
		return 0, errorf(op.Line, "%s: occurrence %d requested, but the match block (%s) matches only %d time%s", op.name(), op.Occ, describe(op.Match), len(starts), plural(len(starts)))
	case op.Occ == 0:
		return starts[0], nil
	}
	return starts[op.Occ-1], nil
}

func equal(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// describe summarises a match block for a message.
func describe(rows []string) string {
	if len(rows) == 1 {
		return fmt.Sprintf("1 line: %q", rows[0])
	}
	return fmt.Sprintf("%d lines, first %q", len(rows), rows[0])
}

// lineList lists 0-based starts as 1-based file lines, at most ten.
func lineList(starts []int) string {
	var b strings.Builder
	for i, s := range starts {
		if i == 10 {
			b.WriteString(", ...")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, s+1)
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// splice returns a new slice: lines with del lines at 'at' replaced by ins.
// It never shares storage with lines or ins.
func splice(lines []string, at, del int, ins []string) []string {
	out := make([]string, 0, len(lines)-del+len(ins))
	out = append(out, lines[:at]...)
	out = append(out, ins...)
	return append(out, lines[at+del:]...)
}
