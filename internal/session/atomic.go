package session

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/openseek/openseek/internal/beneath"

	"golang.org/x/sys/unix"
)

// writeAtomic replaces path with data (beneath.WriteFile: a synced
// temporary file renamed over it), then fsyncs the directory chain
// innermost first (the session dir, sessions/, the root). Directory syncs
// are best effort.
func writeAtomic(path string, data []byte, dirs ...string) error {
	if err := beneath.WriteFile(path, data, 0o600); err != nil {
		return err
	}
	for _, d := range dirs {
		syncDir(d)
	}
	return nil
}

func fdatasync(f *os.File) error {
	for {
		err := unix.Fdatasync(int(f.Fd()))
		if err != unix.EINTR {
			if err != nil {
				return fmt.Errorf("fdatasync %s: %w", f.Name(), err)
			}
			return nil
		}
	}
}

func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}

// dirChain is the directories to fsync after a rename in session id's
// directory, innermost first.
func (s *Store) dirChain(id string) []string {
	return []string{s.Dir(id), filepath.Join(s.root, "sessions"), s.root}
}
