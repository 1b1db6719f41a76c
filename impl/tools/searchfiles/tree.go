package searchfiles

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/afero"
)

// The tree mode of the rg backend (issue 10): rg walks the searched
// directory itself, with its own parallelism, in one run per call, where
// every rule that selects the candidates (I-SF-03, I-SF-09, I-SF-12,
// I-SF-13) has an exact rg equivalent (treeFilters) and max_files is at
// least treeMinFiles.
//
// The tree run reports, as the direct mode's runs do, every match with its
// file and byte offset, streamed, and then rg's totals (--stats): the
// files it searched and the bytes it read. It is stopped as soon as the
// matches reported (at most max_matches_per_file per file) exceed
// max_results: which ones a search cut by a limit keeps is decided in
// traversal order, which rg does not follow.
//
// The run settles the search (whole) when it ended cleanly, searched at
// most max_files files and read at most max_file_size_bytes in all. The
// files it searched are then the candidates (files_scanned), and no file
// it found nothing in can be over the size limit, since it read each of
// those whole (--text: no binary file is left early), so none needs an
// error entry it did not report. Only the files with matches are read,
// by the shared reader, which applies the size limit and binary detection
// and sends files holding a CR to the stdin mode, as in the direct mode
// (runChunk, resolve).
//
// A run that ended cleanly but does not settle the search (more files
// than max_files, more bytes than max_file_size_bytes, more matches kept
// than max_results) still found every match of every candidate: the
// search is the direct mode's, walked and cut by the shared walker, with
// those matches and without running the binary again. A run stopped or
// failed leaves the search to the direct mode as it is. Either way the
// output is the direct mode's, which is the native backend's.

// treeMinFiles is the smallest max_files for which the tree mode is
// tried. The tree run searches the whole tree before the walker can tell
// where max_files cuts it in traversal order, while the direct mode stops
// there; a max_files below the size of the trees searched would make the
// tree mode search many times more files than the direct mode (the
// default 5,000 against the 11,400 files of Go's src/, say). From this
// value on, a tree large enough for the cut to matter is also one the
// call asked to search whole. Which mode runs never changes the output.
const treeMinFiles = 100_000

// safeGlobByte reports whether c may appear in a denied-name pattern
// passed to rg as an override glob: a byte that is literal in both
// doublestar and rg's gitignore-style globs wherever it stands.
func safeGlobByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("._-+@%,=~", c) >= 0
}

// rgGlob returns the name pattern as an rg glob that matches the same
// names, or false when p is not a literal or prefix*suffix of safe bytes.
func (p *namePattern) rgGlob() (string, bool) {
	if !p.simple {
		return "", false
	}
	for _, part := range []string{p.prefix, p.suffix} {
		for i := 0; i < len(part); i++ {
			if !safeGlobByte(part[i]) {
				return "", false
			}
		}
	}
	if p.star {
		return p.prefix + "*" + p.suffix, true
	}
	return p.prefix, p.prefix != ""
}

// treeFilters returns the rg flags under which rg's own walk of root
// searches exactly the walker's candidates, or false when the tree mode
// is not tried: max_files below treeMinFiles, a query rg runs on its
// PCRE2 engine (I-SF-21: \b, \B), which fails on every file that is not
// UTF-8 where the shared reader would skip it as binary (the run could
// not settle a tree holding one), or a rule rg cannot reproduce exactly:
//   - files the binary cannot see as the call's filesystem shows them
//     (anything but afero.OsFs itself: PermFs and FaultFs change what
//     may be read);
//   - follow_symlinks (rg -L would also enter symlinked directories and
//     could leave the sandbox);
//   - respect_gitignore (rg's ignore rules differ from I-SF-10's: it
//     reads .ignore files and global excludes, stops at other
//     boundaries, and its matcher is not git's);
//   - include_globs and exclude_globs (doublestar on the relative path,
//     rg's are gitignore-style);
//   - denied patterns other than "**/NAME" and "**/NAME/**" with NAME a
//     literal or prefix*suffix of plain characters (I-SF-13).
//
// The rest match: rg skips hidden entries (a leading ".") unless
// --hidden, never follows symlinks and searches regular files only (no
// FIFO, socket or device), applies --glob=!NAME to files and
// directories at any depth by their name (and never to the searched
// directory itself), and --max-depth=N searches files N levels down and
// enters directories above that level, as max_depth does (I-SF-03).
func treeFilters(afs afero.Fs, req *request, deny *denyMatcher) ([]string, bool) {
	if req.ext == nil || req.ext.backend != backendRg || req.ext.pcre2 || req.maxFiles < treeMinFiles {
		return nil, false
	}
	if _, plain := afs.(*afero.OsFs); !plain {
		return nil, false
	}
	if req.followSymlinks || req.respectGitignore || len(req.includeGlobs) > 0 || len(req.excludeGlobs) > 0 || len(deny.full) > 0 || deny.sb != nil ||
		req.opts.StripFinalCR {
		return nil, false
	}
	flags := []string{"--no-ignore", "--max-depth=" + strconv.FormatInt(req.maxDepth, 10)}
	if req.includeHidden {
		flags = append(flags, "--hidden")
	}
	for i := range deny.names {
		g, ok := deny.names[i].rgGlob()
		if !ok {
			return nil, false
		}
		flags = append(flags, "--glob=!"+g)
	}
	return flags, true
}

