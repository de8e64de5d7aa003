package snapshot

// Earlier versions kept the side repository in the workspace
// (<workspace>/.openseek/snapshots, or <session root>/snapshots/<hash>).
// Its objects and its branch move into the new store on first use, so
// that every snapshot id an old session log names stays restorable; its
// config, hooks, info and index stay behind (a store in the workspace is
// not trusted to configure git), and then it is removed.

import (
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// adopt moves the objects and the snapshot branch of the legacy side
// repository at old into r, a repository just created. A legacy store
// whose formats this code does not read (not sha1 objects and files
// refs, or a symlink) is left where it is.
func (r *Repo) adopt(old string) error {
	if st, err := os.Lstat(old); err != nil || !st.IsDir() {
		return nil
	}
	legacy := &Repo{gitDir: old}
	if f := legacy.format(); !f.files || f.newHash == nil || f.newHash().Size() != sha1.Size {
		return nil
	}
	tip, ok, err := legacy.readRef(branch)
	if err != nil || !ok {
		return nil // no snapshot was taken there
	}
	src := filepath.Join(old, "objects")
	dst := filepath.Join(r.gitDir, "objects")
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		switch {
		case d.IsDir() && rel == "info":
			return filepath.SkipDir // alternates must not come along
		case d.IsDir():
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		case !d.Type().IsRegular():
			return nil // symlinks are not followed
		}
		return moveFile(p, filepath.Join(dst, rel))
	})
	if err != nil {
		return err
	}
	if err := r.writeRef(branch, tip); err != nil {
		return err
	}
	// The new store holds everything: the old one would only mislead.
	_ = os.RemoveAll(old)
	return nil
}

// moveFile puts src at dst: a hard link where the file system allows,
// else a copy. The source is removed with its store afterwards.
func moveFile(src, dst string) error {
	if err := os.Link(src, dst); err == nil || errors.Is(err, fs.ErrExist) {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil
		}
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return out.Close()
}
