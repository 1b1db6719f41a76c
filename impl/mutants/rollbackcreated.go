package mutants

import (
	"context"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"sync"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/tool"
)

// rollbackMutants break FR-TOOL-PATCH-01a for the files a patch creates:
// the changed files are restored when a later file fails, the new ones
// are left in place.
func rollbackMutants() []Mutant {
	return []Mutant{
		{
			Name: "rollback-keeps-created", Doc: "apply_patch's rollback restores the files it changed but leaves the files it created when a later file of the patch fails",
			Specs: []string{"tool_executor"}, Run: []string{"tool_executor/atomic-*"},
			Breaks:  ids("tool_executor", "FR-TOOL-PATCH-01a", "T-PATCH-01"),
			Options: wrap(onTool("apply_patch", keepCreated)),
		},
	}
}

// keepCreated runs apply_patch on keepCreatedFS.
func keepCreated(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	cc := *c
	cc.FS = &keepCreatedFS{Fs: c.FS, created: map[string]bool{}}
	out, err := inner(ctx, args, &cc)
	c.AllowTruncation = cc.AllowTruncation
	return out, err
}

// keepCreatedFS ignores the removal of a file it created by a no-replace
// link (how the reference publishes a new file), so undoing the creation
// leaves the file where it is; its temp name is still removed.
type keepCreatedFS struct {
	afero.Fs
	mu      sync.Mutex
	created map[string]bool
}

var _ fsys.NoReplaceLinker = (*keepCreatedFS)(nil)

func (f *keepCreatedFS) LstatIfPossible(name string) (fs.FileInfo, bool, error) {
	fi, err := fsys.Lstat(f.Fs, name)
	return fi, true, err
}

func (f *keepCreatedFS) ReadlinkIfPossible(name string) (string, error) {
	return fsys.Readlink(f.Fs, name)
}

func (f *keepCreatedFS) LinkNoReplace(oldname, newname string) error {
	if err := fsys.LinkNoReplace(f.Fs, oldname, newname); err != nil {
		return err
	}
	f.mu.Lock()
	f.created[filepath.Clean(newname)] = true
	f.mu.Unlock()
	return nil
}

func (f *keepCreatedFS) Remove(name string) error {
	f.mu.Lock()
	kept := f.created[filepath.Clean(name)]
	f.mu.Unlock()
	if kept {
		return nil
	}
	return f.Fs.Remove(name)
}
