package tool

import "sync"

// FileState records, per absolute path, the SHA-256 of the content the
// agent last wrote, so remove can delete only files the agent created and
// nobody changed since.
type FileState struct {
	mu      sync.Mutex
	created map[string][32]byte
}
