package fs

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/openseek/openseek/internal/beneath"
	"github.com/openseek/openseek/internal/tool"
)

// The file tools never act on a path by name once it has been resolved
// and checked: a command running at the same time could swap a directory
// on the way for a symlink — leading out of the workspace, or into .git
// inside it — between the check and the act. Every open, create, rename
// and remove goes through a beneath.Root on the workspace (or the extra
// root holding the path), which walks the resolved path without following
// any symlink and acts on the directory it opened, and never changes
// anything inside a protected directory (.git, .openseek, the config
// files), whatever name that directory has by then. The path was resolved
// (symlinks followed) just before, so a symlink met on the walk is one
// that appeared meanwhile: the call fails and changes nothing.

// rootFor opens the root — the workspace or one of env.Roots — that holds
// real (an absolute path from env.Resolve) and returns real relative to it.
func rootFor(env *tool.Env, real string) (*beneath.Root, string, error) {
	for _, r := range append([]string{env.Workspace}, env.Roots...) {
		rr, err := filepath.EvalSymlinks(r)
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(rr, filepath.Clean(real))
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		root, err := beneath.Open(rr, env.Avoided())
		if err != nil {
			return nil, "", err
		}
		return root, filepath.ToSlash(rel), nil
	}
	return nil, "", fmt.Errorf("%s is outside the workspace %s", real, env.Workspace)
}

// inRoot runs f with the root holding real and real's path inside it.
func inRoot(env *tool.Env, real string, f func(root *beneath.Root, rel string) error) error {
	root, rel, err := rootFor(env, real)
	if err != nil {
		return err
	}
	defer root.Close()
	return f(root, rel)
}

func safeReadFile(env *tool.Env, real string) (b []byte, err error) {
	err = inRoot(env, real, func(root *beneath.Root, rel string) error {
		b, err = root.ReadFile(rel)
		return err
	})
	return b, err
}

// safeLstat describes real itself. The file tools need no Stat that
// follows a final symlink: the path was resolved, so one there now
// appeared after the check and is replaced or refused, never followed.
func safeLstat(env *tool.Env, real string) (fi iofs.FileInfo, err error) {
	err = inRoot(env, real, func(root *beneath.Root, rel string) error {
		fi, err = root.Lstat(rel)
		return err
	})
	return fi, err
}

// safeOpen opens real for reading; the file stays open after the root
// is closed.
func safeOpen(env *tool.Env, real string) (f *os.File, err error) {
	err = inRoot(env, real, func(root *beneath.Root, rel string) error {
		f, err = root.Open(rel)
		return err
	})
	return f, err
}

func safeMkdirAll(env *tool.Env, real string) error {
	return inRoot(env, real, func(root *beneath.Root, rel string) error {
		if rel == "." {
			return nil
		}
		return root.MkdirAll(rel, 0o755)
	})
}

func safeRemove(env *tool.Env, real string) error {
	return inRoot(env, real, func(root *beneath.Root, rel string) error { return root.Remove(rel) })
}

// writeAtomic replaces real with data: a temporary file in the same
// directory is written, given mode, synced and renamed over real, so a
// reader (or a crash) sees the old content or the new, never a torn file,
// and no temporary file stays behind. A symlink at real is replaced, not
// written through.
func writeAtomic(env *tool.Env, real string, data []byte, mode iofs.FileMode) error {
	return inRoot(env, real, func(root *beneath.Root, rel string) error {
		return root.WriteFile(rel, data, mode)
	})
}

// newFileMode is the mode of a file write creates.
const newFileMode iofs.FileMode = 0o644

// fileMode is the permission bits of the existing file at real, or the
// default for a new file.
func fileMode(env *tool.Env, real string) iofs.FileMode {
	fi, err := safeLstat(env, real)
	if err != nil || !fi.Mode().IsRegular() {
		return newFileMode
	}
	return fi.Mode().Perm()
}

// rootFS is patch.FS through the workspace's roots: apply_patch reads and
// writes like every other file tool, and explains a refused walk as they do.
type rootFS struct{ env *tool.Env }

func (r rootFS) Stat(abs string) (iofs.FileInfo, error) {
	fi, err := safeLstat(r.env, abs)
	return fi, explain(err)
}

func (r rootFS) ReadFile(abs string) ([]byte, error) {
	b, err := safeReadFile(r.env, abs)
	return b, explain(err)
}

func (r rootFS) MkdirAll(abs string) error { return explain(safeMkdirAll(r.env, abs)) }
func (r rootFS) Remove(abs string) error   { return explain(safeRemove(r.env, abs)) }
func (r rootFS) WriteAtomic(abs string, data []byte, mode iofs.FileMode) error {
	return explain(writeAtomic(r.env, abs, data, mode))
}

// explain gives a walk's refusal (package beneath) the text the file
// tools give it, keeping the error underneath.
func explain(err error) error {
	var we *beneath.WalkError
	if errors.As(err, &we) {
		return explained{err}
	}
	return err
}

type explained struct{ err error }

func (e explained) Error() string { return describeErr(e.err) }
func (e explained) Unwrap() error { return e.err }
