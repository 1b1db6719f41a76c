package lp1

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func rows(s ...string) []string { return s }

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want *Patch
	}{
		{"no sections", "LP1\nEND\n", &Patch{}},
		{"footer without line ending", "LP1\nEND", &Patch{}},
		{"header and footer with spaces and tabs", " \tLP1 \t\n\t END  ", &Patch{}},
		{"CRLF lines", "LP1\r\nF a\r\nT\r\nx\r\n.\r\nEND\r\n", &Patch{Sections: []Section{
			{Path: "a", Line: 2, Ops: []Op{{Kind: Append, Block: rows("x"), Line: 3}}},
		}}},
		{"LF and CRLF lines mixed", "LP1\nF a\r\nT\n\r\nx\r\n.\nEND\r\n", &Patch{Sections: []Section{
			{Path: "a", Line: 2, Ops: []Op{{Kind: Append, Block: rows("", "x"), Line: 3}}},
		}}},
		{"comments and blank lines wherever statements go",
			"LP1\n# top\n\n  \t\n  # indented\nF a\n# after F\n\nN +\n\t# between ops\n \nN -\n# before END\n\nEND\n",
			&Patch{Sections: []Section{{Path: "a", Line: 6, Ops: []Op{
				{Kind: SetFinalNewline, FinalNewline: true, Line: 9},
				{Kind: SetFinalNewline, Line: 12},
			}}}}},
		{"every command",
			"LP1\nF f\nR\na\n.\nb\n.\nI 2\nc\n.\nd\ne\n.\nP 10\nf\n.\n.\nE\ng\nh\n.\nT\ni\n.\nB\nj\n.\nN +\nN -\nEND\n",
			&Patch{Sections: []Section{{Path: "f", Line: 2, Ops: []Op{
				{Kind: Replace, Match: rows("a"), Block: rows("b"), Line: 3},
				{Kind: InsertAfter, Occ: 2, Match: rows("c"), Block: rows("d", "e"), Line: 8},
				{Kind: InsertBefore, Occ: 10, Match: rows("f"), Line: 14},
				{Kind: Erase, Match: rows("g", "h"), Line: 18},
				{Kind: Append, Block: rows("i"), Line: 22},
				{Kind: Prepend, Block: rows("j"), Line: 25},
				{Kind: SetFinalNewline, FinalNewline: true, Line: 28},
				{Kind: SetFinalNewline, Line: 29},
			}}}}},
		{"commands with spaces, tabs and a large occurrence",
			"LP1\n  F\t a \t\n\tR\t123456789 \nx\n.\n.\n E \t\n.\n N\t+\t\nEND\n",
			&Patch{Sections: []Section{{Path: "a", Line: 2, Ops: []Op{
				{Kind: Replace, Occ: 123456789, Match: rows("x"), Line: 3},
				{Kind: Erase, Line: 7},
				{Kind: SetFinalNewline, FinalNewline: true, Line: 9},
			}}}}},
		{"quoted path with escapes", "LP1\nF \"a \\\"b\\\" \\\\c\\\\\"  \nN +\nEND\n", &Patch{Sections: []Section{
			{Path: `a "b" \c\`, Line: 2, Ops: []Op{{Kind: SetFinalNewline, FinalNewline: true, Line: 3}}},
		}}},
		{"quoted path with tabs, # and non-ASCII", "LP1\nF \"d\tir/#x ü\"\nN +\nEND\n", &Patch{Sections: []Section{
			{Path: "d\tir/#x ü", Line: 2, Ops: []Op{{Kind: SetFinalNewline, FinalNewline: true, Line: 3}}},
		}}},
		{"empty quoted path", "LP1\nF \"\"\nN +\nEND\n", &Patch{Sections: []Section{
			{Path: "", Line: 2, Ops: []Op{{Kind: SetFinalNewline, FinalNewline: true, Line: 3}}},
		}}},
		{"bare path with backslash, quote-free punctuation and non-ASCII", "LP1\nF ./src/ü\\x#y'z\nN +\nEND\n", &Patch{Sections: []Section{
			{Path: "./src/ü\\x#y'z", Line: 2, Ops: []Op{{Kind: SetFinalNewline, FinalNewline: true, Line: 3}}},
		}}},
		{"block rows are all content",
			"LP1\nF a\nT\n\n  \n# not a comment\nEND\nF b\n\t.\n .\nx\n.\nEND\n",
			&Patch{Sections: []Section{{Path: "a", Line: 2, Ops: []Op{
				{Kind: Append, Block: rows("", "  ", "# not a comment", "END", "F b", "\t.", " .", "x"), Line: 3},
			}}}}},
		{"dot-stuffing", "LP1\nF a\nB\n..x\n..\n...\n.. \n..\t.\n.\nEND\n", &Patch{Sections: []Section{
			{Path: "a", Line: 2, Ops: []Op{{Kind: Prepend, Block: rows(".x", ".", "..", ". ", ".\t."), Line: 3}}},
		}}},
		{"terminator with trailing spaces and tabs", "LP1\nF a\nR\nx\n. \t \ny\n.\t\nEND\n", &Patch{Sections: []Section{
			{Path: "a", Line: 2, Ops: []Op{{Kind: Replace, Match: rows("x"), Block: rows("y"), Line: 3}}},
		}}},
		{"empty blocks", "LP1\nF a\nR\n.\n.\nT\n.\nEND\n", &Patch{Sections: []Section{
			{Path: "a", Line: 2, Ops: []Op{{Kind: Replace, Line: 3}, {Kind: Append, Line: 6}}},
		}}},
		{"no comment or blank between the two blocks", "LP1\nF a\nR\nx\n.\n# c\n\n.\nEND\n", &Patch{Sections: []Section{
			{Path: "a", Line: 2, Ops: []Op{{Kind: Replace, Match: rows("x"), Block: rows("# c", ""), Line: 3}}},
		}}},
		{"several sections, the same path twice", "LP1\nF a\nN +\nF b\nN -\nF a\nN -\nEND\n", &Patch{Sections: []Section{
			{Path: "a", Line: 2, Ops: []Op{{Kind: SetFinalNewline, FinalNewline: true, Line: 3}}},
			{Path: "b", Line: 4, Ops: []Op{{Kind: SetFinalNewline, Line: 5}}},
			{Path: "a", Line: 6, Ops: []Op{{Kind: SetFinalNewline, Line: 7}}},
		}}},
		{"CRLF stripped from block rows, content keeps other whitespace", "LP1\r\nF a\r\nT\r\n x \t\r\n.\r\nEND", &Patch{Sections: []Section{
			{Path: "a", Line: 2, Ops: []Op{{Kind: Append, Block: rows(" x \t"), Line: 3}}},
		}}},
		{"NUL and other control characters are ordinary characters", "LP1\nF a\x00b\nT\n\x00\x0b\n.\nEND\n", &Patch{Sections: []Section{
			{Path: "a\x00b", Line: 2, Ops: []Op{{Kind: Append, Block: rows("\x00\x0b"), Line: 3}}},
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.src)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Parse (-want +got):\n%s", d)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	const pre = "LP1\nF a\n" // the section's commands start at line 3
	tests := []struct {
		name string
		src  string
		line int
		msg  string // a substring of the message
	}{
		// Header and footer.
		{"empty patch", "", 1, "empty patch"},
		{"wrong header", "LP2\nEND\n", 1, `expected the header "LP1"`},
		{"lower-case header", "lp1\nEND\n", 1, `expected the header "LP1"`},
		{"blank line before the header", "\nLP1\nEND\n", 1, `expected the header`},
		{"comment before the header", "# c\nLP1\nEND\n", 1, `expected the header`},
		{"byte order mark before the header", "\ufeffLP1\nEND\n", 1, `expected the header`},
		{"header with other text", "LP1 x\nEND\n", 1, `expected the header`},
		{"non-breaking space is not OWS", "\u00a0LP1\nEND\n", 1, `expected the header`},
		{"header only, no line ending", "LP1", 1, "ends after the header"},
		{"no footer", "LP1\n", 1, `ends without the "END" footer`},
		{"no footer after a section", pre + "T\nx\n.\n", 5, `ends without the "END" footer`},
		{"comment without line ending at the end", "LP1\n# c", 2, `ends without the "END" footer`},
		{"command without line ending at the end", pre + "N +", 3, `ends without the "END" footer`},
		{"terminator without line ending at the end", pre + "T\nx\n.", 5, `ends without the "END" footer`},
		{"lower-case footer", pre + "N +\nend\n", 4, "unknown statement"},
		{"footer with other text", "LP1\nEND x\n", 2, "unknown statement"},
		{"blank line after the footer", "LP1\nEND\n\n", 3, "after the \"END\" footer"},
		{"spaces after the footer's line ending", "LP1\nEND\n  ", 3, "after the \"END\" footer"},
		{"comment after the footer", "LP1\nEND\n# c\n", 3, "after the \"END\" footer"},
		{"second footer", "LP1\nEND\nEND\n", 3, "after the \"END\" footer"},
		{"section after the footer", "LP1\nEND\nF a\nN +\nEND\n", 3, "after the \"END\" footer"},

		// Sections.
		{"section without operations at the end", "LP1\nF a\n# c\n\nEND\n", 2, `F section "a" has no operations`},
		{"section without operations before another", "LP1\nF a\nF b\nN +\nEND\n", 2, `F section "a" has no operations`},
		{"operation before any F", "LP1\nT\nx\n.\nEND\n", 2, "T command before any F section"},
		{"N before any F", "LP1\n# c\nN +\nEND\n", 3, "N command before any F section"},
		{"unknown statement before any F", "LP1\nX\nEND\n", 2, `unknown statement "X"`},
		{"F without path", "LP1\nF\nN +\nEND\n", 2, "F: missing path"},
		{"F with only spaces", "LP1\nF  \t\nN +\nEND\n", 2, "F: missing path"},
		{"F glued to the path", "LP1\nFa\nN +\nEND\n", 2, `unknown statement "Fa"`},
		{"F followed by a non-breaking space", "LP1\nF\u00a0a\nN +\nEND\n", 2, "unknown statement"},
		{"bare path with a space", "LP1\nF a b\nN +\nEND\n", 2, `unexpected "b" after the path "a": a path containing whitespace must be quoted`},
		{"bare path with a non-breaking space", "LP1\nF a\u00a0b\nN +\nEND\n", 2, "must be quoted"},
		{"bare path followed by a non-breaking space", "LP1\nF a\u00a0\nN +\nEND\n", 2, "must be quoted"},
		{"bare path beginning with a non-breaking space", "LP1\nF \u00a0a\nN +\nEND\n", 2, "begins with whitespace"},
		{"bare path with a quote", "LP1\nF a\"b\nN +\nEND\n", 2, `a bare path may not contain '"'`},
		{"unterminated quoted path", "LP1\nF \"a\nN +\nEND\n", 2, "unterminated quoted path"},
		{"quoted path ending in an escaped quote", "LP1\nF \"a\\\"\nN +\nEND\n", 2, "unterminated quoted path"},
		{"quoted path with another escape", "LP1\nF \"a\\nb\"\nN +\nEND\n", 2, "invalid escape"},
		{"quoted path with a trailing backslash", "LP1\nF \"a\\\nN +\nEND\n", 2, "invalid escape"},
		{"text after a quoted path", "LP1\nF \"a\" b\nN +\nEND\n", 2, `unexpected "b" after the quoted path`},
		{"comment after a path", "LP1\nF a # c\nN +\nEND\n", 2, `unexpected "# c" after the path`},

		// Commands.
		{"unknown command", pre + "X\nEND\n", 3, `unknown statement "X"`},
		{"lower-case command", pre + "r\nx\n.\ny\n.\nEND\n", 3, "unknown statement"},
		{"command word", pre + "Replace\nEND\n", 3, `unknown statement "Replace"`},
		{"occurrence glued to the command", pre + "R1\nx\n.\ny\n.\nEND\n", 3, `unknown statement "R1"`},
		{"occurrence 0", pre + "R 0\nx\n.\ny\n.\nEND\n", 3, `R: the occurrence must be a positive integer without leading zeros, got "0"`},
		{"occurrence with a leading zero", pre + "I 01\nx\n.\ny\n.\nEND\n", 3, `I: the occurrence must be a positive integer without leading zeros, got "01"`},
		{"negative occurrence", pre + "P -1\nx\n.\ny\n.\nEND\n", 3, `got "-1"`},
		{"occurrence with a plus sign", pre + "E +1\nx\n.\nEND\n", 3, `got "+1"`},
		{"occurrence that is not a number", pre + "E x\nx\n.\nEND\n", 3, `got "x"`},
		{"two occurrences", pre + "R 1 2\nx\n.\ny\n.\nEND\n", 3, `unexpected "2" after the occurrence`},
		{"comment after a command", pre + "R 1 # first\nx\n.\ny\n.\nEND\n", 3, `unexpected "# first" after the occurrence`},
		{"occurrence too large", pre + "R 99999999999999999999\nx\n.\ny\n.\nEND\n", 3, "the occurrence 99999999999999999999 is too large"},
		{"T with an occurrence", pre + "T 1\nx\n.\nEND\n", 3, `T takes no arguments, got "1"`},
		{"B with an argument", pre + "B x\nx\n.\nEND\n", 3, `B takes no arguments, got "x"`},
		{"N without flag", pre + "N\nEND\n", 3, `N needs "+" or "-"`},
		{"N with spaces but no flag", pre + "N  \nEND\n", 3, `N needs "+" or "-"`},
		{"N glued to its flag", pre + "N+\nEND\n", 3, `unknown statement "N+"`},
		{"N with another flag", pre + "N *\nEND\n", 3, `N takes "+" or "-", got "*"`},
		{"N with two flags", pre + "N + -\nEND\n", 3, `N takes "+" or "-", got "+ -"`},
		{"N with an occurrence", pre + "N 1\nEND\n", 3, `got "1"`},
		{"a lone terminator between commands", pre + "E\n.\n.\nEND\n", 5, `unknown statement "."`},

		// Blocks.
		{"row with a single leading dot", pre + "T\nx\n.x\n.\nEND\n", 5, `T: block row ".x" begins with a single "."`},
		{"row with a single leading dot in a new block", pre + "R\nx\n.\n.y\n.\nEND\n", 6, `R: new block row ".y" begins with a single "."`},
		{"indented terminator is no terminator, the block runs on", pre + "T\nx\n .\nEND\n", 3, `T: the block is not terminated: the patch ends at line 6`},
		{"unterminated match block", pre + "E\nx\n", 3, `E: the match block is not terminated`},
		{"unterminated new block swallows the footer", pre + "R\nx\n.\ny\nEND\n", 3, `R: the new block is not terminated: the patch ends at line 7`},
		{"block row without line ending", pre + "T\nx", 3, `T: the block is not terminated: the patch ends at line 4`},
		{"missing new block", pre + "I\nx\n.\nEND", 3, `I: the new block is not terminated`},

		// Characters.
		{"bare CR in the header line", "LP1\r\r\nEND\n", 1, "bare CR"},
		{"bare CR as a line ending", "LP1\nF a\rN +\nEND\n", 2, "bare CR"},
		{"bare CR after the footer", pre + "N +\nEND\r", 4, "bare CR"},
		{"bare CR inside a block row", pre + "T\nx\ry\n.\nEND\n", 4, "bare CR"},
		{"CR CR LF", pre + "T\nx\r\r\n.\nEND\n", 4, "bare CR"},
		{"invalid UTF-8", "LP1\nF \xff\nN +\nEND\n", 2, "not valid UTF-8"},
		{"the first error in line order wins", pre + "Q\nx\ry\n", 3, "unknown statement"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(tt.src)
			if err == nil {
				t.Fatalf("Parse succeeded: %+v", p)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is a %T, want *Error", err, err)
			}
			if e.Line != tt.line || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("error = %q, want line %d and a message containing %q", err, tt.line, tt.msg)
			}
			if want := "line "; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("Error() = %q, want it to begin with %q", err, want)
			}
		})
	}
}

func TestErrorString(t *testing.T) {
	tests := []struct {
		err  Error
		want string
	}{
		{Error{Line: 7, Msg: "bad"}, "line 7: bad"},
		{Error{Msg: "file line 2: bare CR"}, "file line 2: bare CR"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}
