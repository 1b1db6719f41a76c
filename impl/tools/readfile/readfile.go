// Package readfile is the reference implementation of Forge's built-in
// read_file tool (TOOL_EXECUTOR_SRD.md §3.6.8, FR-TOOL-READ-01), read as
// recorded in spec/INTERPRETATIONS.md (I-RF-01..07).
//
// A call parses its arguments, validates the path with the sandbox, opens
// the canonical path without following a final symlink (FR-VAL-06), sniffs
// the first 8 KiB to tell text from binary, and returns either the file's
// bytes (whole or a line range) or a self-limited base64 rendering. Every
// successful read is recorded in the conversation's read cache with the
// SHA-256 of the whole file. All filesystem access goes through the call's
// afero.Fs, so permission emulation and fault injection apply.
//
// Tool.Options takes the other readings the SRD allows (impl/readings
// names them); the zero value is the reference's.
package readfile

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/executor/sanitize"
	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/lossy"
	"github.com/forge-conform/forge-conform/impl/session"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// Name is the tool's name.
const Name = "read_file"

// Description is the tool's description.
const Description = "Read file contents"

//go:embed schema.json
var schema []byte

// Tool is the read_file executor.
type Tool struct {
	// Options choose among the readings the SRD allows; the zero value is
	// the reference's.
	Options Options
}

// Options are the readings of read_file the tool can take where the SRD
// leaves room (spec/INTERPRETATIONS.md; package impl/readings names them).
// The zero value is the reference's reading of each.
type Options struct {
	// RangeCheckedInCode leaves "minimum": 1 out of the schema of
	// start_line and end_line; the tool itself rejects 0 with BadArgs
	// (I-RF-02 "checked-in-code").
	RangeCheckedInCode bool
	// TooLargeBadArgs makes a text file over read_limit read without a
	// range BadArgs instead of ExecutionFailed (I-RF-03 "bad-args").
	TooLargeBadArgs bool
	// ScanWholeFile counts every byte of the file against max_scan_bytes
	// in a ranged read, also past end_line (I-RF-04 "whole-file").
	ScanWholeFile bool
	// CutCharBinary makes a multi-byte character cut by the end of the
	// 8 KiB sniff window a decoding failure, so the file is binary (I-RF-05
	// "cut-char-binary").
	CutCharBinary bool
	// NoSpaceHeader writes the truncated binary header without a space,
	// "[binary:base64][truncated]" (I-RF-06 "no-space").
	NoSpaceHeader bool
	// CutHeader answers an output_limit too small for the binary header
	// and its newline with the header cut to the limit, successfully,
	// instead of an error (I-RF-09 "cut-header").
	CutHeader bool
	// InvalidUTF8Error fails a whole-file text read whose bytes past the
	// sniff window are not valid UTF-8 (ExecutionFailed) instead of
	// converting them lossily (I-RF-10 "error").
	InvalidUTF8Error bool
	// Sanitize sanitizes text output as FR-OUT-02 asks of tool output
	// strings: control characters and escape sequences removed, carriage
	// returns kept (I-RF-01 "sanitized"). The read cache still hashes the
	// file's bytes.
	Sanitize bool
}

var _ tool.Tool = Tool{}

// Name implements tool.Tool.
func (Tool) Name() string { return Name }

// Description implements tool.Tool.
func (Tool) Description() string { return Description }

// Schema returns the argument schema (§3.6.8) under Draft 2020-12; with
// Options.RangeCheckedInCode, without the "minimum" of the line numbers.
func (t Tool) Schema() json.RawMessage {
	if t.Options.RangeCheckedInCode {
		return slices.Clone(schemaNoMinimum)
	}
	return slices.Clone(schema)
}

// schemaNoMinimum is schema without "minimum": 1 (Options.RangeCheckedInCode).
var schemaNoMinimum = bytes.ReplaceAll(schema, []byte(`, "minimum": 1`), nil)

// SideEffecting implements tool.Tool: the tool is read-only.
func (Tool) SideEffecting() bool { return false }

// RequiresApproval implements tool.Tool: no approval by default.
func (Tool) RequiresApproval() bool { return false }

// RiskLevel implements tool.Tool (FR-APR-06 guidance: Low).
func (Tool) RiskLevel() tool.RiskLevel { return tool.Low }

// Timeout is [tools.timeouts] file_operations_seconds, 30 s by default
// (CFG-TMO-01a); the registry applies it (tool.Timeouter).
func (Tool) Timeout(cfg config.Config) time.Duration { return tool.FileOperationsTimeout(cfg) }

