// Package sandbox implements the path validation of TOOL_EXECUTOR_SRD.md
// §3.5 (FR-VAL-03..05) with the readings I-SBX-01..03 of
// spec/INTERPRETATIONS.md.
//
// A Sandbox is built once from a Config and answers Validate for every path a
// file tool names. All filesystem access goes through the afero.Fs given to
// New, using only Stat, Lstat and Readlink, so the permission and fault
// emulation of package fsys applies to validation as well.
package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/toolerr"
)

// maxSymlinks bounds the symlinks one canonicalization follows, as on Linux.
const maxSymlinks = 40

// Config mirrors [tools.sandbox] (CFG-SBX-01).
type Config struct {
	AllowedRoots         []string `json:"allowed_roots"`
	DeniedPatterns       []string `json:"denied_patterns"`
	AllowAbsolute        bool     `json:"allow_absolute"`
	IncludeDefaultDenies bool     `json:"include_default_denies"`
}

// DefaultConfig is the SRD's built-in [tools.sandbox].
func DefaultConfig() Config {
	return Config{AllowedRoots: []string{"."}, IncludeDefaultDenies: true}
}

// DefaultDenies returns the patterns FR-VAL-05 requires when
// include_default_denies is true, in the SRD's order.
func DefaultDenies() []string {
	return []string{"**/.ssh/**", "**/.gnupg/**", "**/id_rsa*", "**/*.pem", "**/*.key"}
}

// Sandbox validates paths against canonical allowed roots and denied patterns.
type Sandbox struct {
	afs           afero.Fs
	workingDir    string
	roots         []string // canonical, absolute
	patterns      []string // user patterns, then the default ones if enabled
	allowAbsolute bool
	opts          Options          // the readings taken (With)
	globs         []*regexp.Regexp // patterns under Options.Globset
}

// New builds a sandbox. workingDir must be absolute; relative allowed roots
// are joined to it, and every root is canonicalized (symlinks resolved) now,
// so each must exist. User denied patterns must be valid doublestar globs.
func New(afs afero.Fs, cfg Config, workingDir string) (*Sandbox, error) {
	if !filepath.IsAbs(workingDir) {
		return nil, fmt.Errorf("sandbox: working directory %q is not absolute; pass an absolute path", workingDir)
	}
	s := &Sandbox{
		afs:           afs,
		workingDir:    filepath.Clean(workingDir),
		allowAbsolute: cfg.AllowAbsolute,
	}
	for _, root := range cfg.AllowedRoots {
		abs := root
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(s.workingDir, abs)
		}
		canon, err := Canonicalize(afs, abs)
		if err != nil {
			return nil, fmt.Errorf("sandbox: allowed root %q (%s) cannot be resolved: %w; create it or remove it from tools.sandbox.allowed_roots", root, abs, err)
		}
		s.roots = append(s.roots, canon)
	}
	for _, p := range cfg.DeniedPatterns {
		if !doublestar.ValidatePattern(p) {
			return nil, fmt.Errorf("sandbox: denied pattern %q is not a valid glob; fix or remove it in tools.sandbox.denied_patterns", p)
		}
		s.patterns = append(s.patterns, p)
	}
	if cfg.IncludeDefaultDenies {
		s.patterns = append(s.patterns, DefaultDenies()...)
	}
	return s, nil
}

// Roots returns the canonical allowed roots, in configuration order.
func (s *Sandbox) Roots() []string {
	return append([]string(nil), s.roots...)
}

