package mutants

import (
	"io/fs"
	"path/filepath"
	"syscall"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/reference"
	"github.com/forge-conform/forge-conform/impl/sandbox"
)

// sandboxMutants break the sandbox's construction from [tools.sandbox]
// (FR-VAL-03) and its resolution of symlink chains (FR-VAL-04 step 4).
func sandboxMutants() []Mutant {
	return []Mutant{
		{
			Name: "unresolvable-root-allows-all", Doc: "the sandbox takes an allowed root it cannot canonicalize (missing, or a symlink loop) as the filesystem's root, so every path is inside (call requests)",
			// No wrapper of a tool can express it: the sandbox is built, and a
			// table it cannot be built from fails the call, before any tool
			// runs (reference.Options.NewSandbox).
			Specs:   []string{"tool_executor"},
			Run:     []string{"tool_executor/allowed-root-*"},
			Breaks:  ids("tool_executor", "FR-VAL-03"),
			Options: reference.Options{NewSandbox: allowUnresolvableRoots},
		},
		{
			Name: "sandbox-short-symlink-limit", Doc: "the sandbox gives up resolving a path after 32 symlinks, where Linux follows 40 (read_file and list_directory calls)",
			Specs:   []string{"tool_executor", "list_directory"},
			Breaks:  ids("tool_executor", "FR-VAL-04"),
			Options: wrap(onTools([]string{"list_directory", "read_file"}, withSandbox(nil, func(fs afero.Fs) afero.Fs { return &hopLimitFS{Fs: fs, left: 32} }))),
		},
	}
}

// allowUnresolvableRoots builds the sandbox with every allowed root that
// cannot be canonicalized replaced by "/".
func allowUnresolvableRoots(afs afero.Fs, cfg sandbox.Config, workingDir string) (*sandbox.Sandbox, error) {
	roots := make([]string, len(cfg.AllowedRoots))
	for i, root := range cfg.AllowedRoots {
		abs := root
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(workingDir, abs)
		}
		if _, err := sandbox.Canonicalize(afs, abs); err != nil {
			root = "/"
		}
		roots[i] = root
	}
	cfg.AllowedRoots = roots
	return sandbox.New(afs, cfg, workingDir)
}

// hopLimitFS is the filesystem a sandbox with a lower symlink limit sees:
// once it has read left links, every further readlink fails with ELOOP.
// withSandbox builds one per call, so the limit is per call.
type hopLimitFS struct {
	afero.Fs
	left int
}

func (f *hopLimitFS) LstatIfPossible(name string) (fs.FileInfo, bool, error) {
	fi, err := fsys.Lstat(f.Fs, name)
	return fi, true, err
}

func (f *hopLimitFS) ReadlinkIfPossible(name string) (string, error) {
	if f.left <= 0 {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: syscall.ELOOP}
	}
	f.left--
	return fsys.Readlink(f.Fs, name)
}
