package applypatch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/fsys"
)

// maxTempAttempts bounds the temp names tried per file before giving up.
const maxTempAttempts = 100

// maxTempBase bounds the part of a file name reused in its temp name, so
// the temp name stays under NAME_MAX.
const maxTempBase = 128

// pending is the commit state of one changed file.
type pending struct {
	*file
	temp      string // temp file holding the new content; "" once gone
	published bool   // the new content is in place at canon
}

// commit writes every changed file atomically as one unit (I-AP-06,
// FR-TOOL-PATCH-01a): first a synced temp file next to each target, then
// the renames (for new files, no-replace links). On any failure files
// already published are restored (or, if new, removed) and every temp
// file is removed; the returned PatchFailed names the file that failed.
// The ctx is checked once, after the temp files are written: the renames
// are never interrupted.
func commit(ctx context.Context, afs afero.Fs, files []*file) error {
	ps := make([]*pending, len(files))
	for i, f := range files {
		ps[i] = &pending{file: f}
	}
	defer func() {
		for _, p := range ps {
			if p.temp != "" {
				_ = afs.Remove(p.temp)
			}
		}
	}()
	for _, p := range ps {
		temp, err := writeTemp(afs, p.file, p.next)
		if err != nil {
			return p.failed(p.firstLine(), "could not write %s: %v; no file was changed, fix the cause (permissions, disk space) and retry", p.path, fsys.ErrText(err))
		}
		p.temp = temp
	}
	if err := ctx.Err(); err != nil {
		return ctxError(err)
	}
	for i, p := range ps {
		if err := publish(afs, p); err != nil {
			msg := fmt.Sprintf("could not replace %s: %s", p.path, fsys.ErrText(err))
			if !p.exists && errors.Is(err, fs.ErrExist) {
				msg = fmt.Sprintf("could not create %s: it was created by someone else meanwhile; read it and patch it instead", p.path)
			}
			if problems := rollback(afs, ps[:i]); len(problems) > 0 {
				msg += "; restoring the files already written failed: " + strings.Join(problems, "; ") + "; check them by hand"
			} else {
				msg += "; no file was changed"
			}
			return p.failed(p.firstLine(), "%s", msg)
		}
	}
	return nil
}

// publish puts p's temp file in place: a rename over an existing file, a
// no-replace link for a new one (whose temp name is then removed).
func publish(afs afero.Fs, p *pending) error {
	if p.exists {
		if err := afs.Rename(p.temp, p.canon); err != nil {
			return err
		}
		p.temp, p.published = "", true
		return nil
	}
	if err := fsys.LinkNoReplace(afs, p.temp, p.canon); err != nil {
		return err
	}
	p.published = true
	if afs.Remove(p.temp) == nil {
		p.temp = ""
	}
	return nil
}

// rollback undoes published files, newest first: an existing file gets its
// original bytes and mode back through a fresh temp file and a rename, a
// new file is removed if it is still the one this call created. It
// returns what could not be undone.
func rollback(afs afero.Fs, ps []*pending) []string {
	var problems []string
	for i := len(ps) - 1; i >= 0; i-- {
		p := ps[i]
		if !p.published {
			continue
		}
		if !p.exists {
			if err := removeOwn(afs, p); err != nil {
				problems = append(problems, fmt.Sprintf("%s (created): %v", p.path, err))
			}
			continue
		}
		temp, err := writeTemp(afs, p.file, p.orig)
		if err == nil {
			if err = afs.Rename(temp, p.canon); err != nil {
				_ = afs.Remove(temp)
			}
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", p.path, err))
		}
	}
	return problems
}

// removeOwn removes the new file p published, unless what is at its path
// now is not that file.
func removeOwn(afs afero.Fs, p *pending) error {
	if p.temp != "" {
		now, err1 := fsys.Lstat(afs, p.canon)
		ours, err2 := fsys.Lstat(afs, p.temp)
		if err1 == nil && err2 == nil && !os.SameFile(now, ours) {
			return fmt.Errorf("it was replaced by another file, left in place")
		}
	}
	return afs.Remove(p.canon)
}

// writeTemp writes data to a new temp file in f's directory, synced and
// with f's mode (and owner where possible), and returns its name. The temp
// file is created exclusively and without following symlinks, under the
// first free name among .<base>.apply_patch.tmp, .<base>.apply_patch.1.tmp,
// ...; on failure nothing is left behind.
func writeTemp(afs afero.Fs, f *file, data []byte) (name string, err error) {
	dir, base := filepath.Split(f.canon)
	if len(base) > maxTempBase {
		base = base[:maxTempBase]
	}
	var h afero.File
	for i := 0; ; i++ {
		if i == maxTempAttempts {
			return "", fmt.Errorf("no free temp file name in %s (.%s.apply_patch.*.tmp are all taken); remove stale ones", dir, base)
		}
		suffix := ".apply_patch.tmp"
		if i > 0 {
			suffix = ".apply_patch." + strconv.Itoa(i) + ".tmp"
		}
		name = filepath.Join(dir, "."+base+suffix)
		h, err = afs.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	// The returns below set name to "": remove the temp file by its own
	// copy of the name.
	temp := name
	defer func() {
		if err != nil {
			_ = afs.Remove(temp)
		}
	}()
	if _, err := h.Write(data); err != nil {
		_ = h.Close()
		return "", err
	}
	if err := h.Sync(); err != nil {
		_ = h.Close()
		return "", err
	}
	if err := h.Close(); err != nil {
		return "", err
	}
	if f.uid >= 0 {
		// Best effort: giving a file away needs privilege; a chown to the
		// process's own user always works and is a no-op.
		_ = afs.Chown(name, f.uid, f.gid)
	}
	if err := afs.Chmod(name, f.mode); err != nil {
		return "", err
	}
	return name, nil
}
