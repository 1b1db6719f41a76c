package searchfiles

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// Batching bounds: a worker hands the binary at most extBatchFiles files,
// gathered for at most extBatchWait, and starts a new run once the input
// reaches extBatchBytes (a larger single file is one run).
const (
	extBatchWait  = 5 * time.Millisecond
	extBatchFiles = 1024
	// extLookahead replaces lookahead: several workers must be able to
	// hold a batch each while the walker goes on.
	extLookahead  = 8 * extBatchFiles
	extBatchBytes = 32 << 20
)

// errOutputBound reports a child that printed more than its input can
// explain.
var errOutputBound = errors.New("output exceeds its bound")

// extFile is one candidate of a batch.
type extFile struct {
	res        *fileResult
	start, end int // its lines in the input: [start, end), each ending in "\n"
}

// worker is a search worker of an external backend. It takes a candidate,
// adds the candidates queued within extBatchWait (so it never holds a file
// for long while the merger may wait for it), searches them with one run per extBatchBytes of input, and
// hands the results back in the items' channels.
func (q *extQuery) worker(ctx context.Context, afs afero.Fs, req *request, perFile int64,
	jobs <-chan *item, stop <-chan struct{}) {
	sc := &scratch{}
	var in []byte
	for it := range jobs {
		batch := []*item{it}
		// Starting the binary costs milliseconds, so wait a little for
		// more files; never long, since the merger may be waiting for it.
		wait := time.NewTimer(extBatchWait)
	fill:
		for len(batch) < extBatchFiles {
			select {
			case next, ok := <-jobs:
				if !ok {
					break fill
				}
				batch = append(batch, next)
			case <-stop:
				break fill
			case <-wait.C:
				break fill
			}
		}
		wait.Stop()
		results := make([]fileResult, len(batch))
		select {
		case <-stop:
		default:
			in = q.searchBatch(ctx, afs, req, perFile, batch, results, sc, in[:0])
		}
		for i, it := range batch {
			it.res <- results[i]
		}
	}
}

// searchBatch reads the batch's files with the native reader and searches
// their lines with the binary. The binary's input is a line feed, then the
// lines of every searchable file in order, each as its line_text (without
// its terminator, I-SF-06) and followed by "\n", so the binary sees exactly the
// line_text values and its byte offsets map back to files, lines and
// columns. The leading empty line keeps a UTF-8 BOM of the first file from
// being treated as an encoding mark.
func (q *extQuery) searchBatch(ctx context.Context, afs afero.Fs, req *request, perFile int64,
	batch []*item, results []fileResult, sc *scratch, in []byte) []byte {
	var files []extFile
	in = append(in[:0], '\n')
	flush := func() {
		if len(files) > 0 {
			if err := q.run(ctx, req, perFile, in, files); err != nil && ctx.Err() == nil {
				// The whole call fails (ExecutionFailed): a partial result
				// would differ from the native backend's.
				*files[0].res = fileResult{fatal: toolerr.Failed(Name, "the %s backend failed: %v", q.backend, err)}
			}
		}
		files = files[:0]
		in = append(in[:0], '\n')
	}
	for i, it := range batch {
		buf, errMsg := readCandidate(ctx, afs, req, it, sc)
		if buf == nil {
			results[i] = fileResult{errMsg: errMsg}
			continue
		}
		start := len(in)
		in = appendLines(in, buf)
		files = append(files, extFile{res: &results[i], start: start, end: len(in)})
		if len(in) >= extBatchBytes {
			flush()
		}
	}
	flush()
	return in
}

// appendLines appends the lines of buf (I-SF-06), each followed by "\n".
func appendLines(in, buf []byte) []byte {
	if len(buf) == 0 {
		return in
	}
	if bytes.IndexByte(buf, '\r') < 0 {
		in = append(in, buf...)
		if buf[len(buf)-1] != '\n' {
			in = append(in, '\n')
		}
		return in
	}
	for from := 0; from < len(buf); {
		end := len(buf)
		if i := bytes.IndexByte(buf[from:], '\n'); i >= 0 {
			end = from + i
		}
		in = append(in, lineAt(buf, from, end)...)
		in = append(in, '\n')
		from = end + 1
	}
	return in
}

// run runs the binary once over in and records each file's matches, at
// most perFile of them, in order.
func (q *extQuery) run(ctx context.Context, req *request, perFile int64, in []byte, files []extFile) error {
	cmd := exec.CommandContext(ctx, q.path, q.args...)
	cmd.Env = childEnv()
	cmd.Stdin = bytes.NewReader(in)
	cmd.WaitDelay = time.Second
	stderr := &head{limit: 4 << 10}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	// Matches never overlap and never hold a line feed, so there are at
	// most len(in) of them (one empty match per position) and their text
	// totals at most len(in) bytes: this bounds what a correct run prints.
	bound := int64(len(in))*24 + 4096
	parseErr := q.parse(io.LimitReader(stdout, bound+1), bound, req, perFile, in, files)
	if parseErr != nil {
		_ = cmd.Process.Kill()
		_, _ = io.Copy(io.Discard, stdout)
	}
	waitErr := cmd.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if parseErr != nil {
		return parseErr
	}
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) && ee.ExitCode() == 1 {
		return nil // no match
	}
	if waitErr != nil {
		msg := strings.TrimSpace(stderr.buf.String())
		if msg == "" {
			return waitErr
		}
		return fmt.Errorf("%v: %s", waitErr, truncate(msg, 500))
	}
	return nil
}

