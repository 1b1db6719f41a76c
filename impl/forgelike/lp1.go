package main

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/forge-conform/forge-conform/impl/lp1"
)

// forgeLP1 reads LP1 as Forge's parser does (observed in Forge's own
// code): the applypatch.Dialect of the emulation. Where LP1's EBNF is
// strict Forge is lenient, and every leniency below is one of the grammar
// deviations the suite must fail:
//
//   - lines are cut at LF only; a CR before the LF (and one more CR at the
//     end of any line) is dropped, any other CR stays in the line, so a
//     bare CR in a block row, a comment or after END is accepted;
//   - blank and comment lines are skipped before LP1 too, and nothing after
//     END is read;
//   - "whitespace" is Unicode White_Space (U+00A0, U+2028, form feed...)
//     wherever the parser trims, except around a block terminator;
//   - a command is its first character: "R1" is R with occurrence 1, and
//     T and B ignore the rest of their line ("T 1", "B x", "T # c");
//   - an occurrence is Rust's usize parse, so "01" and "+1" are 1;
//   - "N+" is N with "+" (the flag is the trimmed rest of the line);
//   - a line starting with "F" is a file section, "Fa.txt" included; a bare
//     path is the first whitespace-separated word of the rest, so a path
//     with a space loses its tail, a `"` inside is kept and trailing text is
//     ignored; text after a quoted path's closing quote is ignored.
//
// Its errors are Forge's messages, without line numbers. Apply follows
// Forge's apply_ops: an empty match block with an occurrence selects the
// position before line occ (so E 1 with an empty block erases nothing),
// final_newline is kept from the preimage until the section's last
// operation (I-LP-11, Forge's side). Where Forge's own code would panic (a
// match block longer than the file: Rust's slice index out of range) the
// emulation answers "Match not found" instead.
type forgeLP1 struct{}

func lp1Err(msg string) error { return errors.New(msg) }

// forgeLines cuts the patch as Rust's str::lines followed by
// strip_suffix('\r') does: at LF; a line ended by CR LF loses that CR,
// and every line loses one more trailing CR.
func forgeLines(input string) []string {
	var out []string
	for input != "" {
		line := input
		i := strings.IndexByte(input, '\n')
		if i >= 0 {
			line, input = input[:i], input[i+1:]
			line = strings.TrimSuffix(line, "\r")
		} else {
			input = ""
		}
		out = append(out, strings.TrimSuffix(line, "\r"))
	}
	return out
}

func trimWS(s string) string       { return strings.TrimFunc(s, unicode.IsSpace) }
func trimLeftWS(s string) string   { return strings.TrimLeftFunc(s, unicode.IsSpace) }
func blankOrComment(s string) bool { t := trimLeftWS(s); return t == "" || t[0] == '#' }

// Parse reads a patch as Forge's parse_patch.
func (forgeLP1) Parse(input string) (*lp1.Patch, error) {
	lines := forgeLines(input)
	i := 0
	for i < len(lines) && blankOrComment(lines[i]) {
		i++
	}
	if i >= len(lines) {
		return nil, lp1Err("Missing LP1 header")
	}
	if trimWS(lines[i]) != "LP1" {
		return nil, lp1Err("Invalid LP1 header")
	}
	i++
	p := &lp1.Patch{}
	for {
		for i < len(lines) && blankOrComment(lines[i]) {
			i++
		}
		if i >= len(lines) {
			return nil, lp1Err("Missing END footer")
		}
		t := trimWS(lines[i])
		if t == "END" {
			return p, nil
		}
		if !strings.HasPrefix(t, "F") {
			return nil, lp1Err("Expected file section (F <path>)")
		}
		path, err := forgePath(lines[i])
		if err != nil {
			return nil, err
		}
		sec := lp1.Section{Path: path, Line: i + 1}
		i++
		for i < len(lines) {
			if blankOrComment(lines[i]) {
				i++
				continue
			}
			if t := trimWS(lines[i]); t == "END" || strings.HasPrefix(t, "F") {
				break
			}
			op, next, err := forgeOp(lines, i)
			if err != nil {
				return nil, err
			}
			sec.Ops = append(sec.Ops, op)
			i = next
		}
		p.Sections = append(p.Sections, sec)
	}
}

// forgePath reads the path of an F line (it starts with F after trimming).
func forgePath(line string) (string, error) {
	s := trimLeftWS(trimLeftWS(line)[1:])
	if s == "" {
		return "", lp1Err("Missing file path")
	}
	if s[0] != '"' {
		return strings.Fields(s)[0], nil
	}
	var b strings.Builder
	escaped := false
	for _, r := range s[1:] {
		switch {
		case escaped:
			if r != '"' && r != '\\' {
				return "", lp1Err("Invalid escape in quoted path")
			}
			b.WriteRune(r)
			escaped = false
		case r == '\\':
			escaped = true
		case r == '"':
			return b.String(), nil
		default:
			b.WriteRune(r)
		}
	}
	return "", lp1Err("Unterminated quoted path")
}

// forgeOp reads the operation at lines[start]; next is the line after it.
func forgeOp(lines []string, start int) (op lp1.Op, next int, err error) {
	line := trimLeftWS(lines[start])
	cmd, size := utf8.DecodeRuneInString(line)
	rest := trimWS(line[size:])
	op = lp1.Op{Line: start + 1}
	next = start + 1
	switch cmd {
	case 'R', 'I', 'P', 'E':
		op.Kind = lp1.OpKind(cmd)
		if op.Occ, err = forgeOcc(rest); err != nil {
			return op, 0, err
		}
		if op.Match, next, err = forgeBlock(lines, next); err != nil {
			return op, 0, err
		}
		if cmd != 'E' {
			if op.Block, next, err = forgeBlock(lines, next); err != nil {
				return op, 0, err
			}
		}
	case 'T', 'B':
		op.Kind = lp1.OpKind(cmd)
		if op.Block, next, err = forgeBlock(lines, next); err != nil {
			return op, 0, err
		}
	case 'N':
		op.Kind = lp1.SetFinalNewline
		switch rest {
		case "+":
			op.FinalNewline = true
		case "-":
		default:
			return op, 0, lp1Err("Invalid N flag; expected + or -")
		}
	default:
		return op, 0, lp1Err("Unknown LP1 operation")
	}
	return op, next, nil
}

