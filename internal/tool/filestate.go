package tool

import (
	"crypto/sha256"
	"sync"
)

// FileState records, per absolute path, the SHA-256 of the content the
// agent last wrote, so remove can delete only files the agent created and
// nobody changed since. The zero value is ready to use, every method is
// safe for concurrent use, and a nil *FileState records nothing.
type FileState struct {
	mu      sync.Mutex
	created map[string][32]byte
}

// NewFileState returns an empty FileState.
func NewFileState() *FileState { return &FileState{} }

// MarkCreated records that the agent created path with content.
func (s *FileState) MarkCreated(path string, content []byte) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.created == nil {
		s.created = make(map[string][32]byte)
	}
	s.created[path] = sha256.Sum256(content)
}

// Record notes that the agent wrote content to path. Only files the agent
// created are tracked: writing a file the user owns does not make it
// removable, while editing a file the agent created keeps it removable.
func (s *FileState) Record(path string, content []byte) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.created[path]; ok {
		s.created[path] = sha256.Sum256(content)
	}
}

// CreatedUnchanged reports whether the agent created path and current is
// exactly what it last wrote there.
func (s *FileState) CreatedUnchanged(path string, current []byte) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sum, ok := s.created[path]
	return ok && sum == sha256.Sum256(current)
}

// Forget drops what is known about path (after it was removed).
func (s *FileState) Forget(path string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.created, path)
}
