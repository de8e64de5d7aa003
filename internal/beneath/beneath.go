// Package beneath reads and changes files below a directory without
// following a symbolic link anywhere on the way.
//
// os.Root refuses to leave its directory but follows the symlinks that
// stay inside it. That is a hole when the caller checked a path by name
// first: a command running at the same time can exchange a directory d
// with a symlink to .git (renameat2 RENAME_EXCHANGE) between the check of
// "d/config" and the write, and the write lands in .git/config. A Root
// walks a path one component at a time from the directory it holds open,
// each with O_NOFOLLOW, and acts on the last directory it opened (create,
// rename, remove are *at calls on that descriptor), so the file it
// changes is the one whose name was checked, or the call fails.
//
// Invariants:
//   - No symlink is followed, at any component, the last included: a
//     symlink met on the way fails the call with a *WalkError naming it
//     (errors.Is ErrSymlink), and a write
//     replaces a symlink at the last component instead of writing through
//     it. Absolute paths and ".." are refused (ErrEscape).
//   - A call that changes something (WriteFile, MkdirAll, Remove, Symlink)
//     never enters a directory of the Set given to Open, recognised by
//     device and inode whatever its name is now (ErrAvoided). Reads may.
//   - WriteFile is atomic and leaves nothing behind: a temporary file is
//     created (O_EXCL) in the file's directory, written, synced and
//     renamed over the file within that same directory; on any failure it
//     is unlinked from that directory.
//
// The root's own path is opened normally: it is the caller's, trusted.
package beneath

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

var (
	// ErrSymlink is a component of the path that is a symbolic link.
	ErrSymlink = errors.New("is a symbolic link, and links are not followed here")
	// ErrAvoided is a path leading into a directory of the avoided Set.
	ErrAvoided = errors.New("is a protected directory, and nothing in it may be changed")
	// ErrEscape is an absolute path, or one that climbs out with "..".
	ErrEscape = errors.New("leaves the directory it must stay beneath")
)

// fileID is what identifies a directory whatever its name.
type fileID struct{ dev, ino uint64 }

// Set is directories identified by device and inode as they were when
// Identify ran: renaming one later does not change what the Set holds, so
// a directory exchanged into another name is still recognised. The zero
// Set holds nothing.
type Set struct{ ids map[fileID]bool }

// Identify is the Set of paths as they are now (symlinks followed); a
// path that does not exist, or is not a directory, is left out.
func Identify(paths ...string) Set {
	var s Set
	for _, p := range paths {
		var st unix.Stat_t
		if unix.Stat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
			if s.ids == nil {
				s.ids = map[fileID]bool{}
			}
			s.ids[idOf(&st)] = true
		}
	}
	return s
}

// Root is a directory held open; every path given to its methods is
// relative to it, slash-separated, and walked without following links.
type Root struct {
	fd    int
	name  string
	avoid Set
}

// Open opens the directory dir as a Root under which nothing inside a
// directory of avoid is ever changed.
func Open(dir string, avoid Set) (*Root, error) {
	// The root's own path may hold symlinks (/tmp -> /private/tmp).
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC
	fd, err := unix.Open(dir, flags, 0)
	for err == unix.EINTR {
		fd, err = unix.Open(dir, flags, 0)
	}
	if err != nil {
		return nil, &iofs.PathError{Op: "open", Path: dir, Err: err}
	}
	return &Root{fd: fd, name: dir, avoid: avoid}, nil
}

// Close releases the directory.
func (r *Root) Close() error { return unix.Close(r.fd) }

// ReadFile returns the content of the file at name.
func (r *Root) ReadFile(name string) ([]byte, error) {
	f, err := r.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, &iofs.PathError{Op: "read", Path: name, Err: err}
	}
	return b, nil
}

// Open opens name (a file or a directory) for reading.
func (r *Root) Open(name string) (*os.File, error) {
	dir, base, err := r.parent("open", name, false)
	if err != nil {
		return nil, err
	}
	defer r.release(dir)
	fd, err := openAt(dir, base, unix.O_RDONLY)
	if err != nil {
		return nil, pathErr("open", name, linkErr(dir, base, err))
	}
	return os.NewFile(uintptr(fd), path.Join(r.name, name)), nil
}

// Lstat describes name itself: a symlink is described, not followed.
func (r *Root) Lstat(name string) (iofs.FileInfo, error) {
	dir, base, err := r.parent("lstat", name, false)
	if err != nil {
		return nil, err
	}
	defer r.release(dir)
	var st unix.Stat_t
	if err := unix.Fstatat(dir, base, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, pathErr("lstat", name, err)
	}
	return &fileInfo{name: path.Base(name), st: st}, nil
}

