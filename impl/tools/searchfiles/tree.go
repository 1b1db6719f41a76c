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

	"github.com/forge-conform/forge-conform/impl/lossy"
)

// The tree mode of the rg backend: rg walks the searched directory
// itself, with its own parallelism, where every rule of the call that
// selects candidates (I-SF-03, I-SF-09, I-SF-12, I-SF-13) has an exact rg
// equivalent (treeFilters). It runs in two steps.
//
// The listing run walks and searches the tree once and reports every file
// it searched with its number of matches (`--count-matches
// --include-zero`), streamed, then its totals (`--stats`): the files it
// searched and the bytes it read. The run is stopped as soon as more than
// max_files files or (counting at most max_matches_per_file per file) more
// than max_results matches are reported, since a search the limits cut is
// decided in traversal order, which rg does not follow.
//
// When the run completed, its totals settle everything the listing does
// not say: the files searched are the candidates (files_scanned, within
// max_files), and the bytes read bound the size of every file without a
// match, since rg reads those whole (--text: no binary file is left
// early). If they total at most max_file_size_bytes, no file rg found
// nothing in is over the size limit, so none needs an error entry without
// being reported. Then only the files with matches are searched again, by
// the direct mode's run over named files (direct.go), which gives the
// positions, and read by the shared reader, which applies the size limit,
// binary detection and the stdin mode for CR files as in the direct mode.
//
// Otherwise (a limit cut the run, it read more than max_file_size_bytes,
// it failed, or the matches kept exceed max_results) the search is the
// direct mode's, walked by the shared walker, which skips the binary run
// for every file the listing already reported without a match: a file
// rg searched and found nothing in gives the same result however it is
// named. So the tree mode costs at most one partial extra run, and the
// output is the direct mode's, which is the native backend's.

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
// searches exactly the walker's candidates, or false when the call has a
// rule rg cannot reproduce exactly:
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
	if req.ext == nil || req.ext.backend != backendRg {
		return nil, false
	}
	if _, plain := afs.(*afero.OsFs); !plain {
		return nil, false
	}
	if req.followSymlinks || req.respectGitignore || len(req.includeGlobs) > 0 || len(req.excludeGlobs) > 0 || len(deny.full) > 0 {
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

// treeFile is a file the listing run reported matches in.
type treeFile struct {
	name  string // relative to the searched directory, raw bytes, "/"-separated
	count int64  // matches rg counted (in at most perFile matching lines)
}

// treeListing is what the listing run reported.
type treeListing struct {
	matched []treeFile
	// zero holds the names of the files reported without a match, each
	// followed by a NUL; known turns it into a set only when needed.
	zero     []byte
	files    int64 // files reported
	upper    int64 // the matches reported, at most perFile per file
	complete bool  // the run ended by itself, cleanly, with its totals
	searched int64 // its totals (complete only)
	bytes    int64
}

// known returns the files the listing reported without a match.
func (l *treeListing) known() map[string]struct{} {
	if l == nil || len(l.zero) == 0 {
		return nil
	}
	set := make(map[string]struct{}, l.files-int64(len(l.matched)))
	for rest := l.zero; len(rest) > 0; {
		i := bytes.IndexByte(rest, 0)
		set[string(rest[:i])] = struct{}{}
		rest = rest[i+1:]
	}
	return set
}

// whole reports whether the listing settles the search (see above).
func (l *treeListing) whole(req *request) bool {
	return l.complete && l.searched == l.files && l.files <= req.maxFiles &&
		l.bytes <= req.maxFileSize && l.upper <= req.maxResults
}

// listArgs is the listing run's command line.
func (q *extQuery) listArgs(perFile int64, filters []string) []string {
	args := []string{"--no-config", "--count-matches", "--include-zero", "--with-filename", "--null",
		"--stats", "--color=never", "--text", "--encoding=none", "--case-sensitive",
		"--regex-size-limit=256M", "--dfa-size-limit=256M",
		"--max-count=" + strconv.FormatInt(perFile, 10)}
	args = append(args, filters...)
	args = append(args, q.pattern...)
	if q.endAnchor {
		// As in the direct mode: every file with a CR is reported, since
		// a terminator CR can hide a match of $ or \z.
		args = append(args, "--regexp=\r")
	}
	return append(args, "--", "./")
}

// gulpWait is how long gulpReader lets output gather after a short read.
const gulpWait = time.Millisecond

// gulpReader reads a child's output in gulps: after a read that returned
// little, it waits gulpWait before reading again. rg writes the listing a
// few dozen bytes per file; read as it comes, every line would cost a
// wake-up and a read of this process (and a wake-up of the reader for
// every write of the child), which for a large tree adds up to a tenth of
// rg's own time. The wait delays nothing by more than gulpWait.
type gulpReader struct {
	r     io.Reader
	short bool
}

func (g *gulpReader) Read(p []byte) (int, error) {
	if g.short {
		time.Sleep(gulpWait)
	}
	n, err := g.r.Read(p)
	g.short = n < len(p)/4
	return n, err
}

// errTreeStopped reports a listing run stopped at a limit.
var errTreeStopped = errors.New("stopped at a limit")

// treeList runs the listing run in root. Problems are not errors: they
// leave the listing incomplete, and the direct mode searches (and reports
// them) exactly; only the end of ctx is returned.
func (q *extQuery) treeList(parent context.Context, root string, filters []string, req *request, perFile int64) (*treeListing, error) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	l := &treeListing{}
	cmd := exec.CommandContext(ctx, q.path, q.listArgs(perFile, filters)...)
	cmd.Dir = root
	cmd.Env = childEnv()
	cmd.WaitDelay = time.Second
	stderr := &capped{limit: 4 << 10}
	cmd.Stderr = stderr
	stdout, w, err := blockingPipe()
	if err != nil {
		return l, nil
	}
	defer stdout.Close()
	cmd.Stdout = w
	err = cmd.Start()
	w.Close()
	if err != nil {
		return l, nil
	}
	trailer, perr := l.parse(&gulpReader{r: stdout}, req, perFile)
	if perr != nil {
		cancel() // kills the run
		_, _ = io.Copy(io.Discard, stdout)
	}
	waitErr := cmd.Wait()
	if err := parent.Err(); err != nil {
		return nil, err
	}
	if perr != nil {
		return l, nil
	}
	var ee *exec.ExitError
	status := 0
	if errors.As(waitErr, &ee) {
		status = ee.ExitCode()
	} else if waitErr != nil {
		return l, nil
	}
	if (status == 0 || status == 1) && stderr.buf.Len() == 0 {
		l.searched, l.bytes, l.complete = parseStats(trailer)
	}
	return l, nil
}

