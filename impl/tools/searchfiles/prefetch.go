package searchfiles

import (
	"sync"
	"sync/atomic"

	"github.com/spf13/afero"
)

// The walker visits directories one at a time, in output order, which
// would make every directory listing (and, in the direct mode, every
// file's lstat) a serial step. A lister reads the listings of the
// directories the walker is going to enter ahead of it, in a few
// goroutines, in the order the walker queued them; the walker takes a
// listing when it gets there, or reads it itself when no goroutine has
// started on it yet. What is read, and what the walker does with it, is
// unchanged: only when the listings are read.

// listing is one directory's listing, read once.
type listing struct {
	abs   string
	taken atomic.Bool   // a goroutine (or the walker) is reading it
	done  chan struct{} // closed when ents and err are set
	ents  []dirent
	err   error
}

// maxQueued bounds the listings read ahead and not yet used.
const maxQueued = 1024

// lister reads listings ahead of the walker.
type lister struct {
	fs    afero.Fs
	sizes bool
	queue chan *listing
	wg    sync.WaitGroup
}

// newLister starts n reading goroutines; close stops them.
func newLister(afs afero.Fs, sizes bool, n int) *lister {
	l := &lister{fs: afs, sizes: sizes, queue: make(chan *listing, maxQueued)}
	for range n {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			var buf []byte
			for ls := range l.queue {
				l.read(ls, &buf)
			}
		}()
	}
	return l
}

// ahead queues the listing of abs, or returns nil when the queue is full
// (the walker then reads it itself).
func (l *lister) ahead(abs string) *listing {
	ls := &listing{abs: abs, done: make(chan struct{})}
	select {
	case l.queue <- ls:
		return ls
	default:
		return nil
	}
}

// read reads ls unless someone else is, with buf as readDir's buffer.
func (l *lister) read(ls *listing, buf *[]byte) {
	if ls.taken.Swap(true) {
		return
	}
	ls.ents, ls.err = readDir(l.fs, ls.abs, l.sizes, buf)
	close(ls.done)
}

// get returns the listing, reading it now (with buf) if no goroutine has
// started.
func (l *lister) get(ls *listing, buf *[]byte) ([]dirent, error) {
	l.read(ls, buf)
	<-ls.done
	return ls.ents, ls.err
}

// close drops the queued listings no goroutine has started (the walker
// stopped before it needed them) and waits for the goroutines.
func (l *lister) close() {
	for drained := false; !drained; {
		select {
		case ls := <-l.queue:
			ls.taken.Store(true)
		default:
			drained = true
		}
	}
	close(l.queue)
	l.wg.Wait()
}
