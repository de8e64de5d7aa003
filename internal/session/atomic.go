package session

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// writeAtomic replaces path with data: write <path>.tmp, fdatasync it,
// rename it over path, then fsync the directory chain innermost first (the
// session dir, sessions/, the root). Directory syncs are best effort.
func writeAtomic(path string, data []byte, dirs ...string) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = fdatasync(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
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
