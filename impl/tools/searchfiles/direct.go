package searchfiles

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// The direct mode of the external backends: the binary opens and searches
// the candidate files itself, with its own parallelism, one process per
// chunk of candidates (512 files, then 2,048, then 8,192 per process: a
// search of 10,000 files takes three).
// The shared walker still decides which files are candidates (hidden
// entries, gitignore, denied patterns, symlinks, max_depth, globs,
// max_files: I-SF-09..13), so the binary never touches a path the native
// backend would not, and the merger still orders and limits the results.
//
// What the binary reports is a prefilter with exact positions. Each file
// it reports is read by the shared reader and checked as the native
// backend checks it (size, binary content); where the file's bytes are
// exactly the lines the stdin mode would feed (no CR; for ugrep, no UTF-8
// BOM, which ugrep hides), the reported offsets are the matches. A file
// holding a CR is searched again by the stdin mode (external.go), which
// feeds the lines without their terminator CR (I-SF-06). A terminator CR
// can hide a match only from a query with $ or \z (anywhere else the raw
// bytes hold a match too, so the binary reports the file): for those, a
// second pattern "\r" makes the binary report every file with a CR.
// Files the binary does not report get the native reader's error
// entries without being read: on the plain OS filesystem from the size
// the walker's lstat saw (the binary, running as this process, opened
// them all, or it exits 2 and the stdin mode searches the chunk again);
// behind PermFs or FaultFs by opening them through the wrapper.

const (
	// directFirstChunk is the first chunk's size in files: small, so that
	// a search the limits stop early starts its first results soon; each
	// next chunk is four times larger, up to directMaxChunk.
	directFirstChunk = 512
	directMaxChunk   = 8192
	// directMaxArgBytes bounds one command line's file names, well below
	// Linux's ARG_MAX (2 MiB with the default stack limit).
	directMaxArgBytes = 768 << 10
	// directIdle flushes a partial chunk when the walker produced nothing
	// for that long: it may be slow (a large directory, a slow disk) or
	// waiting for the merger. Long enough that a busy machine's scheduling
	// delays do not split a search into many small runs.
	directIdle = 50 * time.Millisecond
	// directInFlight is how many chunks' processes may run at once.
	directInFlight = 2
	// directLookahead replaces lookahead: the walker must be able to run
	// a whole chunk ahead of the merger.
	directLookahead = 4 * directMaxChunk
)

// baseFs is implemented by the fsys wrappers (PermFs, FaultFs), which
// refuse operations but never change what a file holds.
type baseFs interface{ Base() afero.Fs }

// onDisk reports whether the files of afs are those of the operating
// system, which the binary can open itself: afero.OsFs, possibly behind
// wrappers that only refuse operations (their refusals are applied when
// the shared code opens each candidate).
func onDisk(afs afero.Fs) bool {
	for {
		switch f := afs.(type) {
		case *afero.OsFs:
			return true
		case baseFs:
			afs = f.Base()
		default:
			return false
		}
	}
}

// directArgs is the command line of a direct run before its file names.
func (q *extQuery) directArgs(perFile int64) []string {
	var args []string
	cr := "--regexp=\r" // rg: a literal CR, in any mode
	switch q.backend {
	case backendRg:
		// -0 -H -o -b: one "path NUL offset:text" line per match; --text:
		// no binary detection (the shared reader's applies).
		args = []string{"--no-config", "--no-heading", "--with-filename", "--null", "--no-line-number",
			"--color=never", "--only-matching", "--byte-offset", "--text", "--encoding=none",
			"--case-sensitive", "--regex-size-limit=256M", "--dfa-size-limit=256M"}
	case backendUgrep:
		// -0 -H --format "%F%b %d": one "path NUL offset length" line.
		args = []string{"--color=never", "--binary-files=text", "--with-filename",
			"--null", "--format=%F%b %d%~"}
		// ugrep drops a literal CR from a pattern; its PCRE2 engine (every
		// ugrep query with an end anchor uses it) reads the escape.
		cr = `--regexp=\r`
	}
	// A line holds at least one match, so perFile lines hold perFile
	// matches or more.
	args = append(args, "--max-count="+strconv.FormatInt(perFile, 10))
	args = append(args, q.pattern...)
	if q.endAnchor {
		args = append(args, cr)
	}
	return append(args, "--")
}

