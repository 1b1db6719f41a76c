package fsys

import (
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/afero"
)

// counted reports whether op is a fault that counts files (OpWrite,
// OpFsync) rather than naming one.
func counted(op string) bool { return op == OpWrite || op == OpFsync }

// countedFault is a write or fsync fault with its cleaned path.
type countedFault struct {
	Fault
	path string
}

// covers reports whether the file name lies at or below the fault's path.
func (c countedFault) covers(name string) bool {
	return name == c.path || c.path == "/" || strings.HasPrefix(name, c.path+"/")
}

// nth is the file number that fails (Nth, 1 when unset).
func (c countedFault) nth() int { return max(c.Nth, 1) }

// counters numbers the files a FaultFs's write and fsync faults see, in
// the order of their first write (or sync), whatever technique wrote them:
// a temp file and a rename, or the target opened in place.
type counters struct {
	faults []countedFault
	mu     sync.Mutex
	seen   []int // per fault: files numbered so far
}

func newCounters(faults []countedFault) *counters {
	if len(faults) == 0 {
		return nil
	}
	return &counters{faults: faults, seen: make([]int, len(faults))}
}

// wrap returns file, counted when a write or fsync fault covers name and
// it is not a directory.
func (c *counters) wrap(file afero.File, name string) afero.File {
	if c == nil {
		return file
	}
	name = filepath.Clean(name)
	var mine []int
	for i, f := range c.faults {
		if f.covers(name) {
			mine = append(mine, i)
		}
	}
	if len(mine) == 0 {
		return file
	}
	if fi, err := file.Stat(); err == nil && fi.IsDir() {
		return file
	}
	return &countedFile{File: file, c: c, name: name, faults: mine, number: map[int]int{}}
}

// countedFile is an opened file some write or fsync faults cover.
type countedFile struct {
	afero.File
	c      *counters
	name   string
	faults []int       // indexes into c.faults
	number map[int]int // fault index -> this file's number, once it has one
}

// strike returns the error of the first fault of op that fails this file,
// after the fault's delay; nil when none does. The file gets its number for
// each fault of op at its first call.
func (f *countedFile) strike(op string) error {
	f.c.mu.Lock()
	var hit *countedFault
	for _, i := range f.faults {
		cf := f.c.faults[i]
		if cf.Op != op {
			continue
		}
		n, ok := f.number[i]
		if !ok {
			f.c.seen[i]++
			n = f.c.seen[i]
			f.number[i] = n
		}
		if n == cf.nth() && hit == nil {
			hit = &cf
		}
	}
	f.c.mu.Unlock()
	if hit == nil {
		return nil
	}
	if hit.Delay > 0 {
		time.Sleep(hit.Delay)
	}
	return &fs.PathError{Op: op, Path: f.name, Err: hit.Err}
}

// strikeWrite is strike(OpWrite) for a write of n bytes: an empty write
// writes nothing (through FUSE it never reaches the filesystem), so it
// neither counts nor fails.
func (f *countedFile) strikeWrite(n int) error {
	if n == 0 {
		return nil
	}
	return f.strike(OpWrite)
}

// Write implements afero.File.
func (f *countedFile) Write(b []byte) (int, error) {
	if err := f.strikeWrite(len(b)); err != nil {
		return 0, err
	}
	return f.File.Write(b)
}

// WriteAt implements afero.File.
func (f *countedFile) WriteAt(b []byte, off int64) (int, error) {
	if err := f.strikeWrite(len(b)); err != nil {
		return 0, err
	}
	return f.File.WriteAt(b, off)
}

// WriteString implements afero.File.
func (f *countedFile) WriteString(s string) (int, error) {
	if err := f.strikeWrite(len(s)); err != nil {
		return 0, err
	}
	return f.File.WriteString(s)
}

// Sync implements afero.File.
func (f *countedFile) Sync() error {
	if err := f.strike(OpFsync); err != nil {
		return err
	}
	return f.File.Sync()
}
