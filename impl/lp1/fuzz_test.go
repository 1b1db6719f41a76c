package lp1

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/forge-conform/forge-conform/conformance/cases"
)

// seedPatches cover every statement and most error paths.
var seedPatches = []string{
	"",
	"LP1\nEND\n",
	"LP1\r\nF a\r\nT\r\nx\r\n.\r\nEND",
	"LP1\n# c\n\nF \"a \\\"q\\\" \\\\\"\nR 2\nx\n.\ny\n..z\n.\nI\nx\n.\n.\nP\n\n.\n.\nE 1\nx\n.\nT\n.\nB\nb\n.\nN +\nN -\nEND\n",
	"LP1\nF a\nE\na\na\n.\nN +\nF b\nB\n.\nEND\n",
	"LP1\nF a\nT\n.x\n.\nEND\n",
	"LP1\nF a\nR 01\nx\n.\ny\n.\nEND\n",
	"LP1\nF a b\nN +\nEND\n",
	"LP1\nF a\nN +\nEND\n\n",
	"LP1\nF a\rN +\nEND\n",
	"LP1\nT\nx\n.\nEND\n",
}

// casePatches returns every "patch" argument of the LP1 conformance cases
// and of the tool_executor apply_patch cases (checked calls and before
// steps), in file order, for use as fuzz seeds.
func casePatches(tb testing.TB) []string {
	tb.Helper()
	names, err := fs.Glob(cases.FS, "lp1/*.json")
	if err != nil {
		tb.Fatal(err)
	}
	names = append(names, "tool_executor/apply-patch.json")
	type call struct {
		Tool string `json:"tool"`
		Args struct {
			Patch *string `json:"patch"`
		} `json:"args"`
	}
	var out []string
	for _, name := range names {
		data, err := fs.ReadFile(cases.FS, name)
		if err != nil {
			tb.Fatal(err)
		}
		var file struct {
			Defaults struct {
				Tool string `json:"tool"`
			} `json:"defaults"`
			Cases []struct {
				call
				Before []struct {
					Call *call `json:"call"`
				} `json:"before"`
			} `json:"cases"`
		}
		if err := json.Unmarshal(data, &file); err != nil {
			tb.Fatalf("%s: %v", name, err)
		}
		for _, c := range file.Cases {
			for _, b := range c.Before {
				if b.Call != nil && b.Call.Tool == "apply_patch" && b.Call.Args.Patch != nil {
					out = append(out, *b.Call.Args.Patch)
				}
			}
			if tool := c.Tool; (tool == "apply_patch" || tool == "" && file.Defaults.Tool == "apply_patch") && c.Args.Patch != nil {
				out = append(out, *c.Args.Patch)
			}
		}
	}
	if len(out) < 200 {
		tb.Fatalf("found only %d case patches in conformance/cases", len(out))
	}
	return out
}

// caseFiles are contents of the patch and lp1 fixtures the case patches edit.
var caseFiles = []string{
	"one\ntwo\nthree\n", "same\nother\nsame\nend\n", "one\r\ntwo\r\n", "first\nlast", "", "\n",
	"a\na\na\nb\n", ".hidden line\n..two dots\nplain\n", "a\n.\n..\n. \nb\n", "solo", "a\rb\n", "a\nb\r\nc\n",
}

// format writes p back as LP1 text in one canonical way.
func format(p *Patch) string {
	var b strings.Builder
	block := func(rows []string) {
		for _, r := range rows {
			if strings.HasPrefix(r, ".") {
				b.WriteByte('.')
			}
			b.WriteString(r + "\n")
		}
		b.WriteString(".\n")
	}
	quote := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	b.WriteString("LP1\n")
	for _, s := range p.Sections {
		b.WriteString(`F "` + quote.Replace(s.Path) + "\"\n")
		for _, op := range s.Ops {
			b.WriteByte(byte(op.Kind))
			switch {
			case op.Kind == SetFinalNewline && op.FinalNewline:
				b.WriteString(" +")
			case op.Kind == SetFinalNewline:
				b.WriteString(" -")
			case op.Occ > 0:
				b.WriteString(" " + itoa(op.Occ))
			}
			b.WriteByte('\n')
			switch op.Kind {
			case Replace, InsertAfter, InsertBefore:
				block(op.Match)
				block(op.Block)
			case Erase:
				block(op.Match)
			case Append, Prepend:
				block(op.Block)
			}
		}
	}
	b.WriteString("END\n")
	return b.String()
}

