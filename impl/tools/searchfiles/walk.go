package searchfiles

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/config"
	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/sandbox"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// itemKind tells what the walker found at one point of the traversal.
type itemKind int

const (
	// itemFile is a candidate file (I-SF-12): a worker searches it.
	itemFile itemKind = iota
	// itemError is a per-entry failure found while walking (FR-SF-ERR-04).
	itemError
	// itemMaxFiles says that a candidate beyond max_files exists.
	itemMaxFiles
)

// item is one event of the traversal, in traversal order. The merger
// consumes items in that order, which makes the output independent of the
// workers' timing (FR-SF-OUT-02).
type item struct {
	kind    itemKind
	abs     string // itemFile: the file to open (a symlink's validated target)
	rawPath string // relative path from the raw name bytes, "/"-joined
	path    string // its lossy form, as output
	errMsg  string // itemError
	res     chan fileResult
	size    int64 // itemFile: the size the walker's lstat saw, when sized
	sized   bool
}

// fileResult is what a worker found in one candidate file.
type fileResult struct {
	matches []match
	errMsg  string // the file could not be searched
	fatal   error  // the search cannot go on (an external backend failed)
}

// walker produces the items of one search. It runs in its own goroutine
// and stops when stop is closed or ctx is done.
type walker struct {
	ctx       context.Context
	fs        afero.Fs
	sb        *sandbox.Sandbox
	req       *request
	deny      *denyMatcher
	order     chan<- *item // every item, in traversal order
	jobs      chan<- *item // itemFile items, for the workers
	stop      <-chan struct{}
	sizes     bool    // lstat regular files as they are listed (direct.go)
	lister    *lister // reads listings ahead; nil: each when visited
	dirBuf    []byte  // readDir's buffer for the listings the walker reads itself
	files     int64   // candidates emitted
	cancelled error
}

// dirNode is a directory whose names have been read.
type dirNode struct {
	abs     string
	rawPath string // "" for the root
	path    string
	depth   int64    // depth of its entries: 1 for the root's
	comps   []string // raw components from the ignore frame's top to it
	ignores ignoreStack
}

// child is one entry of a directory with its type, from the listing or
// else from lstat (err when that failed).
type child struct {
	listing    *listing // a directory's listing, read ahead
	raw, lossy string
	key        string      // the sort key: lossy, plus "/" for a directory (I-SF-11)
	typ        fs.FileMode // type bits only
	err        error
	size       int64 // when sized
	sized      bool
}

func (c *child) dir() bool { return c.err == nil && c.typ.IsDir() }

// sortKey orders entries so that the traversal visits files in the order
// of their output paths (I-SF-11): a directory sorts as its name plus "/".
func (c *child) sortKey() string {
	if c.dir() {
		return c.lossy + "/"
	}
	return c.lossy
}

func compareChildren(a, b child) int {
	if c := strings.Compare(a.key, b.key); c != 0 {
		return c
	}
	return strings.Compare(a.raw, b.raw)
}

// dirent is one name of a directory listing, with its type bits when the
// listing reports them.
type dirent struct {
	name  string
	typ   fs.FileMode
	known bool
	size  int64 // a regular file's size, when sized
	sized bool
}

// dirEntryReader is implemented by *os.File: a listing with the types the
// kernel reports (d_type), which saves an lstat per entry.
type dirEntryReader interface {
	ReadDir(n int) ([]fs.DirEntry, error)
}

// readDir lists dir through afs. When the opened directory can report
// entry types (an *os.File, also behind fsys.FaultFs) they are used;
// otherwise (fsys.PermFs, other wrappers) the walker lstats each entry it
// keeps, so the wrapper's checks and faults apply. With sizes, the
// regular files of an *os.File listing are lstat'ed relative to it. On
// the plain OS filesystem readDirOS lists with buf as its buffer (nil: one
// of its own).
func readDir(afs afero.Fs, dir string, sizes bool, buf *[]byte) (ents []dirent, err error) {
	if _, plain := afs.(*afero.OsFs); plain && osFastPath {
		if buf == nil {
			buf = new([]byte)
		}
		return readDirOS(dir, sizes, buf)
	}
	f, err := afs.Open(dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			ents, err = nil, cerr
		}
	}()
	if rd, ok := f.(dirEntryReader); ok {
		list, err := rd.ReadDir(-1)
		if err != nil {
			return nil, err
		}
		ents = make([]dirent, len(list))
		for i, e := range list {
			ents[i] = dirent{name: e.Name(), typ: e.Type(), known: true}
		}
		if sizes {
			sizeEntries(f, ents)
		}
		return ents, nil
	}
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	ents = make([]dirent, len(names))
	for i, n := range names {
		ents[i] = dirent{name: n}
	}
	return ents, nil
}

