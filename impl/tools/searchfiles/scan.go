package searchfiles

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/sandbox"
)

// openFlags open a file without following a final symlink (FR-VAL-06);
// O_NONBLOCK keeps a FIFO swapped in after the type check from blocking
// the open.
const openFlags = syscall.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// lookahead bounds how many items the walker may run ahead of the merger.
const lookahead = 512

// match is one output match (§3.5 match object).
type match struct {
	path, rawPath  string
	line, column   int64
	text, lineText string
	before, after  []string
	score          float64
	fuzzy          bool
}

// errEntry is one element of "errors" (§3.5).
type errEntry struct {
	path, rawPath, msg string
}

// outcome is everything a search found, before rendering.
type outcome struct {
	matches      []match // sorted (FR-SF-OUT-01)
	errors       []errEntry
	reason       string // "", reasonMaxResults or reasonMaxFiles
	filesScanned int64
	filesMatched int64
	tree         bool // the rg backend's tree mode settled it (tree.go)
}

// fileGroup is the kept matches of one file, for sorting by path.
type fileGroup struct {
	path, rawPath string
	matches       []match
}

// search runs one search over the directory root (canonical) whose names
// are already read. The walker traverses in one goroutine, a bounded pool
// of workers reads and searches files, and this goroutine merges their
// results in traversal order, so limits cut the same place whatever the
// timing (I-SF-11).
func search(ctx context.Context, afs afero.Fs, sb *sandbox.Sandbox, req *request, deny *denyMatcher,
	root string, ents []dirent) (*outcome, error) {
	perFile := min(req.maxMatchesPerFile, req.maxResults+1)
	var known map[string][]hit
	if filters, ok := treeFilters(afs, req, deny); ok {
		t, err := req.ext.treeRun(ctx, root, filters, req, perFile)
		if err != nil {
			return nil, err
		}
		if t.whole(req) {
			out, ok, err := req.ext.treeFinish(ctx, afs, req, root, perFile, t)
			if err != nil || ok {
				return out, err
			}
		}
		if t.complete {
			known = t.hits
		}
	}
	direct := req.ext != nil && onDisk(afs)
	ahead := lookahead
	switch {
	case direct:
		ahead = directLookahead
	case req.ext != nil:
		ahead = extLookahead
	}
	order := make(chan *item, ahead)
	jobs := make(chan *item, ahead)
	stop := make(chan struct{})
	var stopOnce sync.Once
	halt := func() { stopOnce.Do(func() { close(stop) }) }
	defer halt()

	w := &walker{ctx: ctx, fs: afs, sb: sb, req: req, deny: deny,
		order: order, jobs: jobs, stop: stop}
	if _, plain := afs.(*afero.OsFs); direct && plain {
		// The binary opens the files as this process would: only the
		// size can make an entry of a file it found nothing in.
		w.sizes = true
		sizeRoot(root, ents)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(jobs)
		defer close(order)
		w.lister = newLister(afs, w.sizes, max(1, runtime.GOMAXPROCS(0)))
		defer w.lister.close()
		d := &dirNode{abs: root, depth: 1}
		if req.respectGitignore {
			d.ignores, d.comps = w.ancestorIgnores(root, ents)
		}
		w.walk(d, ents)
	}()
	workers := max(1, runtime.GOMAXPROCS(0))
	if direct {
		workers = 0
		wg.Add(1)
		go func() {
			defer wg.Done()
			req.ext.direct(ctx, afs, req, root, perFile, known, jobs, stop)
		}()
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if req.ext != nil {
				req.ext.worker(ctx, afs, req, perFile, jobs, stop)
				return
			}
			sc := &scratch{}
			for it := range jobs {
				select {
				case <-stop:
					it.res <- fileResult{}
					continue
				default:
				}
				it.res <- scanFile(ctx, afs, req, perFile, it, sc)
			}
		}()
	}
	out := &outcome{}
	var groups []fileGroup
	var kept int64