// hit is one match the binary reported: its byte offset in the file and
// its length.
type hit struct{ off, length int }

// direct is the direct mode's dispatcher: it gathers the candidates of
// jobs into chunks and runs the binary on each, at most directInFlight at
// a time. Every item received gets exactly one result.
func (q *extQuery) direct(ctx context.Context, afs afero.Fs, req *request, root string, perFile int64,
	known map[string][]hit, jobs <-chan *item, stop <-chan struct{}) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-stop:
			cancel() // kills the running processes
		case <-ctx.Done():
		}
	}()
	sem := make(chan struct{}, directInFlight)
	var wg sync.WaitGroup
	limit := directFirstChunk
	idle := time.NewTimer(time.Hour)
	defer idle.Stop()
	for open := true; open; {
		var chunk []*item
		chunk, open = q.gather(jobs, root, limit, idle)
		if len(chunk) == 0 {
			continue
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			q.runChunk(ctx, afs, req, root, perFile, chunk, known)
		}()
		limit = min(limit*4, directMaxChunk)
	}
	wg.Wait()
}

// gather takes the next chunk from jobs: it waits for one candidate, then
// takes more until the chunk is full, jobs is closed, or none came within
// directIdle. open is false once jobs is closed.
func (q *extQuery) gather(jobs <-chan *item, root string, limit int, idle *time.Timer) (chunk []*item, open bool) {
	it, ok := <-jobs
	if !ok {
		return nil, false
	}
	chunk = append(chunk, it)
	size := len(argPath(root, it))
	for len(chunk) < limit && size < directMaxArgBytes {
		select {
		case it, ok := <-jobs:
			if !ok {
				return chunk, false
			}
			chunk = append(chunk, it)
			size += len(argPath(root, it)) + 1
			continue
		default:
		}
		idle.Reset(directIdle)
		select {
		case it, ok := <-jobs:
			idle.Stop() // timer channels hold no stale value (go 1.23+)
			if !ok {
				return chunk, false
			}
			chunk = append(chunk, it)
			size += len(argPath(root, it)) + 1
		case <-idle.C:
			return chunk, true
		}
	}
	return chunk, true
}

// argPath is the name the binary gets for it, and prints back: relative
// to root (the process's working directory) when below it, else absolute
// (a symlink's target).
func argPath(root string, it *item) string {
	if rel, ok := strings.CutPrefix(it.abs, root); ok && strings.HasPrefix(rel, "/") && len(rel) > 1 {
		if rel == "/-" {
			return "./-" // "-" alone would be the standard input
		}
		return rel[1:]
	}
	return it.abs
}

// runChunk runs the binary on one chunk and hands every item its result.
// A non-nil known holds the hits of every file below root, by raw
// relative path, from a tree run that searched them all (tree.go): the
// binary is not run again, and a file known does not hold has none.
func (q *extQuery) runChunk(ctx context.Context, afs afero.Fs, req *request, root string, perFile int64, chunk []*item,
	known map[string][]hit) {
	results := make([]fileResult, len(chunk))
	send := func(i int) { chunk[i].res <- results[i] }
	if ctx.Err() != nil {
		for i := range chunk {
			send(i)
		}
		return
	}
	hits, key := known, func(it *item) string { return it.rawPath }
	var rerr error
	if known == nil {
		hits, rerr = q.runDirect(ctx, root, perFile, chunk)
		key = func(it *item) string { return argPath(root, it) }
	}
	var fallback []int // searched again by the stdin mode
	switch {
	case ctx.Err() != nil:
		for i := range chunk {
			send(i)
		}
		return
	case errors.Is(rerr, errSomeFailed):
		// The binary could not search some file: the stdin mode searches
		// the whole chunk with the shared reader's error entries.
		for i := range chunk {
			fallback = append(fallback, i)
		}
	case rerr != nil:
		results[0] = fileResult{fatal: toolerr.Failed(Name, "the %s backend failed: %v", q.backend, rerr)}
		for i := range chunk {
			send(i)
		}
		return
	default:
		var mu sync.Mutex
		var next atomic.Int64
		var wg sync.WaitGroup
		for range max(1, runtime.GOMAXPROCS(0)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sc := &scratch{}
				for {
					i := int(next.Add(1) - 1)
					if i >= len(chunk) {
						return
					}
					var again bool
					results[i], again = q.resolve(ctx, afs, req, perFile, chunk[i], hits[key(chunk[i])], sc)
					if again {
						mu.Lock()
						fallback = append(fallback, i)
						mu.Unlock()
						continue
					}
					send(i)
				}
			}()
		}
		wg.Wait()
	}
	if len(fallback) > 0 {
		items := make([]*item, len(fallback))
		res := make([]fileResult, len(fallback))
		for j, i := range fallback {
			items[j] = chunk[i]
		}
		q.searchBatch(ctx, afs, req, perFile, items, res, &scratch{}, nil)
		for j, i := range fallback {
			results[i] = res[j]
			send(i)
		}
	}
}

