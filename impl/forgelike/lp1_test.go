package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/forge-conform/forge-conform/impl/lp1"
)

// forgeLP1.Parse accepts what Forge's parser accepts (each grammar
// deviation observed in Forge's own code) and rejects the rest with Forge's messages.
func TestForgeParse(t *testing.T) {
	nMinus := []lp1.Op{{Kind: lp1.SetFinalNewline, Line: 3}}
	tests := []struct {
		name  string
		patch string
		path  string   // the one section's path, when it parses
		ops   []lp1.Op // its operations (nil: not compared)
		err   string
	}{
		{"strict", "LP1\nF a.txt\nN -\nEND\n", "a.txt", nMinus, ""},
		{"text after END", "LP1\nF a.txt\nN -\nEND\nLP1\ngarbage\n", "a.txt", nMinus, ""},
		{"comment before LP1", "# hi\n\nLP1\nF a.txt\nEND\n", "a.txt", nil, ""},
		{"NBSP around the header", "\u00a0LP1\u00a0\nF a.txt\nN -\nEND\n", "a.txt", nMinus, ""},
		{"NBSP as separator", "LP1\nF a.txt\nN\u00a0-\nEND\n", "a.txt", nMinus, ""},
		{"form feed line is blank", "LP1\n\f\nF a.txt\nEND\n", "a.txt", nil, ""},
		{"U+2028 ends a bare path", "LP1\nF a\u2028b\nEND\n", "a", nil, ""},
		{"bare CR in a row", "LP1\nF a.txt\nT\nx\ry\n.\nEND\n", "a.txt", []lp1.Op{{Kind: lp1.Append, Block: []string{"x\ry"}, Line: 3}}, ""},
		{"CR after END", "LP1\nF a.txt\nN -\nEND\r", "a.txt", nMinus, ""},
		{"CRLF patch", "LP1\r\nF a.txt\r\nN -\r\nEND\r\n", "a.txt", nMinus, ""},
		{"01", "LP1\nF a.txt\nR 01\nx\n.\ny\n.\nEND\n", "a.txt", []lp1.Op{{Kind: lp1.Replace, Occ: 1, Match: []string{"x"}, Block: []string{"y"}, Line: 3}}, ""},
		{"+1", "LP1\nF a.txt\nE +1\nx\n.\nEND\n", "a.txt", []lp1.Op{{Kind: lp1.Erase, Occ: 1, Match: []string{"x"}, Line: 3}}, ""},
		{"R1", "LP1\nF a.txt\nR1\nx\n.\ny\n.\nEND\n", "a.txt", []lp1.Op{{Kind: lp1.Replace, Occ: 1, Match: []string{"x"}, Block: []string{"y"}, Line: 3}}, ""},
		{"T x", "LP1\nF a.txt\nT x\nb\n.\nEND\n", "a.txt", []lp1.Op{{Kind: lp1.Append, Block: []string{"b"}, Line: 3}}, ""},
		{"B # c", "LP1\nF a.txt\nB # c\nb\n.\nEND\n", "a.txt", []lp1.Op{{Kind: lp1.Prepend, Block: []string{"b"}, Line: 3}}, ""},
		{"N+", "LP1\nF a.txt\nN+\nEND\n", "a.txt", []lp1.Op{{Kind: lp1.SetFinalNewline, FinalNewline: true, Line: 3}}, ""},
		{"bare path with a space", "LP1\nF with space.txt\nEND\n", "with", nil, ""},
		{"bare path with a quote", "LP1\nF a\"b\nEND\n", "a\"b", nil, ""},
		{"Fa.txt", "LP1\nFa.txt\nEND\n", "a.txt", nil, ""},
		{"text after a quoted path", "LP1\nF \"a b.txt\" c\nEND\n", "a b.txt", nil, ""},
		{"quoted escapes", "LP1\nF \"a\\\"\\\\b\"\nEND\n", "a\"\\b", nil, ""},
		{"dot-stuffed", "LP1\nF a.txt\nT\n..x\n. \t\nEND\n", "a.txt", []lp1.Op{{Kind: lp1.Append, Block: []string{".x"}, Line: 3}}, ""},

		{"empty", "", "", nil, "Missing LP1 header"},
		{"wrong header", "LP2\nEND\n", "", nil, "Invalid LP1 header"},
		{"BOM is no whitespace", "\ufeffLP1\nEND\n", "", nil, "Invalid LP1 header"},
		{"no footer", "LP1\nF a.txt\nN -\n", "", nil, "Missing END footer"},
		{"op before F", "LP1\nN -\nEND\n", "", nil, "Expected file section (F <path>)"},
		{"F without path", "LP1\nF \nEND\n", "", nil, "Missing file path"},
		{"bad escape", "LP1\nF \"a\\n\"\nEND\n", "", nil, "Invalid escape in quoted path"},
		{"unclosed quote", "LP1\nF \"a\nEND\n", "", nil, "Unterminated quoted path"},
		{"occurrence 0", "LP1\nF a.txt\nR 00\nx\n.\ny\n.\nEND\n", "", nil, "Occurrence must be >= 1"},
		{"occurrence -1", "LP1\nF a.txt\nE -1\nx\n.\nEND\n", "", nil, "Invalid occurrence"},
		{"occurrence too large", "LP1\nF a.txt\nE 99999999999999999999\nx\n.\nEND\n", "", nil, "Invalid occurrence"},
		{"two occurrences", "LP1\nF a.txt\nE 1 2\nx\n.\nEND\n", "", nil, "Invalid occurrence"},
		{"N 1", "LP1\nF a.txt\nN 1\nEND\n", "", nil, "Invalid N flag; expected + or -"},
		{"lowercase command", "LP1\nF a.txt\nt\nx\n.\nEND\n", "", nil, "Unknown LP1 operation"},
		{"single dot row", "LP1\nF a.txt\nT\n.x\n.\nEND\n", "", nil, "Dot-stuffed line must start with '..'"},
		{"NBSP is no terminator", "LP1\nF a.txt\nT\nx\n.\u00a0\n.\nEND\n", "", nil, "Dot-stuffed line must start with '..'"},
		{"unterminated block", "LP1\nF a.txt\nT\nx\nEND\n", "", nil, "Unterminated LP1 block"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := forgeLP1{}.Parse(tc.patch)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("err %v, want the patch accepted", err)
			}
			if len(p.Sections) != 1 || p.Sections[0].Path != tc.path {
				t.Fatalf("sections %+v, want one for %q", p.Sections, tc.path)
			}
			if tc.ops != nil {
				if d := cmp.Diff(tc.ops, p.Sections[0].Ops); d != "" {
					t.Errorf("ops (-want +got):\n%s", d)
				}
			}
		})
	}
}

