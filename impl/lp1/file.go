package lp1

import (
	"bytes"
	"fmt"
)

const (
	lf   = "\n"
	crlf = "\r\n"
)

func eolName(eol string) string {
	if eol == crlf {
		return "CRLF"
	}
	return "LF"
}

// Decode turns file bytes into the canonical form (LP1.md §1-3). It scans
// left to right: CR LF is one CRLF boundary, a lone LF an LF boundary, and
// any other CR is an error; the first boundary fixes the file's EOL and a
// boundary of the other kind is an error (mixed EOL). Text after the last
// boundary is a last line without a final newline. Empty input gives
// Lines nil, FinalNewline false; a file without any boundary gets EOL "\n".
// Line texts are the bytes as they are, valid UTF-8 or not.
func Decode(b []byte) (File, error) {
	f := File{}
	start := 0
	for i := 0; i < len(b); i++ {
		var kind string
		switch b[i] {
		case '\r':
			if i+1 >= len(b) || b[i+1] != '\n' {
				return File{}, &Error{Msg: fmt.Sprintf(`file line %d: bare CR (a "\r" not followed by "\n")`, len(f.Lines)+1)}
			}
			kind = crlf
		case '\n':
			kind = lf
		default:
			continue
		}
		switch {
		case f.EOL == "":
			f.EOL = kind
		case kind != f.EOL:
			return File{}, &Error{Msg: fmt.Sprintf("file line %d: mixed line endings: the line ends with %s, but line 1 ends with %s", len(f.Lines)+1, eolName(kind), eolName(f.EOL))}
		}
		f.Lines = append(f.Lines, string(b[start:i]))
		i += len(kind) - 1
		start = i + 1
	}
	if start < len(b) {
		f.Lines = append(f.Lines, string(b[start:]))
	} else {
		f.FinalNewline = len(f.Lines) > 0
	}
	if f.EOL == "" {
		f.EOL = lf
	}
	return f, nil
}

// Encode emits the file (LP1.md §4): the lines joined by EOL, plus one EOL
// when FinalNewline is set. An empty EOL means "\n".
func (f File) Encode() []byte {
	eol := f.EOL
	if eol == "" {
		eol = lf
	}
	var b bytes.Buffer
	for i, l := range f.Lines {
		if i > 0 {
			b.WriteString(eol)
		}
		b.WriteString(l)
	}
	if f.FinalNewline {
		b.WriteString(eol)
	}
	return b.Bytes()
}
