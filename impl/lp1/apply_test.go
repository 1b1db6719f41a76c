package lp1

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// applyText decodes in, parses a one-section patch whose commands are body
// (they start at patch line 3) and applies it.
func applyText(t *testing.T, in, body string) (string, error) {
	t.Helper()
	f, err := Decode([]byte(in))
	if err != nil {
		t.Fatalf("Decode(%q): %v", in, err)
	}
	p, err := Parse("LP1\nF f\n" + body + "END\n")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	got, err := Apply(f, p.Sections[0].Ops)
	if err != nil {
		return "", err
	}
	if len(got.Lines) == 0 && got.FinalNewline {
		t.Errorf("Apply left no lines but FinalNewline set")
	}
	return string(got.Encode()), nil
}

func TestApply(t *testing.T) {
	tests := []struct {
		name, in, body, want string
	}{
		// R
		{"R replaces a unique line", "a\nb\nc\n", "R\nb\n.\nB\n.\n", "a\nB\nc\n"},
		{"R replaces several lines with more lines", "a\nb\nc\nd\n", "R\nb\nc\n.\nx\ny\nz\n.\n", "a\nx\ny\nz\nd\n"},
		{"R with occurrence 2", "x\ny\nx\n", "R 2\nx\n.\nz\n.\n", "x\ny\nz\n"},
		{"R with occurrence 1 of a unique match", "x\ny\n", "R 1\ny\n.\nz\n.\n", "x\nz\n"},
		{"R with an empty new block deletes", "a\nb\nc\n", "R\nb\n.\n.\n", "a\nc\n"},
		{"R of every line with nothing empties the file", "a\nb\n", "R\na\nb\n.\n.\n", ""},
		{"R of the only line with an empty line", "a\n", "R\na\n.\n\n.\n", "\n"},
		{"R of the only line of a file without final newline with an empty line", "a", "R\na\n.\n\n.\n", ""},
		{"R on the last line keeps a missing final newline", "a\nb", "R\nb\n.\nc\n.\n", "a\nc"},
		{"R matches an empty line", "a\n\nb\n", "R\n\n.\nx\n.\n", "a\nx\nb\n"},
		{"R matches the empty line of a newline-only file", "\n", "R\n\n.\nx\n.\n", "x\n"},
		// I and P
		{"I inserts after", "a\nb\n", "I\na\n.\nx\n.\n", "a\nx\nb\n"},
		{"I after the last line", "a\nb\n", "I\nb\n.\nx\ny\n.\n", "a\nb\nx\ny\n"},
		{"I after the last line of a file without final newline", "a\nb", "I\nb\n.\nx\n.\n", "a\nb\nx"},
		{"I after a multi-line match with occurrence", "a\nb\na\nb\n", "I 2\na\nb\n.\nx\n.\n", "a\nb\na\nb\nx\n"},
		{"I with an empty new block changes nothing", "a\n", "I\na\n.\n.\n", "a\n"},
		{"P inserts before", "a\nb\n", "P\nb\n.\nx\n.\n", "a\nx\nb\n"},
		{"P before the first line", "a\nb\n", "P\na\n.\nx\n.\n", "x\na\nb\n"},
		{"P with occurrence 3", "k\nk\nk\n", "P 3\nk\n.\nx\n.\n", "k\nk\nx\nk\n"},
		// E
		{"E deletes", "a\nb\nc\n", "E\nb\n.\n", "a\nc\n"},
		{"E deletes the last line of a file without final newline", "a\nb", "E\nb\n.\n", "a"},
		{"E of every line empties the file", "a\n", "E\na\n.\n", ""},
		{"E of the only empty line empties the file", "\n", "E\n\n.\n", ""},
		{"E empties, T then appends without final newline", "a\n", "E\na\n.\nT\nb\n.\n", "b"},
		{"E of overlapping matches, occurrence 2", "a\na\na\n", "E 2\na\na\n.\n", "a\n"},
		// T and B
		{"T appends", "a\n", "T\nb\nc\n.\n", "a\nb\nc\n"},
		{"T on a file without final newline inserts a boundary and keeps none at the end", "a", "T\nb\n.\n", "a\nb"},
		{"T on the empty file", "", "T\nb\n.\n", "b"},
		{"T on the empty file, then N +", "", "T\nb\n.\nN +\n", "b\n"},
		{"T with an empty block changes nothing", "a", "T\n.\n", "a"},
		{"T with an empty block on the empty file", "", "T\n.\n", ""},
		{"T of an empty line", "a\n", "T\n\n.\n", "a\n\n"},
		{"T on a newline-only file", "\n", "T\nb\n.\n", "\nb\n"},
		{"B prepends", "a\n", "B\nx\ny\n.\n", "x\ny\na\n"},
		{"B on a file without final newline", "a", "B\nx\n.\n", "x\na"},
		{"B on the empty file", "", "B\nx\n.\n", "x"},
		{"B with an empty block changes nothing", "a\n", "B\n.\n", "a\n"},
		// N
		{"N + adds the final newline", "a", "N +\n", "a\n"},
		{"N + keeps it", "a\n", "N +\n", "a\n"},
		{"N + on the empty file", "", "N +\n", "\n"},
		{"N - removes it", "a\nb\n", "N -\n", "a\nb"},
		{"N - keeps its absence", "a", "N -\n", "a"},
		{"N - on a newline-only file empties it", "\n", "N -\n", ""},
		{"N - on the empty file", "", "N -\n", ""},
		{"N - on two empty lines removes one boundary", "\n\n", "N -\n", "\n"},
		{"the last N wins: + then -", "a", "N +\nN -\n", "a"},
		{"the last N wins: - then +", "a\n", "N -\nN +\n", "a\n"},
		{"N + then N - on the empty file", "", "N +\nN -\n", ""},
		{"N - then N + on a newline-only file", "\n", "N -\nN +\n", "\n"},
		{"N + then T on the empty file", "", "N +\nT\nb\n.\n", "\nb\n"},
		// CRLF files
		{"CRLF: R keeps CRLF", "a\r\nb\r\n", "R\na\n.\nx\ny\n.\n", "x\r\ny\r\nb\r\n"},
		{"CRLF: T on a file without final newline", "a\r\nb", "T\nc\n.\n", "a\r\nb\r\nc"},
		{"CRLF: N +", "a\r\nb", "N +\n", "a\r\nb\r\n"},
		{"CRLF: N -", "a\r\nb\r\n", "N -\n", "a\r\nb"},
		{"CRLF: N - on a CRLF-only file", "\r\n", "N -\n", ""},
		{"CRLF: E", "a\r\nb\r\nc\r\n", "E\nb\n.\n", "a\r\nc\r\n"},
		{"no boundary: edits use LF", "a", "T\nb\n.\nN +\n", "a\nb\n"},
		// Matching
		{"dot-stuffed rows match and insert lines beginning with a dot", ".env\n..x\n", "R\n..env\n...x\n.\n..\n..y\n.\n", ".\n.y\n"},
		{"rows that look like patch syntax are content", "END\n# c\n", "R\nEND\n# c\n.\nF x\n.\n", "F x\n"},
		{"trailing whitespace is significant", "a \na\n", "E\na\n.\n", "a \n"},
		{"tabs are significant", "\ta\na\n", "E\n\ta\n.\n", "a\n"},
		// Sequential application
		{"each op sees the previous result", "a\n", "R\na\n.\nb\n.\nR\nb\n.\nc\n.\n", "c\n"},
		{"an op can match what an earlier op inserted", "a\n", "T\nx\n.\nI\nx\n.\ny\n.\nE\na\n.\n", "x\ny\n"},
		{"a match made unique by an earlier op", "a\na\n", "E 1\na\n.\nR\na\n.\nb\n.\n", "b\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := applyText(t, tt.in, tt.body)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if got != tt.want {
				t.Errorf("Apply(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestApplyErrors(t *testing.T) {
	tests := []struct {
		name, in, body string
		line           int
		msg            string
	}{
		{"not found", "a\nb\n", "R\nc\n.\nx\n.\n", 3, `R: the match block (1 line: "c") is not in the file`},
		{"not found in the empty file", "", "E\na\n.\n", 3, "E: the match block (1 line: \"a\") is not in the file"},
		{"match only within a line", "abc\n", "R\nb\n.\nx\n.\n", 3, "is not in the file"},
		{"no whitespace trimming", "a\n", "R\na \n.\nx\n.\n", 3, "is not in the file"},
		{"case-sensitive", "a\n", "E\nA\n.\n", 3, "is not in the file"},
		{"multi-line match in the wrong order", "a\nb\n", "E\nb\na\n.\n", 3, `E: the match block (2 lines, first "b") is not in the file`},
		{"not found with occurrence", "a\n", "I 2\nb\n.\nx\n.\n", 3, "I 2: the match block (1 line: \"b\") is not in the file"},
		{"ambiguous", "x\ny\nx\n", "R\nx\n.\nz\n.\n", 3, `R: the match block (1 line: "x") is ambiguous: it matches 2 times, at file lines 1, 3; add an occurrence number`},
		{"ambiguous through overlap", "a\na\na\n", "P\na\na\n.\nx\n.\n", 3, "it matches 2 times, at file lines 1, 2"},
		{"ambiguous, many matches", strings.Repeat("k\n", 12), "E\nk\n.\n", 3, "it matches 12 times, at file lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ...;"},
		{"occurrence beyond the matches", "x\ny\nx\n", "R 3\nx\n.\nz\n.\n", 3, `R 3: occurrence 3 requested, but the match block (1 line: "x") matches only 2 times`},
		{"occurrence 2 of a unique match", "x\n", "E 2\nx\n.\n", 3, "matches only 1 time"},
		{"empty match block", "a\n", "R\n.\nx\n.\n", 3, "R: the match block is empty (it would match at every position)"},
		{"empty match block on the empty file", "", "I\n.\nx\n.\n", 3, "I: the match block is empty"},
		{"empty match block with occurrence", "a\n", "E 1\n.\n", 3, "E 1: the match block is empty"},
		{"I with an empty new block still needs its match", "a\n", "I\nb\n.\n.\n", 3, "is not in the file"},
		{"the failing op's line", "a\n", "N +\n# c\nE\na\n.\nE\na\n.\n", 8, "E: the match block (1 line: \"a\") is not in the file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := applyText(t, tt.in, tt.body)
			if err == nil {
				t.Fatalf("Apply succeeded: %q", got)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is a %T, want *Error", err, err)
			}
			if e.Line != tt.line || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("error = %q, want line %d and a message containing %q", err, tt.line, tt.msg)
			}
		})
	}
}

// Apply checks what it is given when it did not come from Decode and Parse.
func TestApplyInvalidInput(t *testing.T) {
	ok := File{Lines: rows("a"), FinalNewline: true, EOL: "\n"}
	tests := []struct {
		name string
		f    File
		op   Op
		line int
		msg  string
	}{
		{"bad EOL", File{Lines: rows("a"), EOL: "\r"}, Op{Kind: SetFinalNewline, Line: 4}, 0, `invalid file: EOL is "\r"`},
		{"final newline without lines", File{FinalNewline: true}, Op{Kind: SetFinalNewline, Line: 4}, 0, "invalid file: FinalNewline is set on a file without lines"},
		{"line with a line break", File{Lines: rows("a", "b\rc")}, Op{Kind: SetFinalNewline, Line: 4}, 0, "invalid file: line 2 contains a line break"},
		{"unknown kind", ok, Op{Kind: 'Z', Line: 4}, 4, "unknown operation 'Z'"},
		{"negative occurrence", ok, Op{Kind: Erase, Occ: -1, Match: rows("a"), Line: 4}, 4, "E: invalid occurrence -1"},
		{"T with an occurrence", ok, Op{Kind: Append, Occ: 1, Block: rows("a"), Line: 4}, 4, "T takes no occurrence"},
		{"N with an occurrence", ok, Op{Kind: SetFinalNewline, Occ: 1, Line: 4}, 4, "N takes no occurrence"},
		{"match row with a line break", ok, Op{Kind: Replace, Match: rows("a\nb"), Line: 4}, 4, "R: match block row 1 contains a line break"},
		{"new row with a line break", ok, Op{Kind: InsertAfter, Match: rows("a"), Block: rows("x", "\r"), Line: 4}, 4, "I: new block row 2 contains a line break"},
		{"T row with a line break", ok, Op{Kind: Append, Block: rows("\n"), Line: 4}, 4, "T: block row 1 contains a line break"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Apply(tt.f, []Op{tt.op})
			if err == nil {
				t.Fatalf("Apply succeeded: %+v", got)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is a %T, want *Error", err, err)
			}
			if e.Line != tt.line || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("error = %q, want line %d and a message containing %q", err, tt.line, tt.msg)
			}
		})
	}
}