// forgeLP1.Apply is Forge's apply_ops; Decode its parse_file.
func TestForgeApply(t *testing.T) {
	abc := lp1.File{Lines: []string{"a", "b", "c"}, FinalNewline: true, EOL: "\n"}
	tests := []struct {
		name string
		in   lp1.File
		ops  []lp1.Op
		want string
		err  string
	}{
		{"E 1 with an empty match erases nothing", abc, []lp1.Op{{Kind: lp1.Erase, Occ: 1}}, "a\nb\nc\n", ""},
		{"R 2 with an empty match inserts before line 2", abc, []lp1.Op{{Kind: lp1.Replace, Occ: 2, Block: []string{"x"}}}, "a\nx\nb\nc\n", ""},
		{"empty match past the end", abc, []lp1.Op{{Kind: lp1.InsertAfter, Occ: 5, Block: []string{"x"}}}, "", "Occurrence out of range"},
		{"empty match without occurrence", abc, []lp1.Op{{Kind: lp1.Erase}}, "", "Empty match requires occurrence"},
		{"erase all then T keeps the newline", abc, []lp1.Op{{Kind: lp1.Erase, Match: []string{"a", "b", "c"}}, {Kind: lp1.Append, Block: []string{"b"}}}, "b\n", ""},
		{"erase all", abc, []lp1.Op{{Kind: lp1.Erase, Match: []string{"a", "b", "c"}}}, "", ""},
		{"not unique", lp1.File{Lines: []string{"a", "a"}}, []lp1.Op{{Kind: lp1.Erase, Match: []string{"a"}}}, "", "Match is not unique"},
		{"second occurrence", lp1.File{Lines: []string{"a", "a"}}, []lp1.Op{{Kind: lp1.Replace, Occ: 2, Match: []string{"a"}, Block: []string{"b"}}}, "a\nb", ""},
		{"occurrence beyond", lp1.File{Lines: []string{"a", "a"}}, []lp1.Op{{Kind: lp1.Erase, Occ: 3, Match: []string{"a"}}}, "", "Occurrence out of range"},
		{"block longer than the file", lp1.File{}, []lp1.Op{{Kind: lp1.Erase, Match: []string{""}}}, "", "Match not found"},
		{"N + on the empty file", lp1.File{}, []lp1.Op{{Kind: lp1.SetFinalNewline, FinalNewline: true}}, "\n", ""},
		{"N - on a newline-only file", lp1.File{Lines: []string{""}, FinalNewline: true}, []lp1.Op{{Kind: lp1.SetFinalNewline}}, "", ""},
		{"CRLF kept for new lines", lp1.File{Lines: []string{"a"}, FinalNewline: true, EOL: "\r\n"}, []lp1.Op{{Kind: lp1.Append, Block: []string{"b"}}}, "a\r\nb\r\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := forgeLP1{}.Apply(tc.in, tc.ops)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || string(got.Encode()) != tc.want {
				t.Errorf("got %q, %v; want %q", got.Encode(), err, tc.want)
			}
		})
	}
	for in, want := range map[string]string{"a\rb\n": "Bare CR in file", "a\r\nb\n": "Mixed EOL detected", "a\xff\n": "Invalid UTF-8 in file"} {
		if _, err := (forgeLP1{}).Decode([]byte(in)); err == nil || err.Error() != want {
			t.Errorf("Decode(%q): %v, want %q", in, err, want)
		}
	}
	if f, err := (forgeLP1{}).Decode([]byte("a\r\nb")); err != nil || f.EOL != "\r\n" || f.FinalNewline || len(f.Lines) != 2 {
		t.Errorf("Decode(a CRLF b) = %+v, %v", f, err)
	}
}
