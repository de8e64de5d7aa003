package fs

import (
	"errors"
	iofs "io/fs"
	"os"
	"path/filepath"
)

// newFileMode is the mode of a file write creates.
const newFileMode iofs.FileMode = 0o644

// writeAtomic replaces path with data: a temporary file in the same
// directory is written, given mode and renamed over path, so a reader (or
// a crash) sees the old content or the new, never a torn file. Renaming
// replaces a symlink at path rather than writing through it; callers pass
// the resolved path.
func writeAtomic(path string, data []byte, mode iofs.FileMode) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".openseek-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		_ = f.Close()
		return err
	}
	if err = f.Chmod(mode); err != nil {
		_ = f.Close()
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// fileMode is the permission bits of the existing file at path, or the
// default for a new file.
func fileMode(path string) iofs.FileMode {
	fi, err := os.Stat(path)
	if err != nil {
		return newFileMode
	}
	return fi.Mode().Perm()
}

// describeErr shortens the common file-system errors to what the model
// needs; others keep their text.
func describeErr(err error) string {
	var pe *iofs.PathError
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		return "no such file or directory"
	case errors.Is(err, iofs.ErrPermission):
		return "permission denied"
	case errors.As(err, &pe):
		return pe.Err.Error()
	}
	return err.Error()
}
