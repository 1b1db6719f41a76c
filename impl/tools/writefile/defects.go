package writefile

import (
	"io/fs"
	"path/filepath"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/fsys"
)

// Defects are deliberate write_file bugs, for the suite's self-test: each
// one makes the tool break the requirement its comment names, so that the
// suite must fail the mutant naming that requirement. The zero value
// conforms.
type Defects struct {
	// Overwrite replaces an existing regular file instead of refusing it
	// (violates FR-WR-03, T-WR-02).
	Overwrite bool
	// FollowSymlink writes through a symlink at the path: the file is
	// created at the link's target (violates FR-WR-03, WR-SYMLINK-01).
	FollowSymlink bool
}

// followLink is Defects.FollowSymlink: the target of the symlink at
// w.canon becomes the path to create, and its Lstat is returned.
func (w *writer) followLink() (fs.FileInfo, error) {
	target, err := fsys.Readlink(w.fs, w.canon)
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(w.canon), target)
	}
	w.canon = filepath.Clean(target)
	return fsys.Lstat(w.fs, w.canon)
}

// renameOver is Defects.Overwrite's publish step: a rename, which replaces
// whatever is at newname.
func renameOver(afs afero.Fs, oldname, newname string) error {
	return afs.Rename(oldname, newname)
}
