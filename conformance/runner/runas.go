package runner

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// runUser is the user a root runner runs the implementation as: its uid and
// primary gid, without supplementary groups (the credential has none).
type runUser struct {
	name     string
	uid, gid int
}

func (u runUser) String() string { return fmt.Sprintf("%s (uid %d)", u.name, u.uid) }

// credentialFor resolves --run-as to a credential.
func credentialFor(name string) (*syscall.Credential, runUser, error) {
	pw, err := user.Lookup(name)
	if err != nil {
		return nil, runUser{}, fmt.Errorf("--run-as %s: %w (name an existing unprivileged user, or --run-as root to run the implementation as root, which skips permission cases)", name, err)
	}
	uid, _ := strconv.Atoi(pw.Uid)
	gid, _ := strconv.Atoi(pw.Gid)
	u := runUser{name: name, uid: uid, gid: gid}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}, u, nil
}

// Permission bits, as in a mode's "other" triple.
const (
	permRead   = 4
	permSearch = 1 // execute, for a file
)

// unreachableError says which path of the command line the run-as user
// cannot reach, and why.
type unreachableError struct {
	user runUser
	role string // "the executable", "argument 2", ...
	path string // as the command line names it
	err  error
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("--run-as %s: %s %s is not reachable by %s: %v; put it where every user can read and execute it "+
		"(for example under /usr/local/bin or /opt, every directory above it searchable: chmod o+x DIR), "+
		"or pass --run-as root to run the implementation as root (permission cases are then skipped)",
		e.user.name, e.role, e.path, e.user, e.err)
}

// checkCommand checks, for the user u, every path the command line argv
// names, as the kernel will when u runs it: the executable (argv[0], after
// PATH lookup) with every symlink it resolves through and, for a script, its
// #! interpreter; and every argument that names an existing file or
// directory (the script an interpreter is given, a config file). Each
// directory on the way needs search permission, the executable execute
// permission (and read, for a script), a file argument read permission. It
// names the first path that is not reachable. given is argv[0] as the user
// wrote it, before the PATH lookup.
func checkCommand(argv []string, given string, u runUser) error {
	if err := checkExecutable(argv[0], u, 0); err != nil {
		p := argv[0]
		if given != p {
			p = fmt.Sprintf("%s (%q found on PATH)", p, given)
		}
		return &unreachableError{user: u, role: "the executable", path: p, err: err}
	}
	for i, arg := range argv[1:] {
		for _, p := range pathsIn(arg) {
			if _, err := os.Stat(p); err != nil {
				continue // not a file: an ordinary argument
			}
			if err := checkFile(p, u); err != nil {
				return &unreachableError{user: u, role: fmt.Sprintf("argument %d of the command line,", i+1), path: p, err: err}
			}
		}
	}
	return nil
}

// pathsIn returns the strings of an argument that may name a file: the
// argument itself and, for --flag=VALUE, the value.
func pathsIn(arg string) []string {
	out := []string{arg}
	if strings.HasPrefix(arg, "-") {
		out = out[:0]
		if _, v, ok := strings.Cut(arg, "="); ok && v != "" {
			out = append(out, v)
		}
	}
	return out
}

// checkFile checks that u can read the file (or search the directory) p.
func checkFile(p string, u runUser) error {
	real, fi, err := resolve(p, u)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return need(real, fi, permSearch, u, "search")
	}
	return need(real, fi, permRead, u, "read")
}

// checkExecutable checks that u can execute p: search on the way, execute
// on the file, and for a #! script read on it and the same for its
// interpreter (and, for "#!/usr/bin/env NAME", for NAME found on PATH).
func checkExecutable(p string, u runUser, depth int) error {
	real, fi, err := resolve(p, u)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return fmt.Errorf("%s is a directory", real)
	}
	if err := need(real, fi, permSearch, u, "execute"); err != nil {
		return err
	}
	interp := shebang(real)
	if len(interp) == 0 || depth > 4 {
		return nil
	}
	if err := need(real, fi, permRead, u, "read (it is a #! script)"); err != nil {
		return err
	}
	if err := checkExecutable(interp[0], u, depth+1); err != nil {
		return fmt.Errorf("its interpreter %s: %w", interp[0], err)
	}
	if filepath.Base(interp[0]) == "env" && len(interp) > 1 && !strings.HasPrefix(interp[1], "-") {
		if found, err := exec.LookPath(interp[1]); err == nil {
			if err := checkExecutable(found, u, depth+1); err != nil {
				return fmt.Errorf("its interpreter %s (via env): %w", found, err)
			}
		}
	}
	return nil
}

