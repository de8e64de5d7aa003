package sandbox

import (
	"errors"
	"io/fs"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/openseek/openseek/internal/secretfile"
)

// secretWatch hides the workspace's secret files that appear after a
// sandbox helper started (a command wrote a .env, a tool did, the user
// did): an inotify watch on each directory the start-up walk visited
// reports every file created, moved in or written there, and catchUp,
// called before each command, hides the secret ones among them. A
// command thus never reads a secret file that existed when it started,
// at the cost of one read of the inotify queue per command (no walk).
// When the kernel cannot watch every directory (the watch limit) or
// drops events (a full queue), catchUp walks the workspace instead.
type secretWatch struct {
	pol  Policy
	fd   int              // the inotify instance; -1 when watching failed
	dirs map[int32]string // watch descriptor → directory
	buf  [64 << 10]byte   // one read of the queue
	walk bool             // watching failed: walk at every catchUp
	// hidden counts the files hidden since the start: a spare made
	// before the newest was hidden lacks its mask.
	hidden int
}

// watchMask is what a watched directory reports.
const watchMask = unix.IN_CREATE | unix.IN_MOVED_TO | unix.IN_CLOSE_WRITE | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW

// newSecretWatch makes the watch for p, whose secret files the caller
// hides; add each directory the start-up walk visits, before its
// entries are read.
func newSecretWatch(p Policy) *secretWatch {
	w := &secretWatch{pol: p, dirs: map[int32]string{}}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		w.fd, w.walk = -1, true
		return w
	}
	w.fd = fd
	return w
}

// add watches dir; a failure (the watch limit) falls back to walking.
func (w *secretWatch) add(dir string) {
	if w.walk {
		return
	}
	wd, err := unix.InotifyAddWatch(w.fd, dir, watchMask)
	if err != nil {
		w.stop()
		return
	}
	w.dirs[int32(wd)] = dir
}

// stop gives up watching: from now on catchUp walks.
func (w *secretWatch) stop() {
	if w.fd >= 0 {
		unix.Close(w.fd)
	}
	w.fd, w.walk, w.dirs = -1, true, nil
}

// catchUp hides the secret files that appeared since the last call.
func (w *secretWatch) catchUp() error {
	if w.walk {
		return w.hideAll(w.pol.Workspace)
	}
	var files []string
	for {
		n, err := unix.Read(w.fd, w.buf[:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if errors.Is(err, unix.EAGAIN) || n <= 0 {
			break
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			name := w.buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			off += unix.SizeofInotifyEvent + int(ev.Len)
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				// Events were lost: look everywhere once.
				if err := w.hideAll(w.pol.Workspace); err != nil {
					return err
				}
				continue
			}
			dir, ok := w.dirs[ev.Wd]
			if !ok {
				continue
			}
			if ev.Mask&unix.IN_IGNORED != 0 {
				delete(w.dirs, ev.Wd)
				continue
			}
			path := filepath.Join(dir, unix.ByteSliceToString(name))
			if ev.Mask&unix.IN_ISDIR != 0 {
				// A new directory: watch it and hide what it holds
				// already (it may have been filled before the watch).
				if err := w.hideAll(path); err != nil {
					return err
				}
				continue
			}
			files = append(files, path)
		}
	}
	for _, path := range files {
		if err := w.hide(path); err != nil {
			return err
		}
	}
	return nil
}

// hideAll walks root, watching its directories, and hides the secret
// files not hidden yet (a hidden one is /dev/null, not a regular file).
func (w *secretWatch) hideAll(root string) error {
	var paths []string
	walkSecrets(w.pol, root, w.add, func(path string) { paths = append(paths, path) })
	for _, path := range paths {
		if err := w.hideFile(path); err != nil {
			return err
		}
	}
	return nil
}

// hide hides path if it is a secret file that is not hidden yet.
func (w *secretWatch) hide(path string) error {
	if secret, token := secretfile.Named(filepath.Base(path)); !secret && !token {
		return nil
	}
	rel, err := filepath.Rel(w.pol.Workspace, path)
	if err != nil || !regular(path) || !w.pol.Secrets.Secret(path, filepath.ToSlash(rel)) {
		return nil
	}
	return w.hideFile(path)
}

func (w *secretWatch) hideFile(path string) error {
	if err := maskFile(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // gone meanwhile
		}
		return err
	}
	w.hidden++
	return nil
}
