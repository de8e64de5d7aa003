package fs

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/openseek/openseek/internal/tool"
)

// The file tools never act on a path by name once it has been resolved:
// a command running at the same time could swap a directory on the way
// for a symlink leading out of the workspace between the check and the
// act. Every open, create, rename and remove goes through an [os.Root] on
// the workspace (or the extra root holding the path), which refuses to
// leave it whatever the path turns into meanwhile.

// rootFor opens the root — the workspace or one of env.Roots — that holds
// real (an absolute path from env.Resolve) and returns real relative to it.
func rootFor(env *tool.Env, real string) (*os.Root, string, error) {
	for _, r := range append([]string{env.Workspace}, env.Roots...) {
		rr, err := filepath.EvalSymlinks(r)
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(rr, filepath.Clean(real))
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		root, err := os.OpenRoot(rr)
		if err != nil {
			return nil, "", err
		}
		return root, rel, nil
	}
	return nil, "", fmt.Errorf("%s is outside the workspace %s", real, env.Workspace)
}

// inRoot runs f with the root holding real and real's path inside it.
func inRoot(env *tool.Env, real string, f func(root *os.Root, rel string) error) error {
	root, rel, err := rootFor(env, real)
	if err != nil {
		return err
	}
	defer root.Close()
	return f(root, rel)
}

func safeReadFile(env *tool.Env, real string) (b []byte, err error) {
	err = inRoot(env, real, func(root *os.Root, rel string) error {
		b, err = root.ReadFile(rel)
		return err
	})
	return b, err
}

func safeStat(env *tool.Env, real string) (fi iofs.FileInfo, err error) {
	err = inRoot(env, real, func(root *os.Root, rel string) error {
		fi, err = root.Stat(rel)
		return err
	})
	return fi, err
}

func safeLstat(env *tool.Env, real string) (fi iofs.FileInfo, err error) {
	err = inRoot(env, real, func(root *os.Root, rel string) error {
		fi, err = root.Lstat(rel)
		return err
	})
	return fi, err
}

// safeOpen opens real for reading; the file stays open after the root
// is closed.
func safeOpen(env *tool.Env, real string) (f *os.File, err error) {
	err = inRoot(env, real, func(root *os.Root, rel string) error {
		f, err = root.Open(rel)
		return err
	})
	return f, err
}

func safeMkdirAll(env *tool.Env, real string) error {
	return inRoot(env, real, func(root *os.Root, rel string) error {
		if rel == "." {
			return nil
		}
		return root.MkdirAll(rel, 0o755)
	})
}

func safeRemove(env *tool.Env, real string) error {
	return inRoot(env, real, func(root *os.Root, rel string) error { return root.Remove(rel) })
}

// writeAtomic replaces real with data: a temporary file in the same
// directory is written, given mode and renamed over real, so a reader (or
// a crash) sees the old content or the new, never a torn file. Renaming
// replaces a symlink at real rather than writing through it. All of it
// happens inside the root holding real.
func writeAtomic(env *tool.Env, real string, data []byte, mode iofs.FileMode) error {
	return inRoot(env, real, func(root *os.Root, rel string) (err error) {
		f, tmp, err := createTemp(root, rel)
		if err != nil {
			return err
		}
		defer func() {
			if err != nil {
				_ = root.Remove(tmp)
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
		return root.Rename(tmp, rel)
	})
}

// createTemp creates a new file beside rel in root, named after it.
func createTemp(root *os.Root, rel string) (*os.File, string, error) {
	dir, base := filepath.Split(rel)
	for range 100 {
		b := make([]byte, 6)
		rand.Read(b)
		tmp := filepath.Join(dir, "."+base+".openseek-"+hex.EncodeToString(b))
		f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if os.IsExist(err) {
			continue
		}
		return f, tmp, err
	}
	return nil, "", fmt.Errorf("create a temporary file beside %s: too many collisions", rel)
}

// fileMode is the permission bits of the existing file at real, or the
// default for a new file.
func fileMode(env *tool.Env, real string) iofs.FileMode {
	fi, err := safeStat(env, real)
	if err != nil {
		return newFileMode
	}
	return fi.Mode().Perm()
}

// rootFS is patch.FS through the workspace's roots: apply_patch reads and
// writes like every other file tool, immune to a symlink swapped in.
type rootFS struct{ env *tool.Env }

func (r rootFS) Stat(abs string) (iofs.FileInfo, error) { return safeStat(r.env, abs) }
func (r rootFS) ReadFile(abs string) ([]byte, error)    { return safeReadFile(r.env, abs) }
func (r rootFS) MkdirAll(abs string) error              { return safeMkdirAll(r.env, abs) }
func (r rootFS) Remove(abs string) error                { return safeRemove(r.env, abs) }
func (r rootFS) WriteAtomic(abs string, data []byte, mode iofs.FileMode) error {
	return writeAtomic(r.env, abs, data, mode)
}
