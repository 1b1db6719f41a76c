package mutants

import (
	"context"
	"encoding/json"
	"io/fs"
	"path/filepath"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/tool"
)

// overwrite removes an existing regular file at the path before
// write_file runs, so the call replaces it instead of refusing.
func overwrite(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	var a struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(args, &a) == nil && c.Sandbox != nil {
		if canon, err := c.Sandbox.Validate(a.Path); err == nil {
			if fi, err := fsys.Lstat(c.FS, canon); err == nil && fi.Mode().IsRegular() {
				_ = c.FS.Remove(canon)
			}
		}
	}
	return inner(ctx, args, c)
}

// throughLinkFS is a filesystem whose lstat follows symlinks and whose
// no-replace link publishes at a symlink's target: a create that opens
// the path without O_NOFOLLOW.
type throughLinkFS struct{ afero.Fs }

func (f throughLinkFS) LstatIfPossible(name string) (fs.FileInfo, bool, error) {
	fi, err := f.Stat(name)
	return fi, true, err
}

func (f throughLinkFS) ReadlinkIfPossible(name string) (string, error) {
	return fsys.Readlink(f.Fs, name)
}

func (f throughLinkFS) LinkNoReplace(oldname, newname string) error {
	for range 40 {
		fi, err := fsys.Lstat(f.Fs, newname)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			break
		}
		target, err := fsys.Readlink(f.Fs, newname)
		if err != nil {
			break
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(newname), target)
		}
		newname = filepath.Clean(target)
	}
	return fsys.LinkNoReplace(f.Fs, oldname, newname)
}

// writeThroughSymlink runs write_file on throughLinkFS.
func writeThroughSymlink(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	cc := *c
	cc.FS = throughLinkFS{c.FS}
	return inner(ctx, args, &cc)
}