func hasName(ents []dirent, name string) bool {
	return slices.ContainsFunc(ents, func(e dirent) bool { return e.name == name })
}

// emit hands it to the merger (and a file to the workers); false means the
// search is over and the walker must return.
func (w *walker) emit(it *item) bool {
	select {
	case w.order <- it:
	case <-w.stop:
		return false
	case <-w.ctx.Done():
		w.cancelled = w.ctx.Err()
		return false
	}
	if it.kind != itemFile {
		return true
	}
	select {
	case w.jobs <- it:
		return true
	case <-w.stop:
		return false
	case <-w.ctx.Done():
		w.cancelled = w.ctx.Err()
		return false
	}
}

func (w *walker) emitError(rawPath, msg string) bool {
	return w.emit(&item{kind: itemError, rawPath: rawPath, path: w.req.lossy(rawPath), errMsg: msg})
}

// walk visits d's entries depth-first in key order; false means stop.
func (w *walker) walk(d *dirNode, ents []dirent) bool {
	if w.req.respectGitignore {
		d.ignores = w.dirIgnores(d, ents)
	}
	children := make([]child, 0, len(ents))
	for _, e := range ents {
		raw := e.name
		if raw == "." || raw == ".." {
			continue
		}
		if strings.HasPrefix(raw, ".") && !w.req.includeHidden {
			continue // hidden: neither searched nor traversed
		}
		if w.deny.denied(d.abs, raw) {
			continue // I-SF-13: never accessed
		}
		c := child{raw: raw, lossy: w.req.lossy(raw), typ: e.typ, size: e.size, sized: e.sized}
		if !e.known {
			var info fs.FileInfo
			if info, c.err = fsys.Lstat(w.fs, filepath.Join(d.abs, raw)); c.err == nil {
				c.typ = info.Mode().Type()
			}
		}
		c.key = c.sortKey()
		children = append(children, c)
	}
	slices.SortFunc(children, compareChildren)
	if w.lister != nil {
		for i := range children {
			c := &children[i]
			if c.dir() && w.enters(d, c) {
				c.listing = w.lister.ahead(filepath.Join(d.abs, c.raw))
			}
		}
	}
	for i := range children {
		if err := w.ctx.Err(); err != nil {
			w.cancelled = err
			return false
		}
		if !w.visit(d, &children[i]) {
			return false
		}
	}
	return true
}

// visit handles one entry of d; false means stop.
func (w *walker) visit(d *dirNode, c *child) bool {
	rawPath, lpath := fsys.JoinRel(d.rawPath, c.raw), fsys.JoinRel(d.path, c.lossy)
	abs := filepath.Join(d.abs, c.raw)
	if c.err != nil {
		return w.emitError(rawPath, fsys.ErrText(c.err))
	}
	switch {
	case c.typ.IsDir():
		if !w.enters(d, c) {
			return true
		}
		var ents []dirent
		var err error
		if c.listing != nil {
			ents, err = w.lister.get(c.listing, &w.dirBuf)
		} else {
			ents, err = readDir(w.fs, abs, w.sizes, &w.dirBuf)
		}
		if err != nil {
			return w.emitError(rawPath, fsys.ErrText(err))
		}
		sub := &dirNode{abs: abs, rawPath: rawPath, path: lpath, depth: d.depth + 1, ignores: d.ignores}
		if w.req.respectGitignore {
			sub.comps = append(slices.Clip(d.comps), c.raw)
		}
		return w.walk(sub, ents)
	case c.typ.IsRegular():
		if !w.selected(d, c.raw, lpath) {
			return true
		}
		return w.candidate(&item{kind: itemFile, abs: abs, rawPath: rawPath, path: lpath, size: c.size, sized: c.sized})
	case c.typ&fs.ModeSymlink != 0:
		if !w.req.followSymlinks || !w.selected(d, c.raw, lpath) {
			return true
		}
		return w.symlink(rawPath, lpath)
	}
	return true // FIFOs, sockets, devices are never opened
}

