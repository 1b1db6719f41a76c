//go:build !linux

package listdir

// osFastPath reports that readDirOS is not available: every filesystem is
// read through afero and each name lstat'ed when visited.
const osFastPath = false

// dirBuf is readDirOS's scratch space.
type dirBuf struct{}

func readDirOS(string, bool, func(string) string, *dirBuf) ([]name, error) {
	panic("listdir: readDirOS without osFastPath")
}
