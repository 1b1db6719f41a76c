// Package session holds the conversation state that tool calls share: the
// read cache of FR-TOOL-PATCH-02c (canonical path, SHA-256 of the content at
// read time, read timestamp) that apply_patch checks before writing.
// An FCP/1 session is one conversation; the reset op starts a new one.
package session

import (
	"sync"
	"time"
)

// Read is one read-cache entry.
type Read struct {
	Path   string // canonical absolute path
	SHA256 [32]byte
	At     time.Time
}

// State is one conversation's state. The zero value is not usable; call New.
type State struct {
	mu    sync.Mutex
	reads map[string]Read
}

// New returns an empty conversation.
func New() *State { return &State{reads: map[string]Read{}} }

// RecordRead stores (or replaces) the entry for r.Path.
func (s *State) RecordRead(r Read) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads[r.Path] = r
}

// LastRead returns the entry for a canonical path.
func (s *State) LastRead(path string) (Read, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.reads[path]
	return r, ok
}

// Reset forgets everything: a fresh conversation.
func (s *State) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads = map[string]Read{}
}
