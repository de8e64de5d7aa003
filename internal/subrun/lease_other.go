//go:build !unix

package subrun

import (
	"errors"
	"os"
	"sync"
)

// Without flock the lease is per process: held names are kept in memory.
var (
	heldMu sync.Mutex
	held   = map[string]bool{}
)

func lockFile(f *os.File) error {
	heldMu.Lock()
	defer heldMu.Unlock()
	if held[f.Name()] {
		return errors.New("held")
	}
	held[f.Name()] = true
	return nil
}

func unlockFile(f *os.File) error {
	heldMu.Lock()
	defer heldMu.Unlock()
	delete(held, f.Name())
	return nil
}