// parse reads the listing as it streams: per file, "./NAME", a NUL, the
// count and a line feed; then the totals, which hold no NUL, returned as
// the trailer. It stops with errTreeStopped once a limit is exceeded.
func (l *treeListing) parse(r io.Reader, req *request, perFile int64) ([]byte, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
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
		name, ok := bytes.CutPrefix(rec[:len(rec)-1], []byte("./"))
		if !ok || len(name) == 0 {
			return nil, fmt.Errorf("unexpected file name %q", truncate(string(rec), 100))
		}
		line, err := br.ReadSlice('\n')
		if err != nil {
			return nil, fmt.Errorf("unexpected end of output after %q", truncate(string(rec), 100))
		}
		n, err := strconv.ParseInt(string(line[:len(line)-1]), 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("unexpected count %q", truncate(string(line), 100))
		}
		l.files++
		if n == 0 {
			l.zero = append(append(l.zero, name...), 0)
		} else {
			l.matched = append(l.matched, treeFile{name: string(name), count: n})
			l.upper += min(n, perFile)
		}
		if l.files > req.maxFiles || l.upper > req.maxResults {
			return nil, errTreeStopped
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

// treeSearch finishes a whole listing (see above): the files with matches
// are searched again by the direct mode's run over named files, which
// hands them to the shared reader (runChunk). ok is false when the
// matches kept exceed max_results, which the listing could not tell (the
// direct mode then cuts the search in traversal order).
func (q *extQuery) treeSearch(ctx context.Context, afs afero.Fs, req *request, root string, perFile int64, l *treeListing) (*outcome, bool, error) {
	items := make([]*item, len(l.matched))
	for i, f := range l.matched {
		items[i] = &item{kind: itemFile, abs: filepath.Join(root, filepath.FromSlash(f.name)), rawPath: f.name,
			path: lossy.String(f.name), res: make(chan fileResult, 1)}
	}
	for from := 0; from < len(items); {
		to, size := from, 0
		for to < len(items) && to-from < directMaxChunk && size < directMaxArgBytes {
			size += len(argPath(root, items[to])) + 1
			to++
		}
		q.runChunk(ctx, afs, req, root, perFile, items[from:to], nil)
		from = to
	}
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	out := &outcome{filesScanned: l.searched, tree: true}
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
