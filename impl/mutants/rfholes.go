package mutants

import (
	"context"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/forge-conform/forge-conform/impl/tool"
)

// rfHolesMutants are two holes `make mutate` found in read_file: a file
// shorter than the sniff window that ends inside a character read as text
// (RF-SNIFF-01: the window is the whole file, whose bytes do not decode),
// and a line number past u32 clamped to u32's largest value instead of
// refused (FR-REG-02: the arguments decode into §3.6.8's u32 fields).
func rfHolesMutants() []Mutant {
	return []Mutant{
		{
			Name: "read-file-eof-cut-char-text", Doc: "read_file reads a file shorter than 8 KB that ends inside a UTF-8 character as text, as if the window, not EOF, cut it",
			Specs: []string{"tool_executor"}, Run: []string{"tool_executor/read-*"},
			Breaks:  ids("tool_executor", "RF-SNIFF-01"),
			Options: wrap(onTool("read_file", eofCutCharText)),
		},
		{
			Name: "read-file-line-past-u32-clamped", Doc: "read_file clamps a start_line or end_line above 4294967295 to 4294967295 instead of refusing it",
			Specs: []string{"tool_executor"}, Run: []string{"tool_executor/read-*"},
			Breaks:  ids("tool_executor", "FR-REG-02"),
			Options: wrap(onTool("read_file", clampLinePastU32)),
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

// clampLinePastU32 replaces a start_line or end_line above u32's range by
// 4294967295 before the tool parses the arguments.
func clampLinePastU32(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(args, &fields) != nil {
		return inner(ctx, args, c)
	}
	changed := false
	for _, k := range []string{"start_line", "end_line"} {
		v, err := strconv.ParseUint(string(fields[k]), 10, 64)
		if err == nil && v > math.MaxUint32 {
			fields[k] = json.RawMessage(strconv.FormatUint(math.MaxUint32, 10))
			changed = true
		}
	}
	if !changed {
		return inner(ctx, args, c)
	}
	clamped, err := json.Marshal(fields)
	if err != nil {
		return inner(ctx, args, c)
	}
	return inner(ctx, clamped, c)
}
