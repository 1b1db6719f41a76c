// Package srddir tells tests where the SRDs are: the seed documents
// (LIST_DIRECTORY_SRD.md, LP1.md, TOOL_EXECUTOR_SRD.md, ...) the catalogs
// and the cases' message words are checked against. They are inputs, not
// part of the repository: the environment variable FORGE_CONFORM_SRD_DIR
// names the directory that holds them (CI sets it), and tests that need
// them skip, saying so, when it is unset.
package srddir

import (
	"fmt"
	"os"
	"testing"
)

// Env is the environment variable naming the directory of the SRD .md
// files.
const Env = "FORGE_CONFORM_SRD_DIR"

// Lookup returns the directory $FORGE_CONFORM_SRD_DIR names, or "" and why
// there is none: the variable is unset, or names no directory.
func Lookup() (dir, why string) {
	dir = os.Getenv(Env)
	if dir == "" {
		return "", Env + " is unset: set it to the directory holding the SRD .md files (LIST_DIRECTORY_SRD.md, LP1.md, ...) to run this check"
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", fmt.Sprintf("%s=%s is not a directory: set it to the directory holding the SRD .md files", Env, dir)
	}
	return dir, ""
}

// Require returns the SRD directory, or skips t saying how to set it.
func Require(t testing.TB) string {
	t.Helper()
	dir, why := Lookup()
	if dir == "" {
		t.Skip(why)
	}
	return dir
}