// ApprovalSummary is "Read <path>", or with a range "Read <path> lines X-Y"
// ("lines X-" with only start_line, "lines 1-Y" with only end_line), <path>
// as requested. It parses the arguments exactly as Execute does and touches
// no file; tool.Summarize redacts secrets and keeps at most 200 characters.
func (Tool) ApprovalSummary(raw json.RawMessage, _ config.Config) (string, error) {
	a, err := parseArgs(raw)
	if err != nil {
		return "", err
	}
	s := "Read " + a.Path
	if a.ranged() {
		start, end := a.lineRange()
		s += fmt.Sprintf(" lines %d-", start)
		if end != 0 {
			s += fmt.Sprint(end)
		}
	}
	return tool.Summarize(s), nil
}

// Execute reads the requested file. Failures are *toolerr.Error values.
func (t Tool) Execute(ctx context.Context, raw json.RawMessage, c *tool.Ctx) (string, error) {
	cfg, err := loadConfig(c.Config)
	if err != nil {
		return "", err
	}
	a, err := parseArgs(raw)
	if err != nil {
		return "", err
	}
	if c.Sandbox == nil {
		return "", toolerr.Failed(Name, "no sandbox configured; the caller must build one from [tools.sandbox]")
	}
	canon, err := c.Sandbox.Validate(a.Path)
	if err != nil {
		return "", err
	}
	r := &reader{ctx: ctx, c: c, cfg: cfg, args: a, canon: canon, opts: t.Options}
	out, sum, err := r.read()
	if err != nil {
		return "", err
	}
	if c.Session != nil {
		c.Session.RecordRead(session.Read{Path: canon, SHA256: sum, At: time.Now()}) // I-RF-07
	}
	return out, nil
}

// reader is one call's read of a validated path.
type reader struct {
	ctx   context.Context
	c     *tool.Ctx
	cfg   Config
	args  args
	canon string
	opts  Options
}