// shebang returns the words of a script's #! line, or nil.
func shebang(p string) []string {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil && line == "" {
		return nil
	}
	rest, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return nil
	}
	return strings.Fields(rest)
}

// maxSymlinks is the kernel's limit on symlinks followed in one lookup.
const maxSymlinks = 40

// resolve looks p up as the kernel does for u: component by component from
// the root (or the working directory, for a relative path), needing search
// permission on every directory it passes through and following every
// symlink (whose own mode does not matter). It returns the resolved path and
// its info; an error names the directory u cannot search, and the symlinks
// followed to get there.
func resolve(p string, u runUser) (string, fs.FileInfo, error) {
	cur := "/"
	if !filepath.IsAbs(p) {
		wd, err := os.Getwd()
		if err == nil {
			wd, err = filepath.EvalSymlinks(wd)
		}
		if err != nil {
			return "", nil, err
		}
		cur = wd
	}
	rest := strings.Split(p, "/")
	var via []string
	for links := 0; len(rest) > 0; {
		comp := rest[0]
		rest = rest[1:]
		if comp == "" || comp == "." {
			continue
		}
		fi, err := os.Stat(cur)
		if err != nil {
			return "", nil, err
		}
		if err := need(cur, fi, permSearch, u, "search"); err != nil {
			return "", nil, viaLinks(err, via)
		}
		if comp == ".." {
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, comp)
		li, err := os.Lstat(next)
		if err != nil {
			return "", nil, viaLinks(err, via)
		}
		if li.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > maxSymlinks {
			return "", nil, viaLinks(fmt.Errorf("%s: too many levels of symbolic links", next), via)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", nil, err
		}
		via = append(via, next+" -> "+target)
		if filepath.IsAbs(target) {
			cur = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	fi, err := os.Stat(cur)
	if err != nil {
		return "", nil, viaLinks(err, via)
	}
	return cur, fi, nil
}

func viaLinks(err error, via []string) error {
	if len(via) == 0 {
		return err
	}
	return fmt.Errorf("%w (reached through the symlink %s)", err, strings.Join(via, ", then "))
}

// need checks that u has permission bit (permRead or permSearch) on the file
// p, whose info is fi, with the kernel's rule: the owner's bits for the
// owner, the group's for the group, the others' otherwise (no ACLs).
func need(p string, fi fs.FileInfo, bit fs.FileMode, u runUser, what string) error {
	if !allowed(fi, bit, u.uid, u.gid) {
		return fmt.Errorf("%s cannot %s %s (mode %04o, owner uid %d)", u.name, what, p, fi.Mode().Perm(), ownerOf(fi))
	}
	return nil
}

func allowed(fi fs.FileInfo, bit fs.FileMode, uid, gid int) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || uid == 0 {
		return true
	}
	m := fi.Mode().Perm()
	switch {
	case int(st.Uid) == uid:
		return m&(bit<<6) != 0
	case int(st.Gid) == gid:
		return m&(bit<<3) != 0
	}
	return m&bit != 0
}

func ownerOf(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

// reachable checks that the user uid:gid can search the directory dir and
// every directory above it.
func reachable(dir string, uid, gid int) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	real, fi, err := resolve(abs, runUser{name: "uid " + strconv.Itoa(uid), uid: uid, gid: gid})
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", real)
	}
	return need(real, fi, permSearch, runUser{name: "uid " + strconv.Itoa(uid), uid: uid, gid: gid}, "search")
}

// helloAsUserError is a hello that fails when the implementation runs as
// the --run-as user and succeeds when it runs as the runner's: something
// the implementation needs is not reachable by that user. It is a harness
// error (exit 2), not a failure of the implementation.
type helloAsUserError struct {
	user runUser
	err  error
}

func (e *helloAsUserError) Error() string {
	return fmt.Sprintf("--run-as %s: hello fails when the implementation runs as %s but succeeds when it runs as root: "+
		"a file or directory it needs (a module it imports, a file it opens) is not reachable by %s; make it readable "+
		"(chmod o+r FILE, o+x on every directory above it) or install it where every user can reach it, or pass "+
		"--run-as root (permission cases are then skipped). As %s: %s", e.user.name, e.user, e.user.name, e.user.name,
		strings.TrimSpace(e.err.Error()))
}

func (e *helloAsUserError) Unwrap() error { return e.err }

// isHarnessError reports whether err means the run cannot go on, rather
// than a hello the implementation fails.
func isHarnessError(err error) bool {
	var h *helloAsUserError
	var u *unreachableError
	return errors.As(err, &h) || errors.As(err, &u)
}