// treeResult is what the tree run reported.
type treeResult struct {
	hits     map[string][]hit // per file with matches, by raw path relative to root
	upper    int64            // the matches reported, at most perFile per file
	complete bool             // the run ended by itself, cleanly, with its totals
	searched int64            // its totals (complete only)
	bytes    int64
}

// whole reports whether the run settles the search (see above).
func (t *treeResult) whole(req *request) bool {
	return t.complete && t.searched <= req.maxFiles && t.bytes <= req.maxFileSize && t.upper <= req.maxResults
}

// treeArgs is the tree run's command line: the direct mode's, with the
// totals, the filters and the searched directory.
func (q *extQuery) treeArgs(perFile int64, filters []string) []string {
	args := q.directArgs(perFile)
	args = append(args[:len(args)-1:len(args)-1], "--stats") // directArgs ends with "--"
	args = append(args, filters...)
	return append(args, "--", "./")
}

// errTreeStopped reports a tree run stopped at max_results.
var errTreeStopped = errors.New("stopped at a limit")

// treeRun runs the tree run in root. Its problems are not errors: they
// leave the result incomplete, and the direct mode then searches (and
// reports them) exactly. Only the end of ctx is returned.
func (q *extQuery) treeRun(parent context.Context, root string, filters []string, req *request, perFile int64) (*treeResult, error) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	t := &treeResult{hits: map[string][]hit{}}
	cmd := exec.CommandContext(ctx, q.path, q.treeArgs(perFile, filters)...)
	cmd.Dir = root
	cmd.Env = childEnv()
	cmd.WaitDelay = time.Second
	stderr := &head{limit: 4 << 10}
	cmd.Stderr = stderr
	stdout, w, err := blockingPipe()
	if err != nil {
		return t, nil
	}
	defer stdout.Close()
	cmd.Stdout = w
	err = cmd.Start()
	w.Close()
	if err != nil {
		return t, nil
	}
	exited := make(chan struct{})
	var waitErr error
	go func() {
		defer close(exited)
		waitErr = cmd.Wait()
	}()
	trailer, perr := t.parse(&gulpReader{r: stdout, exited: exited}, q, req, perFile)
	if perr != nil {
		cancel() // kills the run
		_, _ = io.Copy(io.Discard, stdout)
	}
	<-exited
	if err := parent.Err(); err != nil {
		return nil, err
	}
	var ee *exec.ExitError
	status := 0
	if errors.As(waitErr, &ee) {
		status = ee.ExitCode()
	} else if waitErr != nil {
		return t, nil
	}
	if perr == nil && (status == 0 || status == 1) && stderr.buf.Len() == 0 {
		t.searched, t.bytes, t.complete = parseStats(trailer)
	}
	return t, nil
}

// parse reads the tree run's report as it streams: per match, "./NAME", a
// NUL, "offset:text" and a line feed (the text holds no line feed), the
// matches of one file together; then the totals, which hold no NUL,
// returned as the trailer. It stops with errTreeStopped once the matches
// (at most perFile per file) exceed max_results.
func (t *treeResult) parse(r io.Reader, q *extQuery, req *request, perFile int64) ([]byte, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var name string
	var nameBytes, long []byte
	var inFile int64 // matches counted in the current file
	for {
		rec, err := br.ReadSlice(0)
		if err == bufio.ErrBufferFull {
			long = append(long[:0], rec...)
			for err == bufio.ErrBufferFull {
				rec, err = br.ReadSlice(0)
				long = append(long, rec...)
			}
			rec = long
		}
		if err == io.EOF {
			return rec, nil
		}
		if err != nil {
			return nil, err
		}
		rec = rec[:len(rec)-1]
		if !bytes.Equal(rec, nameBytes) {
			rel, ok := bytes.CutPrefix(rec, []byte("./"))
			if !ok || len(rel) == 0 {
				return nil, fmt.Errorf("unexpected file name %q", truncate(string(rec), 100))
			}
			nameBytes = append(nameBytes[:0], rec...)
			name = string(rel)
			inFile = int64(len(t.hits[name]))
		}
		rest, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// rg prints the match text; a long one spans buffers.
			long = append(long[:0], rest...)
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
		// mapHits keeps the first perFile matches and passes over at most
		// three hits per match (an empty match inside a character, a
		// repeated one), so more hits of one file are never used.
		if hs := t.hits[name]; int64(len(hs)) < 4*perFile+4 {
			t.hits[name] = append(hs, hit{off: off, length: length})
		}
		// A lone CR found for a query with $ may be the extra pattern of
		// directArgs, which every file holding a CR matches: it is not
		// counted here (treeFinish counts the matches kept).
		if cr := q.endAnchor && length == 1 && rest[len(rest)-2] == '\r'; inFile < perFile && !cr {
			inFile++
			if t.upper++; t.upper > req.maxResults {
				return nil, errTreeStopped
			}
		}
	}
}