// forgeOcc parses an occurrence as Rust's usize: an optional "+", then
// decimal digits; 0 means none (the rest was empty).
func forgeOcc(rest string) (int, error) {
	if rest == "" {
		return 0, nil
	}
	digits := strings.TrimPrefix(rest, "+")
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return 0, lp1Err("Invalid occurrence")
	}
	v, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return 0, lp1Err("Invalid occurrence")
	}
	if v == 0 {
		return 0, lp1Err("Occurrence must be >= 1")
	}
	return int(min(v, math.MaxInt)), nil
}

// forgeBlock reads a dot-terminated block from lines[i].
func forgeBlock(lines []string, i int) ([]string, int, error) {
	block := []string{}
	for ; i < len(lines); i++ {
		row := lines[i]
		switch {
		case strings.HasPrefix(row, ".") && strings.Trim(row[1:], " \t") == "":
			return block, i + 1, nil
		case strings.HasPrefix(row, ".."):
			block = append(block, row[1:])
		case strings.HasPrefix(row, "."):
			return nil, 0, lp1Err("Dot-stuffed line must start with '..'")
		default:
			block = append(block, row)
		}
	}
	return nil, 0, lp1Err("Unterminated LP1 block")
}

// Decode reads file bytes as Forge's parse_file: LF or CR LF boundaries, a
// bare CR or a second kind of boundary is an error, every line must be
// UTF-8.
func (forgeLP1) Decode(b []byte) (lp1.File, error) {
	f := lp1.File{}
	start := 0
	for i := 0; i < len(b); i++ {
		eol := ""
		switch b[i] {
		case '\r':
			if i+1 >= len(b) || b[i+1] != '\n' {
				return lp1.File{}, lp1Err("Bare CR in file")
			}
			eol = "\r\n"
		case '\n':
			eol = "\n"
		default:
			continue
		}
		if f.EOL != "" && f.EOL != eol {
			return lp1.File{}, lp1Err("Mixed EOL detected")
		}
		f.EOL = eol
		line := b[start:i]
		if !utf8.Valid(line) {
			return lp1.File{}, lp1Err("Invalid UTF-8 in file")
		}
		f.Lines = append(f.Lines, string(line))
		i += len(eol) - 1
		start = i + 1
	}
	if start < len(b) {
		if !utf8.Valid(b[start:]) {
			return lp1.File{}, lp1Err("Invalid UTF-8 in file")
		}
		f.Lines = append(f.Lines, string(b[start:]))
	} else {
		f.FinalNewline = len(f.Lines) > 0
	}
	return f, nil
}

// Apply runs one section's operations as Forge's apply_ops.
func (forgeLP1) Apply(f lp1.File, ops []lp1.Op) (lp1.File, error) {
	lines := append([]string(nil), f.Lines...)
	final := f.FinalNewline
	eol := f.EOL
	splice := func(at, del int, ins []string) { lines = slices.Replace(lines, at, at+del, ins...) }
	for _, op := range ops {
		switch op.Kind {
		case lp1.Replace, lp1.InsertAfter, lp1.InsertBefore, lp1.Erase:
			at, err := forgeFind(lines, op.Match, op.Occ)
			if err != nil {
				return lp1.File{}, err
			}
			switch op.Kind {
			case lp1.Replace:
				splice(at, len(op.Match), op.Block)
			case lp1.InsertAfter:
				splice(at+len(op.Match), 0, op.Block)
			case lp1.InsertBefore:
				splice(at, 0, op.Block)
			case lp1.Erase:
				splice(at, len(op.Match), nil)
			}
		case lp1.Append:
			splice(len(lines), 0, op.Block)
		case lp1.Prepend:
			splice(0, 0, op.Block)
		case lp1.SetFinalNewline:
			switch {
			case op.FinalNewline && len(lines) == 0:
				lines, final = []string{""}, true
				if eol == "" {
					eol = "\n"
				}
			case op.FinalNewline:
				final = true
			case len(lines) == 1 && lines[0] == "" && final:
				lines, final = nil, false
			default:
				final = false
			}
		}
	}
	if len(lines) == 0 {
		lines, final = nil, false
	}
	return lp1.File{Lines: lines, FinalNewline: final, EOL: eol}, nil
}

// forgeFind is Forge's find_match: the start of the selected run.
func forgeFind(lines, block []string, occ int) (int, error) {
	if len(block) == 0 {
		if occ == 0 {
			return 0, lp1Err("Empty match requires occurrence")
		}
		if occ-1 > len(lines) {
			return 0, lp1Err("Occurrence out of range")
		}
		return occ - 1, nil
	}
	var matches []int
	for i := 0; i+len(block) <= len(lines); i++ {
		if slices.Equal(lines[i:i+len(block)], block) {
			matches = append(matches, i)
		}
	}
	switch {
	case len(matches) == 0:
		return 0, lp1Err("Match not found")
	case occ > 0 && occ > len(matches):
		return 0, lp1Err("Occurrence out of range")
	case occ > 0:
		return matches[occ-1], nil
	case len(matches) != 1:
		return 0, lp1Err("Match is not unique")
	}
	return matches[0], nil
}