merge:
	for it := range order {
		switch it.kind {
		case itemError:
			out.errors = append(out.errors, errEntry{path: it.path, rawPath: it.rawPath, msg: it.errMsg})
		case itemMaxFiles:
			out.reason = reasonMaxFiles
			break merge
		case itemFile:
			var r fileResult
			select {
			case r = <-it.res:
			case <-ctx.Done():
				halt()
				wg.Wait()
				return nil, ctx.Err()
			}
			if r.fatal != nil {
				halt()
				wg.Wait()
				return nil, r.fatal
			}
			out.filesScanned++
			if r.errMsg != "" {
				out.errors = append(out.errors, errEntry{path: it.path, rawPath: it.rawPath, msg: r.errMsg})
				continue
			}
			if len(r.matches) == 0 {
				continue
			}
			room := req.maxResults - kept
			ms := r.matches
			if int64(len(ms)) > room {
				ms = ms[:room]
				out.reason = reasonMaxResults
			}
			if len(ms) > 0 {
				for i := range ms {
					ms[i].path, ms[i].rawPath = it.path, it.rawPath
				}
				groups = append(groups, fileGroup{path: it.path, rawPath: it.rawPath, matches: ms})
				kept += int64(len(ms))
				out.filesMatched++
			}
			if out.reason != "" {
				break merge
			}
		}
	}
	halt()
	wg.Wait()
	// A search the context ended may have skipped files silently.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if w.cancelled != nil {
		return nil, w.cancelled
	}
	finish(out, groups, kept)
	return out, nil
}

// finish puts the kept matches (kept of them, in groups per file) and the
// errors of out in output order. FR-SF-OUT-01, I-LD-02: by lossy path,
// ties by raw path; within a file the matches are already in line and
// column order. O(n log n).
func finish(out *outcome, groups []fileGroup, kept int64) {
	slices.SortStableFunc(groups, func(a, b fileGroup) int {
		if c := strings.Compare(a.path, b.path); c != 0 {
			return c
		}
		return strings.Compare(a.rawPath, b.rawPath)
	})
	out.matches = make([]match, 0, kept)
	for _, g := range groups {
		out.matches = append(out.matches, g.matches...)
	}
	slices.SortStableFunc(out.errors, func(a, b errEntry) int {
		if c := strings.Compare(a.path, b.path); c != 0 {
			return c
		}
		return strings.Compare(a.rawPath, b.rawPath)
	})
}

// errNotRegular reports that the opened object is not a regular file.
var errNotRegular = errors.New("not a regular file")

// scanFile reads and searches one candidate file (FR-SF-SRC-04, -07).
func scanFile(ctx context.Context, afs afero.Fs, req *request, perFile int64, it *item, sc *scratch) fileResult {
	buf, errMsg := readCandidate(ctx, afs, req, it, sc)
	if buf == nil {
		return fileResult{errMsg: errMsg}
	}
	return fileResult{matches: scanBuffer(buf, req.matcher, perFile, req.contextLines, sc)}
}

// readCandidate reads one candidate file into sc.buf. It returns nil and
// the error entry's text when the file cannot be searched, nil and "" when
// it is skipped silently (binary, or the search is cancelled).
func readCandidate(ctx context.Context, afs afero.Fs, req *request, it *item, sc *scratch) ([]byte, string) {
	buf, msg := readCandidateRaw(ctx, afs, req, it, sc)
	if req.opts.StripFinalCR && len(buf) > 0 && buf[len(buf)-1] == '\r' {
		// Options.StripFinalCR: a final CR ends the last line as CRLF does.
		buf = append(buf, '\n')
	}
	return buf, msg
}

// readCandidateRaw is readCandidate without Options.StripFinalCR.
func readCandidateRaw(ctx context.Context, afs afero.Fs, req *request, it *item, sc *scratch) ([]byte, string) {
	if ctx.Err() != nil {
		return nil, ""
	}
	if _, plain := afs.(*afero.OsFs); plain && osFastPath {
		return readCandidateOS(req, it, sc)
	}
	f, size, errMsg := openCandidate(afs, req, it)
	if f == nil {
		return nil, errMsg
	}
	defer f.Close()
	return readOpened(f, size, sc)
}

// openCandidate opens one candidate file and checks it as every backend
// does before reading: a regular file within max_file_size_bytes. It
// returns the open file and its size, or nil and the error entry's text.
func openCandidate(afs afero.Fs, req *request, it *item) (afero.File, int64, string) {
	f, err := afs.OpenFile(it.abs, openFlags, 0)
	if err != nil {
		return nil, 0, fsys.ErrText(err)
	}
	info, err := f.Stat()
	var msg string
	switch {
	case err != nil:
		msg = fsys.ErrText(err)
	case !info.Mode().IsRegular():
		msg = errNotRegular.Error()
	case info.Size() > req.maxFileSize:
		msg = tooLarge(info.Size(), req.maxFileSize)
	default:
		return f, info.Size(), ""
	}
	f.Close()
	return nil, 0, msg
}

