package lp1

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecodeEncode(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want File
	}{
		// The example mapping of LP1.md §3, with LF and with CRLF.
		{"empty", "", File{EOL: "\n"}},
		{"one line, no newline", "a", File{Lines: rows("a"), EOL: "\n"}},
		{"one line", "a\n", File{Lines: rows("a"), FinalNewline: true, EOL: "\n"}},
		{"two lines, no final newline", "a\nb", File{Lines: rows("a", "b"), EOL: "\n"}},
		{"two lines", "a\nb\n", File{Lines: rows("a", "b"), FinalNewline: true, EOL: "\n"}},
		{"newline only", "\n", File{Lines: rows(""), FinalNewline: true, EOL: "\n"}},
		{"CRLF one line", "a\r\n", File{Lines: rows("a"), FinalNewline: true, EOL: "\r\n"}},
		{"CRLF two lines, no final newline", "a\r\nb", File{Lines: rows("a", "b"), EOL: "\r\n"}},
		{"CRLF two lines", "a\r\nb\r\n", File{Lines: rows("a", "b"), FinalNewline: true, EOL: "\r\n"}},
		{"CRLF only", "\r\n", File{Lines: rows(""), FinalNewline: true, EOL: "\r\n"}},
		// More.
		{"two newlines", "\n\n", File{Lines: rows("", ""), FinalNewline: true, EOL: "\n"}},
		{"empty lines inside", "a\n\nb\n", File{Lines: rows("a", "", "b"), FinalNewline: true, EOL: "\n"}},
		{"spaces and tabs are content", " a\t\n\t\n", File{Lines: rows(" a\t", "\t"), FinalNewline: true, EOL: "\n"}},
		{"invalid UTF-8 and NUL are content", "\xff\x00\r\n\xc3", File{Lines: rows("\xff\x00", "\xc3"), EOL: "\r\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode([]byte(tt.in))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Decode (-want +got):\n%s", d)
			}
			if out := got.Encode(); !bytes.Equal(out, []byte(tt.in)) {
				t.Errorf("Encode = %q, want %q", out, tt.in)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name, in, msg string
	}{
		{"bare CR alone", "\r", `file line 1: bare CR`},
		{"bare CR at the end", "a\nb\r", `file line 2: bare CR`},
		{"bare CR inside a line", "a\r\nb\rc\r\n", `file line 2: bare CR`},
		{"CR CR LF", "a\r\r\n", `file line 1: bare CR`},
		{"LF then CRLF", "a\nb\r\n", "file line 2: mixed line endings: the line ends with CRLF, but line 1 ends with LF"},
		{"CRLF then LF", "a\r\nb\r\nc\n", "file line 3: mixed line endings: the line ends with LF, but line 1 ends with CRLF"},
		{"LF CR LF", "\n\r\n", "file line 2: mixed line endings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Decode([]byte(tt.in))
			if err == nil {
				t.Fatalf("Decode succeeded: %+v", f)
			}
			var e *Error
			if !errors.As(err, &e) || e.Line != 0 {
				t.Fatalf("error %#v, want an *Error with Line 0", err)
			}
			if !strings.HasPrefix(err.Error(), tt.msg) {
				t.Errorf("error = %q, want it to begin with %q", err, tt.msg)
			}
		})
	}
}

func TestEncode(t *testing.T) {
	tests := []struct {
		name string
		f    File
		want string
	}{
		{"zero value", File{}, ""},
		{"unset EOL is LF", File{Lines: rows("a", "b"), FinalNewline: true}, "a\nb\n"},
		{"CRLF", File{Lines: rows("a", "b"), FinalNewline: true, EOL: "\r\n"}, "a\r\nb\r\n"},
		{"CRLF without final newline", File{Lines: rows("a", "b"), EOL: "\r\n"}, "a\r\nb"},
		{"a single empty line without final newline is empty", File{Lines: rows(""), EOL: "\n"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(tt.f.Encode()); got != tt.want {
				t.Errorf("Encode = %q, want %q", got, tt.want)
			}
		})
	}
}
