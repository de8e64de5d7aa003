package verify

import (
	"io/fs"
	"path/filepath"
	"time"
)

// skipDirs are folders a scan does not enter: version control, the
// session store, and dependency or build trees that are large and that
// the check itself may write.
var skipDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, ".openseek": true,
	"node_modules": true, "target": true, "__pycache__": true,
	".venv": true, "venv": true, ".mypy_cache": true, ".pytest_cache": true,
}

// maxScan bounds a scan; past it the tree counts as changed whenever a
// scan is asked (a huge tree is verified rather than walked forever).
const maxScan = 200_000

type stamp struct {
	size    int64
	modTime time.Time
	mode    fs.FileMode
}

// Snapshot is the state of a workspace's files as seen by stat: path →
// size, modification time and mode. Two equal snapshots mean no file was
// created, removed or written between them (to mtime resolution).
type Snapshot struct {
	files    map[string]stamp
	overflow bool
}

// Scan stats every file under dir, leaving out skipDirs.
func Scan(dir string) Snapshot {
	s := Snapshot{files: map[string]stamp{}}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable parts are the same at both ends
		}
		if d.IsDir() {
			if p != dir && skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if len(s.files) >= maxScan {
			s.overflow = true
			return filepath.SkipAll
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		s.files[p] = stamp{size: fi.Size(), modTime: fi.ModTime(), mode: fi.Mode()}
		return nil
	})
	return s
}

// Changed reports whether any file differs between s and later.
func (s Snapshot) Changed(later Snapshot) bool {
	if s.overflow || later.overflow || len(s.files) != len(later.files) {
		return true
	}
	for p, st := range s.files {
		if o, ok := later.files[p]; !ok || o != st {
			return true
		}
	}
	return false
}