// enters reports whether the walker descends into the directory c of d:
// within max_depth, neither ignored nor excluded.
func (w *walker) enters(d *dirNode, c *child) bool {
	return d.depth < w.req.maxDepth && !w.ignored(d, c.raw, true) && !w.excluded(fsys.JoinRel(d.path, c.lossy))
}

// symlink handles a symlink when follow_symlinks is true (FR-SF-VAL-08,
// I-SF-12): its path is validated by the sandbox; a target that is a
// regular file is searched, anything else is left out.
func (w *walker) symlink(rawPath, lpath string) bool {
	target, err := w.sb.Validate(joinRequested(w.req.path, rawPath))
	if err != nil {
		msg := "symlink target is outside the sandbox"
		var te *toolerr.Error
		if errors.As(err, &te) && te.Denial != nil && te.Denial.Reason == toolerr.DeniedPatternMatched {
			msg = "symlink target matches a denied path pattern"
		}
		return w.emitError(rawPath, msg)
	}
	info, err := fsys.Stat(w.fs, target)
	if err != nil {
		return w.emitError(rawPath, fsys.ErrText(err))
	}
	if !info.Mode().IsRegular() {
		return true // symlinked directories are never traversed
	}
	return w.candidate(&item{kind: itemFile, abs: target, rawPath: rawPath, path: lpath})
}

// candidate emits a candidate file unless max_files candidates came
// before it, in which case the search stops (I-SF-04).
func (w *walker) candidate(it *item) bool {
	if w.files >= w.req.maxFiles {
		w.emit(&item{kind: itemMaxFiles})
		return false
	}
	w.files++
	it.res = make(chan fileResult, 1)
	return w.emit(it)
}

// selected applies the file filters: gitignore, exclude_globs, then
// include_globs (I-SF-09).
func (w *walker) selected(d *dirNode, raw, lpath string) bool {
	if w.ignored(d, raw, false) || w.excluded(lpath) {
		return false
	}
	if len(w.req.includeGlobs) == 0 {
		return true
	}
	for _, g := range w.req.includeGlobs {
		if w.globMatch(g, lpath) {
			return true
		}
	}
	return false
}

// globMatch matches glob against the lossy relative path (I-SF-09); a glob
// without "/" against its last component under Options.BasenameGlobs.
func (w *walker) globMatch(glob, lpath string) bool {
	if w.req.opts.BasenameGlobs && !strings.Contains(glob, "/") {
		lpath = lpath[strings.LastIndexByte(lpath, '/')+1:]
	}
	ok, _ := doublestar.Match(glob, lpath)
	return ok
}

// excluded reports whether an exclude glob matches the lossy relative path.
func (w *walker) excluded(lpath string) bool {
	for _, g := range w.req.excludeGlobs {
		if w.globMatch(g, lpath) {
			return true
		}
	}
	return false
}

func (w *walker) ignored(d *dirNode, raw string, isDir bool) bool {
	if !w.req.respectGitignore || len(d.ignores) == 0 {
		return false
	}
	return d.ignores.ignored(append(slices.Clip(d.comps), raw), isDir)
}

