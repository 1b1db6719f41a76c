package searchfiles

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// External backends (CFG-SF-01/03, I-SF-15, I-SF-20..22). The shared Go
// code filters, reads, detects binary files, limits, orders and renders;
// the binary finds the matches of exact and regex mode, which the shared
// reader checks against the file (I-SF-20), so no backend can differ from
// another anywhere else. rg's own traversal is used only where it picks
// exactly the walker's candidates (tree.go).

// version is a dotted release number.
type version [3]int

func (v version) less(w version) bool {
	for i := range v {
		if v[i] != w[i] {
			return v[i] < w[i]
		}
	}
	return false
}

func (v version) String() string { return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]) }

// binarySpec says how to find and check one backend's binary.
type binarySpec struct {
	name    string         // the executable looked up in PATH
	banner  *regexp.Regexp // matches the first line of `name --version`; group 1..3 the version
	minimum version
	why     string // why the minimum, for the error message
}

var binaries = map[string]binarySpec{
	// ripgrep 13.0.0 is the oldest release the equivalence tests ran
	// against (Debian bookworm); every flag used (--no-config, -E none,
	// -o -b, --regex-size-limit) predates it.
	backendRg: {name: "rg", banner: regexp.MustCompile(`^ripgrep (\d+)\.(\d+)\.(\d+)`),
		minimum: version{13, 0, 0}, why: "the oldest release checked to give the native backend's matches"},
	// ugrep 3.11 is the oldest release the equivalence tests ran against
	// (Debian bookworm); it has -P (PCRE2 with UTF and Unicode properties)
	// and --format with %b/%d, which the backend relies on.
	backendUgrep: {name: "ugrep", banner: regexp.MustCompile(`^ugrep (\d+)\.(\d+)(?:\.(\d+))?`),
		minimum: version{3, 11, 0}, why: "the oldest release checked to give the native backend's matches"},
}

// binStamp identifies one file on disk, so a cached check is redone when
// the binary is replaced.
type binStamp struct {
	path     string
	dev, ino uint64
	size     int64
	mtime    time.Time
	pcre2    bool // also checked: rg --pcre2-version
}

// binChecker caches successful version checks per binary file. A Tool
// made by New holds one; the zero Tool checks on every call.
type binChecker struct {
	mu sync.Mutex
	ok map[binStamp]version
}

// New returns a Tool that caches the backend binary's version check for
// as long as the binary file on disk is unchanged (I-SF-15). Tool{} works
// too and checks the binary on every call.
func New() Tool { return Tool{bins: &binChecker{ok: map[binStamp]version{}}} }

// checkBackend is CFG-SF-03 at call time (I-SF-15): the native backend
// needs nothing; rg and ugrep must be executable regular files in a
// directory of pathList (the PATH of the tool's environment) whose
// `--version` reports at least the minimum. It returns the binary's
// absolute path.
func (c *binChecker) checkBackend(ctx context.Context, backend string, pcre2 bool, pathList string) (string, error) {
	if backend == backendNative {
		return "", nil
	}
	spec := binaries[backend]
	fail := func(format string, a ...any) (string, error) {
		return "", toolerr.Failed(Name, "binary check failed: %s: %s; install %s %s or later, or set [tools.search_files] backend = \"native\"",
			spec.name, fmt.Sprintf(format, a...), spec.name, spec.minimum)
	}
	path, ok := lookPath(spec.name, pathList)
	if !ok {
		return fail("not found in PATH as an executable file")
	}
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		return fail("%s is not a regular file", path)
	}
	stamp := binStamp{path: path, size: info.Size(), mtime: info.ModTime()}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		stamp.dev, stamp.ino = uint64(st.Dev), st.Ino
	}
	stamp.pcre2 = pcre2
	if c != nil {
		c.mu.Lock()
		_, ok := c.ok[stamp]
		c.mu.Unlock()
		if ok {
			return path, nil
		}
	}
	if pcre2 {
		// I-SF-21: word-boundary patterns need rg's PCRE2 engine.
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		cmd := exec.CommandContext(pctx, path, "--pcre2-version")
		cmd.Env = childEnv()
		cmd.WaitDelay = time.Second
		cmd.Stdout = &capped{limit: 4 << 10}
		if err := cmd.Run(); err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			return fail("%s has no PCRE2 engine (`rg --pcre2-version` failed: %v), which patterns with \\b or \\B need (I-SF-21)", path, err)
		}
	}
	vctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(vctx, path, "--version")
	cmd.Env = childEnv()
	cmd.WaitDelay = time.Second
	var out capped
	out.limit = 64 << 10
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return fail("`%s --version` failed: %v", path, err)
	}
	first, _, _ := bytes.Cut(out.buf.Bytes(), []byte("\n"))
	m := spec.banner.FindSubmatch(bytes.TrimSpace(first))
	if m == nil {
		return fail("cannot read the version in %q", truncate(string(first), 80))
	}
	var v version
	for i := range v {
		if len(m[i+1]) > 0 {
			if v[i], err = strconv.Atoi(string(m[i+1])); err != nil {
				return fail("cannot read the version in %q", truncate(string(first), 80))
			}
		}
	}
	if v.less(spec.minimum) {
		return fail("version %s is older than the minimum %s (%s)", v, spec.minimum, spec.why)
	}
	if c != nil {
		c.mu.Lock()
		c.ok[stamp] = v
		c.mu.Unlock()
	}
	return path, nil
}

// lookPath finds name as exec.LookPath does, in the absolute directories
// of pathList instead of the process's PATH: the first executable regular
// file (or symlink to one) named name.
func lookPath(name, pathList string) (string, bool) {
	for _, dir := range filepath.SplitList(pathList) {
		if !filepath.IsAbs(dir) {
			continue // as exec.ErrDot: never a binary relative to the working directory
		}
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

// environPath is the PATH of environ (nil: the process's environment).
func environPath(environ func() []string) string {
	if environ == nil {
		return os.Getenv("PATH")
	}
	path := ""
	for _, kv := range environ() {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v // the last one wins, as in os/exec
		}
	}
	return path
}

// childEnv is the environment of every child: nothing inherited but PATH,
// so no configuration file (RIPGREP_CONFIG_PATH) or colour variable
// changes what the binary prints.
func childEnv() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C"}
}

// capped is an io.Writer that keeps at most limit bytes and then fails,
// which makes the child's write fail (and the child stop).
type capped struct {
	buf   bytes.Buffer
	limit int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.limit - c.buf.Len(); len(p) > room {
		c.buf.Write(p[:max(room, 0)])
		return max(room, 0), errOutputBound
	}
	return c.buf.Write(p)
}

// head is an io.Writer for a child's error output: it keeps the first
// limit bytes and takes the rest without keeping it. It never fails, so
// the child's messages never fail either (rg panics, exit status 101,
// when it cannot write one: a run with many unreadable files would fail
// instead of reporting them with status 2).
type head struct {
	buf   bytes.Buffer
	limit int
}

func (h *head) Write(p []byte) (int, error) {
	if room := h.limit - h.buf.Len(); room > 0 {
		h.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
