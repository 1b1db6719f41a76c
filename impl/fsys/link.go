package fsys

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/afero"
)

// NoReplaceLinker is implemented by filesystems that can give a file a
// second name without ever replacing an existing entry. PermFs and FaultFs
// implement it by delegating; for afero's OsFs, LinkNoReplace uses link(2).
type NoReplaceLinker interface {
	// LinkNoReplace makes newname a hard link to the file oldname. It fails
	// with EEXIST (errors.Is(err, fs.ErrExist)) when newname exists, as any
	// kind of entry, dangling symlinks included; neither name's final
	// symlink is followed. oldname stays in place.
	LinkNoReplace(oldname, newname string) error
}

// LinkNoReplace makes newname a hard link to oldname without replacing
// anything at newname (see NoReplaceLinker): the atomic "create if absent"
// that publishes a fully written temp file under its final name, so a
// racing creator is never overwritten. fsys must implement NoReplaceLinker
// or be an *afero.OsFs; otherwise the error wraps errors.ErrUnsupported.
// Errors are *os.LinkError values.
func LinkNoReplace(fsys afero.Fs, oldname, newname string) error {
	switch l := fsys.(type) {
	case NoReplaceLinker:
		return l.LinkNoReplace(oldname, newname)
	case *afero.OsFs:
		return os.Link(oldname, newname) // link(2) never follows newname and fails with EEXIST
	}
	return &os.LinkError{Op: "link", Old: oldname, New: newname,
		Err: fmt.Errorf("filesystem %s cannot link without replacing; use an afero.OsFs (or a wrapper that delegates to one): %w",
			fsys.Name(), errors.ErrUnsupported)}
}
