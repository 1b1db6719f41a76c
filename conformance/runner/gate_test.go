package runner

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestGate: cases share the gate, a scaling case holds it alone, and a
// scaling case that waits is served before cases that came after it.
func TestGate(t *testing.T) {
	g := NewGate()
	ctx := context.Background()
	r1, err := g.shared(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := g.shared(ctx)
	if err != nil {
		t.Fatal("a second case waits for the first:", err)
	}

	var alone atomic.Bool
	aloneDone := make(chan func())
	go func() {
		release, err := g.alone(ctx)
		if err != nil {
			t.Error(err)
		}
		alone.Store(true)
		aloneDone <- release
	}()
	time.Sleep(20 * time.Millisecond)
	if alone.Load() {
		t.Fatal("a scaling case measured while two cases ran")
	}

	// A case that comes after the waiting scaling case waits for it.
	later := make(chan bool)
	go func() {
		release, err := g.shared(ctx)
		if err != nil {
			t.Error(err)
			return
		}
		later <- alone.Load()
		release()
	}()
	time.Sleep(20 * time.Millisecond)
	r1()
	r2()
	releaseAlone := <-aloneDone
	select {
	case <-later:
		t.Fatal("a later case ran while the scaling case measured")
	case <-time.After(20 * time.Millisecond):
	}
	releaseAlone()
	if !<-later {
		t.Fatal("a later case ran before the scaling case that waited first")
	}

	// Waiting ends with the context.
	hold, _ := g.shared(ctx)
	defer hold()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if _, err := g.alone(cctx); err == nil {
		t.Fatal("a scaling case took the gate while a case held it")
	}
}
