//go:build !linux

package searchfiles

import (
	"context"
	"os"

	"github.com/spf13/afero"
)

// sizeEntries leaves ents unsized: each candidate's reader stats it.
func sizeEntries(afero.File, []dirent) {}

// sizeRoot leaves ents unsized.
func sizeRoot(string, []dirent) {}

// readCandidateOS is readCandidate through the afero.OsFs.
func readCandidateOS(req *request, it *item, sc *scratch) ([]byte, string) {
	return readCandidateRaw(context.Background(), afero.NewOsFs(), req, it, sc)
}

// readDirOS is readDir through the afero.OsFs.
func readDirOS(dir string, sizes bool, _ *[]byte) ([]dirent, error) {
	return readDir(afero.NewOsFs(), dir, sizes, nil)
}

const osFastPath = false

// blockingPipe is os.Pipe.
func blockingPipe() (r, w *os.File, err error) { return os.Pipe() }