// read opens, classifies and reads the file; it returns the result and the
// SHA-256 of everything the file held.
func (r *reader) read() (string, [32]byte, error) {
	var sum [32]byte
	info, err := r.c.FS.Stat(r.canon)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.ELOOP):
		// What the sandbox treats as absent (I-SBX-02): a missing component,
		// a file used as a directory, a dangling symlink or a loop.
		return "", sum, toolerr.Failed(Name, "file not found: %s; check the path (relative to the working directory), e.g. with list_directory", r.args.Path)
	case err != nil:
		return "", sum, toolerr.Failed(Name, "cannot access %s: %s", r.args.Path, fsys.ErrText(err))
	case info.IsDir():
		return "", sum, toolerr.Failed(Name, "%s is a directory; read a file inside it, or use list_directory to list it", r.args.Path)
	case !info.Mode().IsRegular():
		// Opening a FIFO or device could block or have side effects.
		return "", sum, r.openError(errNotRegular)
	}
	f, info, err := openRegular(r.c.FS, r.canon)
	if err != nil {
		return "", sum, r.openError(err)
	}
	defer f.Close()

	h := sha256.New()
	src := bufio.NewReaderSize(io.TeeReader(ctxReader{r.ctx, f}, h), bufSize)
	finish := func(out string) (string, [32]byte, error) {
		// Whatever was not consumed still belongs in the hash (I-RF-07).
		if _, err := io.Copy(io.Discard, src); err != nil {
			return "", sum, r.readError(err)
		}
		h.Sum(sum[:0])
		return out, sum, nil
	}

	window, err := src.Peek(sniffLen + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", sum, r.readError(err)
	}
	more := len(window) > sniffLen
	window = window[:min(len(window), sniffLen)]

	if isBinary(window, more && !r.opts.CutCharBinary) {
		if r.args.ranged() {
			return "", sum, badArgs("%s is a binary file, so start_line and end_line do not apply; omit them to read it as base64", r.args.Path)
		}
		limit := r.c.EffectiveMax()
		head, err := io.ReadAll(io.LimitReader(src, fullCapacity(limit)+1))
		if err != nil {
			return "", sum, r.readError(err)
		}
		rest, err := io.Copy(io.Discard, src)
		if err != nil {
			return "", sum, r.readError(err)
		}
		trunc := truncatedHeader
		if r.opts.NoSpaceHeader {
			trunc = truncatedNoSpace
		}
		out, ok := binaryOutput(head, int64(len(head))+rest, limit, trunc)
		if !ok && r.opts.CutHeader {
			out, ok = (trunc + "\n")[:max(limit, 0)], true
		}
		if !ok {
			return "", sum, toolerr.Failed(Name, "output budget too small: %s leaves no room for the %q header of %s; raise max_output_bytes or free context capacity",
				plural(limit), truncatedHeader+"\n", r.args.Path)
		}
		r.c.AllowTruncation = false // FR-TOOL-READ-01b: the tool self-limits
		return finish(out)
	}

	if r.args.ranged() {
		start, end := r.args.lineRange()
		if r.opts.ScanWholeFile && info.Size() > r.cfg.MaxScanBytes {
			return "", sum, toolerr.Failed(Name, "%s is %s, more than the %s a ranged read may scan (max_scan_bytes); narrow the range, or raise the limit",
				r.args.Path, plural(info.Size()), plural(r.cfg.MaxScanBytes))
		}
		body, err := scanRange(src, start, end, r.cfg.MaxScanBytes)
		if errors.Is(err, errScanLimit) {
			return "", sum, toolerr.Failed(Name, "the requested lines of %s lie beyond the first %s that a ranged read may scan (max_scan_bytes); narrow the range to lines nearer the start of the file",
				r.args.Path, plural(r.cfg.MaxScanBytes))
		}
		if err != nil {
			return "", sum, r.readError(err)
		}
		return finish(r.text(body))
	}

	// I-RF-03: the size compared is the file's size; the limited read also
	// catches a file that grows after the fstat.
	readLimit := min(r.cfg.MaxFileReadBytes, r.c.AvailableCapacityBytes)
	tooLarge := func(size int64) error {
		if r.opts.TooLargeBadArgs {
			return badArgs("%s is %s, more than the %s that can be read at once; read it in parts with start_line and end_line, e.g. start_line 1 and end_line 200",
				r.args.Path, plural(size), plural(max(readLimit, 0)))
		}
		return toolerr.Failed(Name, "%s is %s, more than the %s that can be read at once; read it in parts with start_line and end_line, e.g. start_line 1 and end_line 200",
			r.args.Path, plural(size), plural(max(readLimit, 0)))
	}
	if info.Size() > readLimit {
		return "", sum, tooLarge(info.Size())
	}
	body, err := io.ReadAll(io.LimitReader(src, readLimit+1))
	if err != nil {
		return "", sum, r.readError(err)
	}
	if n := int64(len(body)); n > readLimit {
		return "", sum, tooLarge(n)
	}
	if r.opts.InvalidUTF8Error && !utf8.Valid(body) {
		return "", sum, toolerr.Failed(Name, "%s is not valid UTF-8 past its first %d bytes; it cannot be read as text", r.args.Path, sniffLen)
	}
	return finish(r.text(body))
}

// text is the text result for the bytes read: invalid UTF-8 converted
// lossily, then sanitized with Options.Sanitize.
func (r *reader) text(body []byte) string {
	s := lossy.String(string(body))
	if r.opts.Sanitize {
		s = sanitize.StringKeepingCR(s)
	}
	return s
}

// openError maps a failure of openRegular.
func (r *reader) openError(err error) error {
	switch {
	case errors.Is(err, syscall.ELOOP):
		return toolerr.Failed(Name, "%s was replaced by a symlink after it was validated; refusing to follow it, retry the read", r.args.Path)
	case errors.Is(err, errNotRegular), errors.Is(err, syscall.EISDIR):
		return toolerr.Failed(Name, "%s is not a regular file (a directory, FIFO, socket or device); only regular files can be read", r.args.Path)
	case errors.Is(err, fs.ErrNotExist):
		return toolerr.Failed(Name, "file not found: %s; it disappeared while being opened, check the path", r.args.Path)
	case errors.Is(err, fs.ErrPermission):
		return toolerr.Failed(Name, "cannot open %s: permission denied; check the file's permissions", r.args.Path)
	}
	return toolerr.Failed(Name, "cannot open %s: %s", r.args.Path, fsys.ErrText(err))
}

// readError maps a failure while reading an opened file, including the
// call's cancellation or timeout.
func (r *reader) readError(err error) error {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return toolerr.New(toolerr.Timeout, "reading %s timed out", r.args.Path)
	case errors.Is(err, context.Canceled):
		return toolerr.New(toolerr.Cancelled, "reading %s was cancelled", r.args.Path)
	}
	return toolerr.Failed(Name, "cannot read %s: %s", r.args.Path, fsys.ErrText(err))
}