// readOpened reads an opened candidate of the given size: nil and the
// error entry's text when reading fails, nil and "" when the file is
// binary (FR-SF-SRC-04, I-SF-05: the scanned region is the whole file).
func readOpened(f io.Reader, size int64, sc *scratch) ([]byte, string) {
	buf, err := readSized(f, size, sc)
	if err != nil {
		return nil, fsys.ErrText(err)
	}
	if bytes.IndexByte(buf, 0) >= 0 || !utf8.Valid(buf) {
		return nil, ""
	}
	return buf, ""
}

func tooLarge(size, limit int64) string {
	return fmt.Sprintf("skipped: file size %d bytes exceeds max_file_size_bytes %d", size, limit)
}

// readSized reads the size bytes fstat reported into sc.buf. The file is
// searched as it was at that fstat (I-SF-05): bytes appended later are not
// read, and a file that shrank gives what it still holds.
func readSized(f io.Reader, size int64, sc *scratch) ([]byte, error) {
	if int64(cap(sc.buf)) < size {
		sc.buf = make([]byte, size)
	}
	buf := sc.buf[:size]
	n, err := io.ReadFull(f, buf)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return buf[:n], err
}

// scanBuffer finds up to limit matches in the file content buf (I-SF-06):
// lines end at "\n", a "\r" before it is not part of the line, a last line
// without "\n" counts, and matches never span lines.
func scanBuffer(buf []byte, m matcher, limit, contextLines int64, sc *scratch) []match {
	var out []match
	lineNo := int64(1)
	counted := 0 // buf[:counted] has been counted into lineNo
	for from := 0; int64(len(out)) < limit; {
		c := m.next(buf, from)
		if c < 0 {
			break
		}
		ls := from + bytes.LastIndexByte(buf[from:c], '\n') + 1
		lineNo += int64(bytes.Count(buf[counted:ls], []byte{'\n'}))
		counted = ls
		le := len(buf)
		if i := bytes.IndexByte(buf[c:], '\n'); i >= 0 {
			le = c + i
		}
		text := lineAt(buf, ls, le)
		sc.spans = m.find(text, int(limit-int64(len(out))), sc.spans[:0], sc)
		if len(sc.spans) > 0 {
			lineText := string(text)
			var before, after []string
			if contextLines > 0 {
				before, after = linesBefore(buf, ls, contextLines), linesAfter(buf, le, contextLines)
			}
			for _, s := range sc.spans {
				out = append(out, match{
					line: lineNo, column: int64(s.start) + 1,
					text: lineText[s.start:s.end], lineText: lineText,
					before: before, after: after,
					score: s.score, fuzzy: m.fuzzy(),
				})
			}
		}
		from = le + 1
	}
	return out
}

// lineAt is the text of the line buf[ls:le], le being the offset of its
// "\n" or len(buf): a CR before the "\n" is dropped, a final CR without
// one is kept (I-SF-06).
func lineAt(buf []byte, ls, le int) []byte {
	if le < len(buf) {
		return trimCR(buf[ls:le])
	}
	return buf[ls:le]
}

func trimCR(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		return line[:n-1]
	}
	return line
}

// linesBefore returns up to n lines before the line starting at ls, in
// file order.
func linesBefore(buf []byte, ls int, n int64) []string {
	var out []string
	for pos := ls; int64(len(out)) < n && pos > 0; {
		end := pos - 1 // the "\n" ending the previous line
		start := bytes.LastIndexByte(buf[:end], '\n') + 1
		out = append(out, string(trimCR(buf[start:end])))
		pos = start
	}
	slices.Reverse(out)
	return out
}

// linesAfter returns up to n lines after the line ending at le (the
// offset of its "\n", or len(buf)).
func linesAfter(buf []byte, le int, n int64) []string {
	var out []string
	for pos := le + 1; int64(len(out)) < n && pos < len(buf); {
		end := len(buf)
		if i := bytes.IndexByte(buf[pos:], '\n'); i >= 0 {
			end = pos + i
		}
		out = append(out, string(lineAt(buf, pos, end)))
		pos = end + 1
	}
	return out
}
