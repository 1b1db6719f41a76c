//go:build !linux

package listdir

// osFastPath reports that readDirOS is not available: every filesystem is
// read through afero and each name lstat'ed when visited.
const osFastPath = false

const atPath = -100

type dirBuf struct{}

func readDirOS(int, string, string, bool, bool, *dirBuf) ([]name, int, error) {
	panic("listdir: readDirOS without osFastPath")
}

func closeDir(int) {}
