package mutants

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/forge-conform/forge-conform/impl/tool"
)

// rfHolesMutants are a hole `make mutate` found in read_file: a file
// shorter than the sniff window that ends inside a character read as text
// (RF-SNIFF-01: the window is the whole file, whose bytes do not decode).
func rfHolesMutants() []Mutant {
	return []Mutant{
		{
			Name: "read-file-eof-cut-char-text", Doc: "read_file reads a file shorter than 8 KB that ends inside a UTF-8 character as text, as if the window, not EOF, cut it",
			Specs: []string{"tool_executor"}, Run: []string{"tool_executor/read-*"},
			Breaks:  ids("tool_executor", "RF-SNIFF-01"),
			Options: wrap(onTool("read_file", eofCutCharText)),
		},
	}
}

// eofCutCharText answers a binary read of a file shorter than the 8 KB
// sniff window with the file as text when its only defect is a final
// character cut by EOF.
func eofCutCharText(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	out, err := inner(ctx, args, c)
	if err != nil || !strings.HasPrefix(out, binaryHeader) {
		return out, err
	}
	a, data, ok := readWhole(args, c)
	if !ok || a.StartLine != nil || a.EndLine != nil || len(data) >= 8192 || strings.IndexByte(string(data), 0) >= 0 {
		return out, nil
	}
	i := len(data)
	for i > 0 && i > len(data)-utf8.UTFMax && !utf8.RuneStart(data[i-1]) {
		i--
	}
	if i == 0 || !utf8.Valid(data[:i-1]) || utf8.FullRune(data[i-1:]) {
		return out, nil
	}
	c.AllowTruncation = true
	return strings.ToValidUTF8(string(data), "\uFFFD"), nil
}