// errSomeFailed reports a run in which the binary could not search some
// file: it exited with status 2, or printed a message.
var errSomeFailed = errors.New("some files could not be searched")

// runDirect runs the binary once over the chunk's files and returns the
// hits per file name, in the order reported.
func (q *extQuery) runDirect(ctx context.Context, root string, perFile int64, chunk []*item) (map[string][]hit, error) {
	args := q.directArgs(perFile)
	for _, it := range chunk {
		args = append(args, argPath(root, it))
	}
	cmd := exec.CommandContext(ctx, q.path, args...)
	cmd.Dir = root
	cmd.Env = childEnv()
	cmd.WaitDelay = time.Second
	stderr := &head{limit: 4 << 10}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	hits, parseErr := q.parseDirect(stdout)
	if parseErr != nil {
		_ = cmd.Process.Kill()
		_, _ = io.Copy(io.Discard, stdout)
	}
	waitErr := cmd.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if parseErr != nil {
		return nil, parseErr
	}
	var ee *exec.ExitError
	status := 0
	if errors.As(waitErr, &ee) {
		status = ee.ExitCode()
	}
	if (status == 0 || status == 1 || status == 2) && (status == 2 || stderr.buf.Len() > 0) {
		// A file it could not open or read: rg exits 2, ugrep only says
		// so on its standard error (it exits 0 when another file matched).
		return nil, errSomeFailed
	}
	if status == 1 {
		return hits, nil // no match
	}
	if waitErr != nil {
		msg := strings.TrimSpace(stderr.buf.String())
		if msg == "" {
			return nil, waitErr
		}
		return nil, fmt.Errorf("%v: %s", waitErr, truncate(msg, 500))
	}
	return hits, nil
}

// parseDirect reads the binary's report as it streams: per match, the
// file name, a NUL, then "offset:text" (rg -o -b; the text holds no line
// feed) or "offset length" (ugrep), then a line feed.
func (q *extQuery) parseDirect(r io.Reader) (map[string][]hit, error) {
	br := bufio.NewReaderSize(r, 256<<10)
	hits := map[string][]hit{}
	var name string
	var nameBytes []byte
	for {
		rec, err := br.ReadSlice(0)
		if err == io.EOF && len(rec) == 0 {
			return hits, nil
		}
		if err != nil {
			if err == bufio.ErrBufferFull {
				return nil, fmt.Errorf("a file name longer than %d bytes in the output", br.Size())
			}
			return nil, fmt.Errorf("unexpected end of output after %q", truncate(string(rec), 100))
		}
		rec = rec[:len(rec)-1]
		if !bytes.Equal(rec, nameBytes) {
			nameBytes = append(nameBytes[:0], rec...)
			name = string(rec)
		}
		rest, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// rg prints the match text; a long one spans buffers.
			long := append([]byte(nil), rest...)
			for err == bufio.ErrBufferFull {
				rest, err = br.ReadSlice('\n')
				long = append(long, rest...)
			}
			rest = long
		}
		if err != nil {
			return nil, fmt.Errorf("unexpected end of output after %q", truncate(string(rest), 100))
		}
		off, length, ok := q.record(rest[:len(rest)-1])
		if !ok || off < 0 {
			return nil, fmt.Errorf("unexpected output line %q", truncate(string(rest), 100))
		}
		hits[name] = append(hits[name], hit{off: off, length: length})
	}
}