// dirIgnores returns the ignore stack for d's entries: a directory holding
// ".git" starts a new repository (its info/exclude, then its .gitignore;
// under Options.NoNestedRepos only the searched directory does);
// otherwise its .gitignore, if any, is pushed on its parent's stack.
func (w *walker) dirIgnores(d *dirNode, ents []dirent) ignoreStack {
	stack := d.ignores
	depth := len(d.comps)
	if hasName(ents, ".git") && (d.rawPath == "" || !w.req.opts.NoNestedRepos) {
		stack = nil
		if f := w.readIgnore(d.abs, ".git/info/exclude", fsys.JoinRel(d.rawPath, ".git/info/exclude"), depth, true); f != nil {
			stack = append(stack, f)
		}
	}
	if hasName(ents, ".gitignore") {
		if f := w.readIgnore(d.abs, ".gitignore", fsys.JoinRel(d.rawPath, ".gitignore"), depth, false); f != nil {
			stack = append(slices.Clip(stack), f)
		}
	}
	return stack
}

// readIgnore reads the ignore file rel below dir. It must be a regular
// file (never a symlink); a missing one is no file, a failing one is
// recorded as an error of rawPath. Under .git, a missing or non-directory
// .git/info is no file either.
func (w *walker) readIgnore(dir, rel, rawPath string, depth int, quietMissing bool) *ignoreFile {
	abs := filepath.Join(dir, filepath.FromSlash(rel))
	if w.deny.deniedAbs(abs) {
		return nil
	}
	info, err := fsys.Lstat(w.fs, abs)
	switch {
	case err != nil && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)):
		return nil
	case err != nil:
		if !quietMissing {
			w.emitError(rawPath, fsys.ErrText(err))
		}
		return nil
	case !info.Mode().IsRegular():
		return nil
	}
	data, err := readSmall(w.fs, abs)
	if err != nil {
		w.emitError(rawPath, fsys.ErrText(err))
		return nil
	}
	return parseIgnore(data, depth)
}

