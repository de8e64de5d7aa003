package fs

import (
	"errors"
	"fmt"
	iofs "io/fs"

	"github.com/openseek/openseek/internal/beneath"
)

// describeErr shortens the common file-system errors to what the model
// needs; others keep their text.
func describeErr(err error) string {
	var pe *iofs.PathError
	var we *beneath.WalkError
	switch {
	case errors.As(err, &we) && errors.Is(err, beneath.ErrSymlink):
		return fmt.Sprintf("%s is a symbolic link now, though it was not when the path was checked: something (a background job?) is changing the workspace while the tool runs. Nothing was written; the file tools never follow a link that appears mid-way. Run the tool again once that has stopped", we.Path)
	case errors.As(err, &we) && errors.Is(err, beneath.ErrAvoided):
		return fmt.Sprintf("%s is now a protected directory (.git, .openseek or a config file), renamed there while the tool ran; the agent never writes there, and nothing was written", we.Path)
	case errors.Is(err, iofs.ErrNotExist):
		return "no such file or directory"
	case errors.Is(err, iofs.ErrPermission):
		return "permission denied"
	case errors.As(err, &pe):
		return pe.Err.Error()
	}
	return err.Error()
}
