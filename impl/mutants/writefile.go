package mutants

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/canonjson"
	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/tool"
	"github.com/forge-conform/forge-conform/impl/toolerr"
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

// claimCreated answers a create that failed on a path under a regular
// file with the success a write_file that never checks the result of its
// create would report: "created", with the content's length.
func claimCreated(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	out, err := inner(ctx, args, c)
	var te *toolerr.Error
	var a struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	if !errors.As(err, &te) || !strings.Contains(te.Message, "a parent in the path is a file") || json.Unmarshal(args, &a) != nil {
		return out, err
	}
	res := canonjson.AppendKey([]byte{'{'}, "status", true)
	res = canonjson.AppendString(res, "created")
	res = canonjson.AppendKey(res, "path", false)
	res = canonjson.AppendString(res, a.Path)
	res = canonjson.AppendKey(res, "bytes_written", false)
	res = canonjson.AppendInt(res, int64(len(a.Content)))
	return string(append(res, '}')), nil
}

// parentsFirst creates the missing parent directories of a validated path
// before write_file runs, so that the tool finds them existing and a
// failed create leaves them behind: a write_file that makes parents
// without removing them on failure.
func parentsFirst(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	var a struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(args, &a) == nil && c.Sandbox != nil {
		if canon, err := c.Sandbox.Validate(a.Path); err == nil {
			_ = c.FS.MkdirAll(filepath.Dir(canon), 0o755)
		}
	}
	return inner(ctx, args, c)
}