// readSmall reads a whole regular file, never following a final symlink.
func readSmall(afs afero.Fs, abs string) ([]byte, error) {
	f, err := afs.OpenFile(abs, openFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// ancestorIgnores prepares the ignore frame of a search rooted at root
// (I-SF-10): the ignore files of the directories above root, from the
// nearest one holding ".git" (the repository's top) or else from the
// outermost allowed root that holds root, down to root's parent. It
// returns the stack and root's components from the frame's top. Nothing
// outside the sandbox is read.
func (w *walker) ancestorIgnores(root string, rootEnts []dirent) (ignoreStack, []string) {
	if hasName(rootEnts, ".git") {
		return nil, nil
	}
	limit := ""
	for _, r := range w.sb.Roots() {
		if (root == r || strings.HasPrefix(root, strings.TrimSuffix(r, "/")+"/")) && (limit == "" || len(r) < len(limit)) {
			limit = r
		}
	}
	if limit == "" || root == limit {
		return nil, nil
	}
	var dirs []string // from root's parent upwards
	repo := false
	for a := filepath.Dir(root); ; a = filepath.Dir(a) {
		dirs = append(dirs, a)
		if _, err := fsys.Lstat(w.fs, filepath.Join(a, ".git")); err == nil {
			repo = true
			break
		}
		if a == limit || a == filepath.Dir(a) {
			break
		}
	}
	top := dirs[len(dirs)-1]
	rel, err := filepath.Rel(top, root)
	if err != nil {
		return nil, nil
	}
	comps := strings.Split(filepath.ToSlash(rel), "/")
	var stack ignoreStack
	up := func(depth int) string { return strings.Repeat("../", len(comps)-depth) }
	if repo {
		if f := w.readIgnore(top, ".git/info/exclude", up(0)+".git/info/exclude", 0, true); f != nil {
			stack = append(stack, f)
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		depth := len(dirs) - 1 - i
		if f := w.readIgnore(dirs[i], ".gitignore", up(depth)+".gitignore", depth, false); f != nil {
			stack = append(stack, f)
		}
	}
	return stack, comps
}

// denyMatcher applies the sandbox's denied patterns to every path the
// search would access below its root (I-SF-13). Patterns of the forms
// "**/X" and "**/X/**" with no "/" or "{" in X are tested against the
// entry's name alone, which is equivalent because the walker never enters
// a denied directory and the root itself passed the sandbox; the others
// against the whole canonical path.
type denyMatcher struct {
	names []namePattern // X of "**/X" and "**/X/**"
	full  []string
	// sb, when set, matches every path instead, in the dialect of the
	// sandbox's own reading (sandbox.Options.Globset).
	sb *sandbox.Sandbox
}

// namePattern is a glob matched against one name. The shapes the default
// denied patterns have ("id_rsa*", "*.pem", ".ssh") are matched without
// the glob engine; any other is matched by doublestar.
type namePattern struct {
	glob           string
	prefix, suffix string // glob is prefix + "*" + suffix, or a literal (star false)
	simple, star   bool
}

func newNamePattern(glob string) namePattern {
	p := namePattern{glob: glob}
	const meta = `*?[]{}\`
	if i := strings.IndexByte(glob, '*'); i >= 0 {
		if pre, suf := glob[:i], glob[i+1:]; !strings.ContainsAny(pre, meta) && !strings.ContainsAny(suf, meta) {
			p.prefix, p.suffix, p.simple, p.star = pre, suf, true, true
		}
	} else if !strings.ContainsAny(glob, meta) {
		p.prefix, p.simple = glob, true
	}
	return p
}

// match reports whether the name matches, as doublestar.Match(glob, name)
// does for a name holding no "/".
func (p *namePattern) match(name string) bool {
	switch {
	case !p.simple:
		ok, _ := doublestar.Match(p.glob, name)
		return ok
	case !p.star:
		return name == p.prefix
	}
	return len(name) >= len(p.prefix)+len(p.suffix) && strings.HasPrefix(name, p.prefix) && strings.HasSuffix(name, p.suffix)
}

// newDenyMatcher builds the matcher from the [tools.sandbox] table the
// call's sandbox was built from.
func newDenyMatcher(patterns []string) *denyMatcher {
	d := &denyMatcher{}
	for _, p := range patterns {
		x, ok := strings.CutPrefix(p, "**/")
		x = strings.TrimSuffix(x, "/**")
		if ok && x != "" && !strings.ContainsAny(x, "/{}") && x != "**" {
			d.names = append(d.names, newNamePattern(x))
		} else {
			d.full = append(d.full, p)
		}
	}
	return d
}

// sandboxDenyMatcher matches with the sandbox's own dialect.
func sandboxDenyMatcher(sb *sandbox.Sandbox) *denyMatcher { return &denyMatcher{sb: sb} }

// denied reports whether the entry name of the directory dir is denied.
func (d *denyMatcher) denied(dir, name string) bool {
	if d.sb != nil {
		_, ok := d.sb.DeniedBy(filepath.Join(dir, name))
		return ok
	}
	for i := range d.names {
		if d.names[i].match(name) {
			return true
		}
	}
	if len(d.full) == 0 {
		return false
	}
	return d.matchFull(filepath.ToSlash(filepath.Join(dir, name)))
}

// deniedAbs reports whether the absolute path abs is denied.
func (d *denyMatcher) deniedAbs(abs string) bool {
	if d.sb != nil {
		_, ok := d.sb.DeniedBy(abs)
		return ok
	}
	for i := range d.names {
		if d.names[i].match(filepath.Base(abs)) {
			return true
		}
	}
	return d.matchFull(filepath.ToSlash(abs))
}

func (d *denyMatcher) matchFull(slashed string) bool {
	for _, p := range d.full {
		if ok, _ := doublestar.Match(p, slashed); ok {
			return true
		}
	}
	return false
}

// deniedPatterns returns the denied patterns of [tools.sandbox] (user
// patterns, then the defaults when include_default_denies), read the way
// the call's sandbox was built.
func deniedPatterns(c config.Config) ([]string, error) {
	cfg := sandbox.DefaultConfig()
	if err := c.Table("sandbox", &cfg); err != nil {
		return nil, err
	}
	pats := slices.Clone(cfg.DeniedPatterns)
	if cfg.IncludeDefaultDenies {
		pats = append(pats, sandbox.DefaultDenies()...)
	}
	return pats, nil
}

// joinRequested is the path of an entry as the sandbox must see it: the
// requested path (trimmed, so relative to the working directory unless
// absolute) joined with the entry's relative path.
func joinRequested(requested, rel string) string {
	return path.Join(requested, rel)
}