// Validate applies FR-VAL-04 to path and returns the canonical absolute path
// the caller must use for the filesystem operation (FR-VAL-04a). A rejection
// is a *toolerr.Error of kind SandboxViolation. path is used as given; callers
// trim it first where their tool's contract says so.
func (s *Sandbox) Validate(path string) (string, error) {
	outside := func(resolved string) *toolerr.Error {
		attempted := path
		if s.opts.ForgeDenials && !filepath.IsAbs(path) {
			attempted = filepath.Join(s.workingDir, path)
		}
		return toolerr.Violation(toolerr.Denial{Reason: toolerr.PathOutsideSandbox, Attempted: attempted, Resolved: resolved})
	}
	if s.opts.RejectControl && hasControl(path) {
		return "", toolerr.New(toolerr.BadArgs, "path contains invalid control characters")
	}
	// Steps 1 and 2 (I-SBX-01): lexical rejections report the path as given.
	if filepath.IsAbs(path) && !s.allowAbsolute {
		return "", outside(path)
	}
	for _, c := range strings.Split(path, "/") {
		if c == ".." {
			return "", outside(path)
		}
	}
	// Step 3.
	full := filepath.Clean(path)
	if !filepath.IsAbs(full) {
		full = filepath.Join(s.workingDir, full)
	}
	// Step 4 (I-SBX-02): the deepest ancestor that exists, following symlinks.
	ancestor, rest := full, []string(nil)
	for ancestor != "/" {
		if _, err := s.afs.Stat(ancestor); err == nil {
			break
		}
		rest = append(rest, filepath.Base(ancestor))
		ancestor = filepath.Dir(ancestor)
	}
	canon, err := Canonicalize(s.afs, ancestor)
	if err != nil {
		// The ancestor exists yet cannot be resolved (a race, or an injected
		// fault): its real location is unknown, so fail closed.
		v := outside(full)
		v.Message = fmt.Sprintf("path %q cannot be resolved: %v", path, err)
		return "", v
	}
	// Step 5: the missing components are appended unchanged.
	target := canon
	for i := len(rest) - 1; i >= 0; i-- {
		target = filepath.Join(target, rest[i])
	}
	// Step 6.
	if !s.contains(target) {
		return "", outside(target)
	}
	// Step 7 (I-SBX-03).
	if p, ok := s.DeniedBy(target); ok {
		attempted := path
		if s.opts.ForgeDenials {
			attempted = target
		}
		return "", toolerr.Violation(toolerr.Denial{Reason: toolerr.DeniedPatternMatched, Attempted: attempted, Pattern: p})
	}
	return target, nil
}

// contains reports whether target is one of the roots or lies below one.
func (s *Sandbox) contains(target string) bool {
	for _, root := range s.roots {
		if target == root || strings.HasPrefix(target, strings.TrimSuffix(root, "/")+"/") {
			return true
		}
	}
	return false
}

// Canonicalize returns the absolute path of path with every symlink resolved
// and no ".", ".." or repeated separators, like realpath(3) and Rust's
// fs::canonicalize: every component must exist. It uses only fsys.Lstat and
// fsys.Readlink (see package fsys), so wrapping filesystems apply. A relative
// path is taken relative to the process working directory. More than 40
// symlinks fail with ELOOP; a non-directory followed by more components fails
// with ENOTDIR. Errors are *fs.PathError values naming path.
func Canonicalize(afs afero.Fs, path string) (string, error) {
	fail := func(err error) error {
		var errno syscall.Errno
		if errors.As(err, &errno) {
			err = errno
		}
		return &fs.PathError{Op: "canonicalize", Path: path, Err: err}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fail(err)
	}
	pending := strings.Split(abs, "/")
	cur := "/"
	links := 0
	for len(pending) > 0 {
		c := pending[0]
		pending = pending[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := fsys.Lstat(afs, next)
		if err != nil {
			return "", fail(err)
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			links++
			if links > maxSymlinks {
				return "", fail(syscall.ELOOP)
			}
			dest, err := fsys.Readlink(afs, next)
			if err != nil {
				return "", fail(err)
			}
			if filepath.IsAbs(dest) {
				cur = "/"
			}
			pending = append(strings.Split(dest, "/"), pending...)
		case !fi.IsDir() && hasComponent(pending):
			return "", fail(syscall.ENOTDIR)
		default:
			cur = next
		}
	}
	return cur, nil
}

// hasComponent reports whether parts holds anything but empty components.
func hasComponent(parts []string) bool {
	for _, p := range parts {
		if p != "" {
			return true
		}
	}
	return false
}
