package listdir

import (
	"sync"
	"sync/atomic"
)

// On the operating system's filesystem the depth-first walk would read
// every directory and lstat every entry one at a time. A reader lists and
// lstats the directories the walk is going to enter ahead of it, in a few
// goroutines, in the order the walk queued them; the walk takes a
// directory's result when it gets there, or reads it itself when no
// goroutine has started on it. What is read, and what the walk does with
// it, is unchanged: only when.

// ahead is one directory read ahead: its names, lstat'ed (readDirOS).
type ahead struct {
	abs   string
	taken atomic.Bool
	done  chan struct{}
	names []name // sorted
	err   error  // of the listing
}

// maxAhead bounds the directories queued and not yet used.
const maxAhead = 1024

// reader reads directories ahead of the walk.
type reader struct {
	includeHidden bool
	conv          func(string) string // the lossy conversion (request.lossy)
	queue         chan *ahead
	wg            sync.WaitGroup
}

// newReader starts n goroutines reading directories with readDirOS.
func newReader(includeHidden bool, conv func(string) string, n int) *reader {
	r := &reader{includeHidden: includeHidden, conv: conv, queue: make(chan *ahead, maxAhead)}
	for range n {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			var buf dirBuf
			for a := range r.queue {
				r.read(a, &buf)
			}
		}()
	}
	return r
}

// ahead queues the directory abs, or returns nil when the queue is full.
func (r *reader) ahead(abs string) *ahead {
	a := &ahead{abs: abs, done: make(chan struct{})}
	select {
	case r.queue <- a:
		return a
	default:
		return nil
	}
}

func (r *reader) read(a *ahead, buf *dirBuf) {
	if a.taken.Swap(true) {
		return
	}
	a.names, a.err = readDirOS(a.abs, r.includeHidden, r.conv, buf)
	close(a.done)
}

// get returns the directory's names, reading them now into buf if no
// goroutine has started.
func (r *reader) get(a *ahead, buf *dirBuf) ([]name, error) {
	r.read(a, buf)
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
