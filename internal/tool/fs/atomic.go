package fs

import (
	"errors"
	iofs "io/fs"
)

// newFileMode is the mode of a file write creates.
const newFileMode iofs.FileMode = 0o644

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
