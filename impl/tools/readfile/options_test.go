package readfile

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/impl/internal/tooltest"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// TestOptions reads one file under each reading Options realizes.
func TestOptions(t *testing.T) {
	straddle := strings.Repeat("a", sniffLen-1) + "é" // é cut by the window
	lateBad := strings.Repeat("a", sniffLen+10) + "\xff"
	root := tooltest.Build(t,
		tooltest.File("nul.txt", strings.Repeat("a", sniffLen+1)+"\x00b\x1b[31mc\r\n"),
		tooltest.File("lines", "l1\nl2\nl3\n"),
		tooltest.File("straddle", straddle),
		tooltest.File("late-bad", lateBad),
		tooltest.File("bin", strings.Repeat("\x00", 100)),
	)
	tests := []struct {
		name     string
		opts     Options
		call     tooltest.Call
		want     string       // output, when no error is wanted
		wantKind toolerr.Kind // the error wanted
	}{
		{name: "bytes", call: tooltest.Call{Args: `{"path":"nul.txt"}`},
			want: strings.Repeat("a", sniffLen+1) + "\x00b\x1b[31mc\r\n"},
		{name: "sanitized", opts: Options{Sanitize: true}, call: tooltest.Call{Args: `{"path":"nul.txt"}`},
			want: strings.Repeat("a", sniffLen+1) + "bc\r\n"},
		{name: "too large", call: tooltest.Call{Args: `{"path":"lines"}`, Capacity: 3}, wantKind: toolerr.ExecutionFailed},
		{name: "too large bad args", opts: Options{TooLargeBadArgs: true}, call: tooltest.Call{Args: `{"path":"lines"}`, Capacity: 3},
			wantKind: toolerr.BadArgs},
		{name: "scan stops at end_line", call: tooltest.Call{Args: `{"path":"lines","end_line":1}`, Config: `{"read_file":{"max_scan_bytes":4}}`},
			want: "l1\n"},
		{name: "scan counts the whole file", opts: Options{ScanWholeFile: true},
			call: tooltest.Call{Args: `{"path":"lines","end_line":1}`, Config: `{"read_file":{"max_scan_bytes":4}}`}, wantKind: toolerr.ExecutionFailed},
		{name: "cut character is text", call: tooltest.Call{Args: `{"path":"straddle"}`}, want: straddle},
		{name: "cut character is binary", opts: Options{CutCharBinary: true}, call: tooltest.Call{Args: `{"path":"straddle"}`},
			want: binOut([]byte(straddle), false)},
		{name: "spaced header", call: tooltest.Call{Args: `{"path":"bin"}`, Budget: 40}, want: truncatedHeader + "\nAAAAAAAAAAAA"},
		{name: "no space", opts: Options{NoSpaceHeader: true}, call: tooltest.Call{Args: `{"path":"bin"}`, Budget: 40},
			want: truncatedNoSpace + "\nAAAAAAAAAAAA"},
		{name: "limit below the header", call: tooltest.Call{Args: `{"path":"bin"}`, Budget: 10}, wantKind: toolerr.ExecutionFailed},
		{name: "header cut", opts: Options{CutHeader: true}, call: tooltest.Call{Args: `{"path":"bin"}`, Budget: 10}, want: "[binary:ba"},
		{name: "lossy past the window", call: tooltest.Call{Args: `{"path":"late-bad"}`}, want: lateBad[:len(lateBad)-1] + "\uFFFD"},
		{name: "invalid past the window", opts: Options{InvalidUTF8Error: true}, call: tooltest.Call{Args: `{"path":"late-bad"}`},
			wantKind: toolerr.ExecutionFailed},
		{name: "zero checked in code", opts: Options{RangeCheckedInCode: true}, call: tooltest.Call{Args: `{"path":"lines","start_line":0}`},
			wantKind: toolerr.BadArgs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := tooltest.Run(t, Tool{Options: tt.opts}, root, tt.call)
			if tt.wantKind != "" {
				tooltest.ErrorKind(t, err, tt.wantKind)
				return
			}
			if err != nil || out != tt.want {
				t.Errorf("got %q, %v; want %q", trim(out), err, trim(tt.want))
			}
		})
	}
}

// TestSchemaRangeCheckedInCode: the schema keeps the types and drops only
// the minimum.
func TestSchemaRangeCheckedInCode(t *testing.T) {
	var s struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(Tool{Options: Options{RangeCheckedInCode: true}}.Schema(), &s); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"start_line", "end_line"} {
		if p := s.Properties[k]; p["type"] != "integer" || p["minimum"] != nil {
			t.Errorf("%s: %v, want an integer without minimum", k, p)
		}
	}
}