// MkdirAll creates the directory name and the missing directories above
// it with mode perm (before the umask).
func (r *Root) MkdirAll(name string, perm iofs.FileMode) error {
	parts, err := split("mkdir", name)
	if err != nil {
		return err
	}
	fd, err := r.walk("mkdir", parts, true, perm)
	if err != nil {
		return err
	}
	r.release(fd)
	return nil
}

// WriteFile replaces the file name with data, with mode perm: readers (and
// a crash) see the old content or the new, never a mix. A symlink at name
// is replaced, not written through.
func (r *Root) WriteFile(name string, data []byte, perm iofs.FileMode) error {
	dir, base, err := r.parent("write", name, true)
	if err != nil {
		return err
	}
	defer r.release(dir)
	if err := replace(dir, base, data, perm); err != nil {
		return pathErr("write", name, err)
	}
	return nil
}

// WriteFile replaces the file at path with data, with mode perm, as
// Root.WriteFile does (a temporary file beside it, written, synced and
// renamed over it; readers and a crash see the old content or the new,
// nothing is left behind; a symlink at path is replaced, not written
// through) — for a path the caller trusts: the directories on the way are
// opened normally. It is the one atomic write of the program's own files
// (session logs, the trust store, the sandbox's mark, snapshot records).
func WriteFile(path string, data []byte, perm iofs.FileMode) error {
	dir, err := unix.Open(filepath.Dir(path), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &iofs.PathError{Op: "write", Path: path, Err: err}
	}
	defer unix.Close(dir)
	if err := replace(dir, filepath.Base(path), data, perm); err != nil {
		return &iofs.PathError{Op: "write", Path: path, Err: err}
	}
	return nil
}

// replace writes data to a new temporary file in dir and renames it over
// base; on failure the temporary file is unlinked.
func replace(dir int, base string, data []byte, perm iofs.FileMode) error {
	fd, tmp, err := createTemp(dir, base)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), tmp)
	err = fill(f, data, perm)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(dir, tmp, dir, base)
	}
	if err != nil {
		_ = unix.Unlinkat(dir, tmp, 0)
	}
	return err
}

func fill(f *os.File, data []byte, perm iofs.FileMode) error {
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Chmod(perm); err != nil {
		return err
	}
	return f.Sync()
}

// createTemp creates a new file in dir named after base.
func createTemp(dir int, base string) (int, string, error) {
	for range 100 {
		b := make([]byte, 6)
		rand.Read(b)
		tmp := "." + base + ".openseek-" + hex.EncodeToString(b)
		fd, err := openAt(dir, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL)
		if err == unix.EEXIST {
			continue
		}
		return fd, tmp, err
	}
	return -1, "", fmt.Errorf("create a temporary file beside %s: too many collisions", base)
}

// Remove removes the file, symlink or empty directory name.
func (r *Root) Remove(name string) error {
	dir, base, err := r.parent("remove", name, true)
	if err != nil {
		return err
	}
	defer r.release(dir)
	err = unix.Unlinkat(dir, base, 0)
	if err == unix.EISDIR || err == unix.EPERM {
		var st unix.Stat_t
		if serr := unix.Fstatat(dir, base, &st, unix.AT_SYMLINK_NOFOLLOW); serr == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
			if r.avoid.ids[idOf(&st)] {
				return pathErr("remove", name, ErrAvoided)
			}
			err = unix.Unlinkat(dir, base, unix.AT_REMOVEDIR)
		}
	}
	if err != nil {
		return pathErr("remove", name, err)
	}
	return nil
}

// Symlink creates name as a symbolic link to target; target is stored as
// given and never resolved here.
func (r *Root) Symlink(target, name string) error {
	dir, base, err := r.parent("symlink", name, true)
	if err != nil {
		return err
	}
	defer r.release(dir)
	if err := unix.Symlinkat(target, dir, base); err != nil {
		return pathErr("symlink", name, err)
	}
	return nil
}

// parent opens the directory holding name and returns it with name's last
// component. guard: the call will change something there.
func (r *Root) parent(op, name string, guard bool) (int, string, error) {
	parts, err := split(op, name)
	if err != nil {
		return -1, "", err
	}
	if len(parts) == 0 {
		if guard {
			return -1, "", &iofs.PathError{Op: op, Path: name, Err: unix.EISDIR}
		}
		return r.fd, ".", nil
	}
	dir, err := r.walk(op, parts[:len(parts)-1], guard, 0)
	if err != nil {
		return -1, "", err
	}
	return dir, parts[len(parts)-1], nil
}