// parse reads the binary's report, one match per line in increasing offset
// order: "offset:text" (rg -o -b) or "offset length" (ugrep --format).
func (q *extQuery) parse(r io.Reader, bound int64, req *request, perFile int64, in []byte, files []extFile) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var read int64
	fi := 0             // the file holding the last match
	ls, lineNo := -1, 0 // the line start and number of the last match (file-relative)
	lastOff, lastEnd := -1, -1
	for {
		rec, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// rg prints the match text; a long one spans buffers.
			var long []byte
			long = append(long, rec...)
			for err == bufio.ErrBufferFull {
				rec, err = br.ReadSlice('\n')
				long = append(long, rec...)
			}
			rec = long
		}
		read += int64(len(rec))
		if read > bound {
			return errOutputBound
		}
		if err == io.EOF && len(rec) == 0 {
			return nil
		}
		if err != nil && err != io.EOF {
			return err
		}
		rec = bytes.TrimSuffix(rec, []byte("\n"))
		off, length, ok := q.record(rec)
		if !ok || off < 0 || off+length > len(in) || off < lastOff {
			return fmt.Errorf("unexpected output line %q", truncate(string(rec), 100))
		}
		if off == lastOff && off+length == lastEnd {
			continue
		}
		lastOff, lastEnd = off, off+length
		if length == 0 && off < len(in) && !utf8.RuneStart(in[off]) {
			// rg steps one byte past an empty match; RE2 steps one
			// character, so it never reports one inside a character.
			continue
		}
		for fi < len(files) && off >= files[fi].end {
			fi++
			ls, lineNo = -1, 0
		}
		if fi == len(files) || off < files[fi].start {
			continue // the leading empty line
		}
		f := files[fi]
		res := f.res
		if int64(len(res.matches)) >= perFile {
			continue
		}
		buf := in[f.start:f.end]
		rel := off - f.start
		if ls < 0 {
			ls, lineNo = 0, 1
		}
		if i := bytes.LastIndexByte(buf[ls:rel], '\n'); i >= 0 {
			lineNo += bytes.Count(buf[ls:ls+i+1], []byte{'\n'})
			ls += i + 1
		}
		le := ls + bytes.IndexByte(buf[ls:], '\n')
		if rel+length > le {
			return fmt.Errorf("reported a match across a line end at offset %d", off)
		}
		lineText := string(buf[ls:le])
		var before, after []string
		if req.contextLines > 0 {
			before, after = extLinesBefore(buf, ls, req.contextLines), extLinesAfter(buf, le, req.contextLines)
		}
		if n := len(res.matches); n > 0 && res.matches[n-1].line == int64(lineNo) {
			before, after = res.matches[n-1].before, res.matches[n-1].after
		}
		res.matches = append(res.matches, match{
			line: int64(lineNo), column: int64(rel-ls) + 1,
			text: lineText[rel-ls : rel-ls+length], lineText: lineText,
			before: before, after: after,
		})
		if err == io.EOF {
			return nil
		}
	}
}

// record decodes one report line into the match's offset and length.
func (q *extQuery) record(rec []byte) (off, length int, ok bool) {
	sep := byte(':')
	if q.backend == backendUgrep {
		sep = ' '
	}
	i := bytes.IndexByte(rec, sep)
	if i <= 0 {
		return 0, 0, false
	}
	off, err := strconv.Atoi(string(rec[:i]))
	if err != nil {
		return 0, 0, false
	}
	if q.backend == backendUgrep {
		length, err = strconv.Atoi(string(rec[i+1:]))
		return off, length, err == nil && length >= 0
	}
	return off, len(rec) - i - 1, true
}

// extLinesBefore and extLinesAfter are linesBefore and linesAfter on the
// binary's input, whose lines hold no terminator CR to trim.
func extLinesBefore(buf []byte, ls int, n int64) []string {
	var out []string
	for pos := ls; int64(len(out)) < n && pos > 0; {
		end := pos - 1
		start := bytes.LastIndexByte(buf[:end], '\n') + 1
		out = append(out, string(buf[start:end]))
		pos = start
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

func extLinesAfter(buf []byte, le int, n int64) []string {
	var out []string
	for pos := le + 1; int64(len(out)) < n && pos < len(buf); {
		end := pos + bytes.IndexByte(buf[pos:], '\n')
		out = append(out, string(buf[pos:end]))
		pos = end + 1
	}
	return out
}
