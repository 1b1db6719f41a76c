package fcpserver

import (
	"os"
	"runtime/debug"
)

// ServerGCPercent is the collector's target a server of FCP/1 runs with
// unless GOGC says otherwise: it lets the heap grow to five times what is
// live before collecting, where Go's default is twice. A server's live
// heap between requests is small, while one response may be megabytes (a
// listing of 32,768 entries is about 4 MiB, built and then encoded once
// more as a JSON string): at the default, a single such call runs several
// collections, each of which must stop a goroutine busy copying
// megabytes, and its cost comes to depend on where the cycles fall more
// than on the work (seen as large calls of one size taking from 50 to
// 190 ms of CPU time).
const ServerGCPercent = 400

// TuneCollector sets ServerGCPercent unless the environment sets GOGC. A
// program that serves FCP/1 calls it once, at its start.
func TuneCollector() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(ServerGCPercent)
	}
}