func TestApplyStructs(t *testing.T) {
	tests := []struct {
		name string
		f    File
		ops  []Op
		want File
	}{
		{"no ops copies the file", File{Lines: rows("a"), EOL: "\r\n"}, nil, File{Lines: rows("a"), EOL: "\r\n"}},
		{"zero File: EOL becomes LF", File{}, []Op{{Kind: Append, Block: rows("a", "b")}}, File{Lines: rows("a", "b"), EOL: "\n"}},
		{"emptied file has nil lines and no final newline",
			File{Lines: rows("a"), FinalNewline: true, EOL: "\r\n"},
			[]Op{{Kind: Erase, Match: rows("a")}},
			File{EOL: "\r\n"}},
		{"a single empty line without final newline is kept as it is",
			File{Lines: rows("a"), EOL: "\n"},
			[]Op{{Kind: Replace, Match: rows("a"), Block: rows("")}},
			File{Lines: rows(""), EOL: "\n"}},
		{"N + on the zero File", File{}, []Op{{Kind: SetFinalNewline, FinalNewline: true}}, File{Lines: rows(""), FinalNewline: true, EOL: "\n"}},
		{"fields a kind does not use are ignored",
			File{Lines: rows("a"), EOL: "\n"},
			[]Op{{Kind: Append, Match: rows("zz"), Block: rows("b"), FinalNewline: true}, {Kind: Erase, Match: rows("a"), Block: rows("q")}},
			File{Lines: rows("b"), EOL: "\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Apply(tt.f, tt.ops)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Apply (-want +got):\n%s", d)
			}
		})
	}
}

// Apply neither modifies its input nor shares storage with it or the ops.
func TestApplyDoesNotAlias(t *testing.T) {
	in := File{Lines: rows("a", "b", "c"), FinalNewline: true, EOL: "\n"}
	ops := []Op{{Kind: Replace, Match: rows("b"), Block: rows("x", "y")}, {Kind: SetFinalNewline}}
	got, err := Apply(in, ops)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(File{Lines: rows("a", "b", "c"), FinalNewline: true, EOL: "\n"}, in); d != "" {
		t.Errorf("input changed (-want +got):\n%s", d)
	}
	got.Lines[0], got.Lines[1] = "changed", "changed"
	if in.Lines[0] != "a" || ops[0].Block[0] != "x" {
		t.Errorf("the result shares storage with the input or the ops")
	}
	same, err := Apply(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	same.Lines[0] = "changed"
	if in.Lines[0] != "a" {
		t.Errorf("Apply without ops returned the input's lines")
	}
}
