package listdir

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/spf13/afero"

	"github.com/forge-conform/forge-conform/impl/fsys"
	"github.com/forge-conform/forge-conform/impl/lossy"
)

// On the operating system's filesystem the depth-first walk would read
// every directory and lstat every entry one at a time. A reader lists and
// lstats the directories the walk is going to enter ahead of it, in a few
// goroutines, in the order the walk queued them; the walk takes a
// directory's result when it gets there, or reads it itself when no
// goroutine has started on it. What is read, and what the walk does with
// it, is unchanged: only when.

// ahead is one directory read ahead: its names, lstat'ed (statNames).
type ahead struct {
	abs   string
	taken atomic.Bool
	done  chan struct{}
	names []name // unsorted
	err   error  // of the listing
}

// maxAhead bounds the directories queued and not yet used.
const maxAhead = 1024

// reader reads directories ahead of the walk.
type reader struct {
	fs    afero.Fs
	queue chan *ahead
	wg    sync.WaitGroup
}

func newReader(afs afero.Fs, n int) *reader {
	r := &reader{fs: afs, queue: make(chan *ahead, maxAhead)}
	for range n {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			for a := range r.queue {
				r.read(a)
			}
		}()
	}
	return r
}

// queue queues the directory abs, or returns nil when the queue is full.
func (r *reader) ahead(abs string) *ahead {
	a := &ahead{abs: abs, done: make(chan struct{})}
	select {
	case r.queue <- a:
		return a
	default:
		return nil
	}
}

func (r *reader) read(a *ahead) {
	if a.taken.Swap(true) {
		return
	}
	raw, err := fsys.ReadDirNames(r.fs, a.abs)
	if err == nil {
		a.names = make([]name, 0, len(raw))
		for _, n := range raw {
			if n != "." && n != ".." {
				a.names = append(a.names, name{raw: n, lossy: lossy.String(n)})
			}
		}
		statNames(a.abs, a.names)
	}
	a.err = err
	close(a.done)
}

// get returns the directory's names, reading them now if no goroutine
// has started.
func (r *reader) get(a *ahead) ([]name, error) {
	r.read(a)
	<-a.done
	return a.names, a.err
}

// close drops the queued directories no goroutine has started and waits
// for the goroutines.
func (r *reader) close() {
	for drained := false; !drained; {
		select {
		case a := <-r.queue:
			a.taken.Store(true)
		default:
			drained = true
		}
	}
	close(r.queue)
	r.wg.Wait()
}

// sortedAhead sorts names read ahead (compareNames).
func sortedAhead(names []name) []name {
	slices.SortFunc(names, compareNames)
	return names
}