func itoa(n int) string {
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

func FuzzParse(f *testing.F) {
	for _, s := range seedPatches {
		f.Add(s)
	}
	for _, s := range casePatches(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		p, err := Parse(src)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is a %T, want *Error", err, err)
			}
			if e.Line < 1 || e.Line > strings.Count(src, "\n")+1 {
				t.Fatalf("error %q names a line outside the patch", err)
			}
			return
		}
		last := 0
		for _, s := range p.Sections {
			if len(s.Ops) == 0 {
				t.Fatalf("section %q at line %d has no ops", s.Path, s.Line)
			}
			if s.Line <= last {
				t.Fatalf("section line %d after line %d", s.Line, last)
			}
			last = s.Line
			for _, op := range s.Ops {
				if op.Line <= last {
					t.Fatalf("op line %d after line %d", op.Line, last)
				}
				last = op.Line
				if !strings.ContainsRune("RIPETBN", rune(op.Kind)) || op.Occ < 0 {
					t.Fatalf("bad op %+v", op)
				}
				for _, r := range append(append([]string(nil), op.Match...), op.Block...) {
					if strings.ContainsAny(r, "\r\n") {
						t.Fatalf("row %q has a line break", r)
					}
				}
			}
		}
		// The canonical rewrite parses to the same patch, line numbers aside.
		again, err := Parse(format(p))
		if err != nil {
			t.Fatalf("the rewrite does not parse: %v\n%s", err, format(p))
		}
		ignoreLines := cmp.Options{cmpopts.IgnoreFields(Op{}, "Line"), cmpopts.IgnoreFields(Section{}, "Line")}
		if d := cmp.Diff(p, again, ignoreLines); d != "" {
			t.Fatalf("the rewrite parses differently (-first +rewrite):\n%s", d)
		}
	})
}

func FuzzApply(f *testing.F) {
	files := []string{"", "a", "a\n", "a\nb", "a\nb\n", "\n", "a\r\nb\r\n", "\r\n", "a\na\na\n", ".x\n\n", "a\r", "a\nb\r\n"}
	bodies := []string{
		"R\na\n.\nb\n.", "R 2\na\n.\nb\nc\n.", "E\na\na\n.", "I\nb\n.\n..x\n.", "P 1\n\n.\ny\n.",
		"T\nz\n.\nN +", "B\n.\nN -", "N +\nN -\nN +", "E\na\n.\nT\nq\n.", "R\n.\nx\n.",
	}
	for i, s := range append(seedPatches, bodies...) {
		f.Add([]byte(files[i%len(files)]), s)
		f.Add([]byte(files[(i+5)%len(files)]), s)
	}
	// Each case patch on a.txt of the patch fixture (which most of them
	// edit) and on one of the other fixture files in turn.
	for i, s := range casePatches(f) {
		f.Add([]byte(caseFiles[0]), s)
		f.Add([]byte(caseFiles[1+i%(len(caseFiles)-1)]), s)
	}
	f.Fuzz(func(t *testing.T, data []byte, src string) {
		file, err := Decode(data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Line != 0 {
				t.Fatalf("Decode error %#v, want an *Error with Line 0", err)
			}
			return
		}
		if got := file.Encode(); !bytes.Equal(got, data) {
			t.Fatalf("Encode(Decode(%q)) = %q", data, got)
		}
		checkInvariant(t, file)
		p, err := Parse(src)
		if err != nil {
			// Most inputs are bare commands: give them a frame.
			if p, err = Parse("LP1\nF f\n" + src + "\nEND\n"); err != nil {
				return
			}
		}
		orig := File{Lines: append([]string(nil), file.Lines...), FinalNewline: file.FinalNewline, EOL: file.EOL}
		cur := file
		for _, s := range p.Sections {
			got, err := Apply(cur, s.Ops)
			again, err2 := Apply(cur, s.Ops)
			if d := cmp.Diff(got, again); d != "" || errString(err) != errString(err2) {
				t.Fatalf("Apply is not deterministic: %v / %v\n%s", err, err2, d)
			}
			// Op by op gives the same, and the invariant holds after each.
			step := cur
			var stepErr error
			for _, op := range s.Ops {
				next, err := Apply(step, []Op{op})
				if err != nil {
					stepErr = err
					break
				}
				checkInvariant(t, next)
				step = next
			}
			if errString(err) != errString(stepErr) {
				t.Fatalf("Apply = %v, op by op = %v", err, stepErr)
			}
			if err != nil {
				var e *Error
				if !errors.As(err, &e) || e.Line < s.Line {
					t.Fatalf("Apply error %#v does not name an op line", err)
				}
				break
			}
			if d := cmp.Diff(got, step); d != "" {
				t.Fatalf("Apply and op by op differ:\n%s", d)
			}
			checkInvariant(t, got)
			out := got.Encode()
			back, err := Decode(out)
			if err != nil {
				t.Fatalf("Decode(Encode(result)) fails: %v", err)
			}
			if !bytes.Equal(back.Encode(), out) {
				t.Fatalf("result does not round-trip: %q", out)
			}
			cur = got
		}
		if d := cmp.Diff(orig, file); d != "" {
			t.Fatalf("Apply changed its input:\n%s", d)
		}
	})
}

func checkInvariant(t *testing.T, f File) {
	t.Helper()
	if len(f.Lines) == 0 && f.FinalNewline {
		t.Fatalf("no lines but FinalNewline: %+v", f)
	}
	if f.EOL != "\n" && f.EOL != "\r\n" {
		t.Fatalf("EOL %q", f.EOL)
	}
	for _, l := range f.Lines {
		if strings.ContainsAny(l, "\r\n") {
			t.Fatalf("line %q has a line break", l)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