// resolve gives the result of one candidate from the binary's hits in it.
// again means the stdin mode must search it (a CR, a BOM under ugrep, or
// hits that do not fit the file as read).
func (q *extQuery) resolve(ctx context.Context, afs afero.Fs, req *request, perFile int64, it *item, hits []hit, sc *scratch) (fileResult, bool) {
	if ctx.Err() != nil {
		return fileResult{}, false
	}
	if len(hits) == 0 && it.sized && !q.bom {
		// The binary opened and searched it (it exited 0 or 1) and found
		// nothing: only its size can give an entry.
		if it.size > req.maxFileSize {
			return fileResult{errMsg: tooLarge(it.size, req.maxFileSize)}, false
		}
		return fileResult{}, false
	}
	if len(hits) == 0 {
		f, size, errMsg := openCandidate(afs, req, it)
		if f == nil {
			return fileResult{errMsg: errMsg}, false
		}
		defer f.Close()
		if q.bom && size >= int64(len(utf8BOM)) {
			// ugrep does not search a leading BOM, which this query
			// can match: only the stdin mode can tell.
			head := make([]byte, len(utf8BOM))
			if _, err := io.ReadFull(f, head); err == nil && bytes.Equal(head, utf8BOM) {
				return fileResult{}, true
			}
		}
		return fileResult{}, false
	}
	buf, errMsg := readCandidate(ctx, afs, req, it, sc)
	if buf == nil {
		return fileResult{errMsg: errMsg}, false
	}
	if bytes.IndexByte(buf, '\r') >= 0 || (q.backend == backendUgrep && bytes.HasPrefix(buf, utf8BOM)) {
		return fileResult{}, true
	}
	ms, ok := mapHits(buf, hits, perFile, req.contextLines)
	if !ok {
		return fileResult{}, true
	}
	return fileResult{matches: ms}, false
}

// mapHits turns the hits in a file without CR into its first perFile
// matches, as external.go's parse does for the stdin mode. ok is false
// when a hit does not fit buf.
func mapHits(buf []byte, hits []hit, perFile, contextLines int64) ([]match, bool) {
	var out []match
	ls, lineNo := 0, int64(1) // the line start and number of the last match
	lastOff, lastEnd := -1, -1
	for _, h := range hits {
		off, length := h.off, h.length
		if off+length > len(buf) || off < lastOff {
			return nil, false
		}
		if off == lastOff && off+length == lastEnd {
			continue
		}
		lastOff, lastEnd = off, off+length
		if length == 0 && off < len(buf) && !utf8.RuneStart(buf[off]) {
			// rg steps one byte past an empty match; RE2 steps one
			// character, so it never reports one inside a character.
			continue
		}
		if int64(len(out)) >= perFile {
			break
		}
		if i := bytes.LastIndexByte(buf[ls:off], '\n'); i >= 0 {
			lineNo += int64(bytes.Count(buf[ls:ls+i+1], []byte{'\n'}))
			ls += i + 1
		}
		le := len(buf)
		if i := bytes.IndexByte(buf[ls:], '\n'); i >= 0 {
			le = ls + i
		}
		if off+length > le {
			return nil, false
		}
		if n := len(out); n > 0 && out[n-1].line == lineNo {
			prev := out[n-1]
			out = append(out, match{line: lineNo, column: int64(off-ls) + 1,
				text: prev.lineText[off-ls : off-ls+length], lineText: prev.lineText,
				before: prev.before, after: prev.after})
			continue
		}
		lineText := string(buf[ls:le])
		var before, after []string
		if contextLines > 0 {
			before, after = linesBefore(buf, ls, contextLines), linesAfter(buf, le, contextLines)
		}
		out = append(out, match{line: lineNo, column: int64(off-ls) + 1,
			text: lineText[off-ls : off-ls+length], lineText: lineText,
			before: before, after: after})
	}
	return out, true
}