// parseStats reads the files searched and the bytes searched from rg's
// --stats block ("N files searched", "N bytes searched", one per line);
// ok is false unless both are there once.
func parseStats(trailer []byte) (files, size int64, ok bool) {
	var seenFiles, seenBytes int
	for _, line := range strings.Split(string(trailer), "\n") {
		num, what, found := strings.Cut(line, " ")
		if !found {
			continue
		}
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || n < 0 {
			continue
		}
		switch what {
		case "files searched":
			files, seenFiles = n, seenFiles+1
		case "bytes searched":
			size, seenBytes = n, seenBytes+1
		}
	}
	return files, size, seenFiles == 1 && seenBytes == 1
}

// treeFinish settles the search from a whole run (see above): the shared
// reader reads the files with matches (runChunk with the run's hits). ok
// is false when the matches kept exceed max_results, which the run could
// not tell (the direct mode then cuts the search in traversal order).
func (q *extQuery) treeFinish(ctx context.Context, afs afero.Fs, req *request, root string, perFile int64, t *treeResult) (*outcome, bool, error) {
	items := make([]*item, 0, len(t.hits))
	for name := range t.hits {
		items = append(items, &item{kind: itemFile, abs: filepath.Join(root, filepath.FromSlash(name)), rawPath: name,
			path: req.lossy(name), res: make(chan fileResult, 1)})
	}
	q.runChunk(ctx, afs, req, root, perFile, items, t.hits)
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	out := &outcome{filesScanned: t.searched, tree: true}
	var groups []fileGroup
	var kept int64
	for _, it := range items {
		r := <-it.res
		if r.fatal != nil {
			return nil, false, r.fatal
		}
		if r.errMsg != "" {
			out.errors = append(out.errors, errEntry{path: it.path, rawPath: it.rawPath, msg: r.errMsg})
			continue
		}
		if len(r.matches) == 0 {
			continue
		}
		for i := range r.matches {
			r.matches[i].path, r.matches[i].rawPath = it.path, it.rawPath
		}
		groups = append(groups, fileGroup{path: it.path, rawPath: it.rawPath, matches: r.matches})
		kept += int64(len(r.matches))
		out.filesMatched++
	}
	if kept > req.maxResults {
		return nil, false, nil
	}
	finish(out, groups, kept)
	return out, true, nil
}

// gulpWait and gulpMaxWait bound how long gulpReader lets output gather
// after a short read.
const (
	gulpWait    = time.Millisecond
	gulpMaxWait = 8 * time.Millisecond
)

// gulpReader reads a child's output in gulps: after a read that returned
// little, it waits before reading again, gulpWait and then twice as long
// each time up to gulpMaxWait, back to gulpWait after a large read, and
// no longer once the child exited. rg writes its report a file at a time;
// read as it comes, every file would wake this process's reading thread
// and cost a read, which for a thousand files adds up to milliseconds. A
// report is seen at most gulpMaxWait after it was written, and the end at
// once.
type gulpReader struct {
	r      io.Reader
	exited <-chan struct{} // closed when the child has exited
	wait   time.Duration
	timer  *time.Timer
}

func (g *gulpReader) Read(p []byte) (int, error) {
	if g.wait > 0 {
		if g.timer == nil {
			g.timer = time.NewTimer(g.wait)
		} else {
			g.timer.Reset(g.wait)
		}
		select {
		case <-g.timer.C:
		case <-g.exited:
		}
	}
	n, err := g.r.Read(p)
	switch {
	case n >= len(p)/4:
		g.wait = 0
	case g.wait == 0:
		g.wait = gulpWait
	default:
		g.wait = min(2*g.wait, gulpMaxWait)
	}
	return n, err
}
