//go:build !linux

package listdir

// osFastPath reports that readDirOS is not available: every filesystem is
// read through afero and each name lstat'ed when visited.
const osFastPath = false

func readDirOS(string, bool, *[]byte) ([]name, error) { panic("listdir: readDirOS without osFastPath") }
