package mutants

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// read_file's binary output headers (I-RF-06).
const (
	binaryHeader    = "[binary:base64]"
	truncatedHeader = binaryHeader + " [truncated]"
)

// readArgs is what the read_file mutants read of the arguments.
type readArgs struct {
	Path      string  `json:"path"`
	StartLine *uint32 `json:"start_line"`
	EndLine   *uint32 `json:"end_line"`
}

// readWhole returns the arguments and the whole content of the file a
// successful read_file call read; ok is false when either is unavailable.
func readWhole(args json.RawMessage, c *tool.Ctx) (a readArgs, data []byte, ok bool) {
	if json.Unmarshal(args, &a) != nil || c.Sandbox == nil {
		return a, nil, false
	}
	canon, err := c.Sandbox.Validate(a.Path)
	if err != nil {
		return a, nil, false
	}
	data, err = afero.ReadFile(c.FS, canon)
	return a, data, err == nil
}

// sniffWholeFile classifies a file as binary when a NUL byte or invalid
// UTF-8 occurs anywhere in it, not only in its first 8 KiB (RF-SNIFF-01):
// a text answer for such a file becomes the binary one.
func sniffWholeFile(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	out, err := inner(ctx, args, c)
	if err != nil || strings.HasPrefix(out, binaryHeader) {
		return out, err
	}
	a, data, ok := readWhole(args, c)
	if !ok || (bytes.IndexByte(data, 0) < 0 && utf8.Valid(data)) {
		return out, nil
	}
	if a.StartLine != nil || a.EndLine != nil {
		return "", toolerr.New(toolerr.BadArgs, "%s is a binary file, so start_line and end_line do not apply; omit them to read it as base64", a.Path)
	}
	c.AllowTruncation = false // binary output self-limits (FR-TOOL-READ-01b)
	limit := c.EffectiveMax()
	if n := fullCapacity(limit, binaryHeader); int64(len(data)) > n {
		hl := int64(len(truncatedHeader)) + 1
		if limit < hl {
			return "", toolerr.Failed("read_file", "output budget too small for %s", a.Path)
		}
		return truncatedHeader + "\n" + base64.StdEncoding.EncodeToString(data[:(limit-hl)/4*3]), nil
	}
	return binaryHeader + "\n" + base64.StdEncoding.EncodeToString(data), nil
}

// fullCapacity is the largest content length whose base64 under header
// fits limit bytes.
func fullCapacity(limit int64, header string) int64 {
	hl := int64(len(header)) + 1
	if limit < hl {
		return -1
	}
	return (limit - hl) / 4 * 3
}

// noRangeEndClamp fails a ranged read whose end_line lies beyond the last
// line of the file instead of reading through EOF.
func noRangeEndClamp(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	out, err := inner(ctx, args, c)
	if err != nil {
		return out, err
	}
	a, data, ok := readWhole(args, c)
	if !ok || a.EndLine == nil || *a.EndLine == 0 {
		return out, nil
	}
	lines := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		lines++
	}
	if int64(*a.EndLine) > int64(lines) {
		return "", toolerr.Failed("read_file", "end_line %d is beyond the end of %s", *a.EndLine, a.Path)
	}
	return out, nil
}

// binaryOverBudget gives a truncated binary read one base64 quad (4
// bytes) more than effective_max.
func binaryOverBudget(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	out, err := inner(ctx, args, c)
	if err != nil || !strings.HasPrefix(out, truncatedHeader) {
		return out, err
	}
	cc := *c
	cc.MaxOutputBytes = c.EffectiveMax() + 4
	cc.AvailableCapacityBytes = cc.MaxOutputBytes
	out, err = inner(ctx, args, &cc)
	c.AllowTruncation = cc.AllowTruncation
	return out, err
}