// walk opens the directory parts[0]/parts[1]/… beneath the root, one
// component at a time without following links. guard: the caller will
// change something there, so avoided directories are refused. A non-zero
// perm creates missing directories with it.
func (r *Root) walk(op string, parts []string, guard bool, perm iofs.FileMode) (int, error) {
	cur := r.fd
	if guard {
		if err := r.check(cur); err != nil {
			return -1, pathErr(op, ".", err)
		}
	}
	for i, part := range parts {
		next, err := openAt(cur, part, unix.O_RDONLY|unix.O_DIRECTORY)
		if err == unix.ENOENT && perm != 0 {
			if err = unix.Mkdirat(cur, part, uint32(perm.Perm())); err == nil || err == unix.EEXIST {
				next, err = openAt(cur, part, unix.O_RDONLY|unix.O_DIRECTORY)
			}
		}
		if err != nil {
			err = linkErr(cur, part, err)
		}
		r.release(cur)
		if err == nil && guard {
			if err = r.check(next); err != nil {
				unix.Close(next)
			}
		}
		if err != nil {
			at := strings.Join(parts[:i+1], "/")
			return -1, pathErr(op, at, err)
		}
		cur = next
	}
	return cur, nil
}

// check refuses the open directory fd if it is one to avoid.
func (r *Root) check(fd int) error {
	if len(r.avoid.ids) == 0 {
		return nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if r.avoid.ids[idOf(&st)] {
		return ErrAvoided
	}
	return nil
}

// release closes fd unless it is the root's own.
func (r *Root) release(fd int) {
	if fd != r.fd && fd >= 0 {
		unix.Close(fd)
	}
}

// pathErr is the error of op on name; a component the walk refused
// (ErrSymlink, ErrAvoided) is named in a *WalkError instead.
func pathErr(op, name string, err error) error {
	if err == ErrSymlink || err == ErrAvoided {
		return &WalkError{Op: op, Path: name, Err: err}
	}
	return &iofs.PathError{Op: op, Path: name, Err: err}
}

// WalkError is a path a Root would not go through: Path (relative to the
// root, up to the offending component) is a symlink (Err is ErrSymlink)
// or inside an avoided directory (ErrAvoided).
type WalkError struct {
	Op   string
	Path string
	Err  error
}

func (e *WalkError) Error() string { return e.Path + " " + e.Err.Error() }
func (e *WalkError) Unwrap() error { return e.Err }

// linkErr turns the error of an O_NOFOLLOW open of name in dir into
// ErrSymlink when name was a symlink. Linux says ELOOP, which here has no
// other cause (no link is ever followed); other systems say ENOTDIR or
// EMLINK, and then name is looked at again: a link, or a directory that
// was none a moment ago, is one swapped mid-way.
func linkErr(dir int, name string, err error) error {
	switch err {
	case unix.ELOOP:
		return ErrSymlink
	case unix.ENOTDIR, unix.EMLINK:
		var st unix.Stat_t
		if unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
			if t := st.Mode & unix.S_IFMT; t == unix.S_IFLNK || t == unix.S_IFDIR {
				return ErrSymlink
			}
		}
	}
	return err
}

// split cleans name into its components; "." is the root itself.
func split(op, name string) ([]string, error) {
	if path.IsAbs(name) || name == "" {
		return nil, &iofs.PathError{Op: op, Path: name, Err: ErrEscape}
	}
	clean := path.Clean(name)
	if clean == "." {
		return nil, nil
	}
	parts := strings.Split(clean, "/")
	if parts[0] == ".." {
		return nil, &iofs.PathError{Op: op, Path: name, Err: ErrEscape}
	}
	return parts, nil
}

// openAt opens name in dir without following a final symlink, retrying
// an interrupted call.
func openAt(dir int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dir, name, flags|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

func idOf(st *unix.Stat_t) fileID { return fileID{uint64(st.Dev), uint64(st.Ino)} }

// fileInfo is fs.FileInfo over a stat result.
type fileInfo struct {
	name string
	st   unix.Stat_t
}

func (fi *fileInfo) Name() string       { return fi.name }
func (fi *fileInfo) Size() int64        { return fi.st.Size }
func (fi *fileInfo) IsDir() bool        { return fi.Mode().IsDir() }
func (fi *fileInfo) Sys() any           { return &fi.st }
func (fi *fileInfo) ModTime() time.Time { return time.Unix(fi.st.Mtim.Unix()) }

func (fi *fileInfo) Mode() iofs.FileMode {
	m := uint32(fi.st.Mode)
	mode := iofs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		mode |= iofs.ModeDir
	case unix.S_IFLNK:
		mode |= iofs.ModeSymlink
	case unix.S_IFIFO:
		mode |= iofs.ModeNamedPipe
	case unix.S_IFSOCK:
		mode |= iofs.ModeSocket
	case unix.S_IFCHR:
		mode |= iofs.ModeDevice | iofs.ModeCharDevice
	case unix.S_IFBLK:
		mode |= iofs.ModeDevice
	}
	if m&unix.S_ISUID != 0 {
		mode |= iofs.ModeSetuid
	}
	if m&unix.S_ISGID != 0 {
		mode |= iofs.ModeSetgid
	}
	if m&unix.S_ISVTX != 0 {
		mode |= iofs.ModeSticky
	}
	return mode
}
