package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// File names inside a session directory.
const (
	lockName  = "session.lock"
	leaseName = "writer.lock"
	titleName = "session-title"
)

// lockSession takes a blocking flock on <dir>/session.lock: unix.LOCK_SH
// for reads, unix.LOCK_EX for writes. The file is created if missing and
// never deleted; nothing is stored in it.
func lockSession(dir string, how int) (*os.File, error) {
	path := filepath.Join(dir, lockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil && how == unix.LOCK_SH && (errors.Is(err, os.ErrPermission) || errors.Is(err, unix.EROFS)) {
		f, err = os.Open(path) // a read-only store can still be read under lock
	}
	if err != nil {
		return nil, fmt.Errorf("open session lock: %w", err)
	}
	if err := flock(f, how); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, nil
}

// unlock releases a flock taken by lockSession.
func unlock(f *os.File) {
	_ = flock(f, unix.LOCK_UN)
	_ = f.Close()
}

func flock(f *os.File, how int) error {
	for {
		err := unix.Flock(int(f.Fd()), how)
		if err != unix.EINTR {
			return err
		}
	}
}

// Holder names the process holding a session's writer lease; it is the
// JSON content of writer.lock.
type Holder struct {
	PID         int    `json:"pid"`
	Host        string `json:"host"`
	Command     string `json:"command"`
	StartedAtMS int64  `json:"started_at_ms"`
}

// ErrBusy is matched (errors.Is) by the error OpenWriter returns when
// another writer holds the session.
var ErrBusy = errors.New("session is open for writing by another process")

// BusyError reports a session whose writer lease is held elsewhere.
type BusyError struct {
	ID string
	// Holder is nil when the lease file could not be read (the holder may
	// be between taking the lock and recording itself).
	Holder *Holder
}

func (e *BusyError) Error() string {
	const advice = "; wait for it to finish or pick another session"
	h := e.Holder
	if h == nil {
		return fmt.Sprintf("session %s is open for writing by another process%s", e.ID, advice)
	}
	who := fmt.Sprintf("pid %d", h.PID)
	if host, err := os.Hostname(); err == nil && h.Host != "" && h.Host != host {
		who += " on " + h.Host
	}
	if h.Command != "" {
		who += " (" + h.Command + ")"
	}
	since := time.UnixMilli(h.StartedAtMS).Format(time.RFC3339)
	return fmt.Sprintf("session %s is open for writing by %s since %s%s", e.ID, who, since, advice)
}

// Is makes errors.Is(err, ErrBusy) hold.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// lease is a held writer lease: an exclusive flock on writer.lock kept for
// the writer's life. The kernel drops it if the process dies.
type lease struct {
	f    *os.File
	path string
}

// acquireLease takes the lease without blocking or fails with *BusyError.
func acquireLease(dir, id string, h Holder) (*lease, error) {
	path := filepath.Join(dir, leaseName)
	// A releasing writer may unlink the lease file of a session it never
	// wrote; locking an unlinked inode would be no lease at all, so check
	// the locked file is still the one at path, and retry otherwise.
	for attempt := 0; attempt < 8; attempt++ {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("open writer lease for session %s: %w", id, err)
		}
		if err := flock(f, unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				return nil, &BusyError{ID: id, Holder: readHolder(path)}
			}
			return nil, fmt.Errorf("lock writer lease for session %s: %w", id, err)
		}
		var held, named unix.Stat_t
		if unix.Fstat(int(f.Fd()), &held) != nil || unix.Stat(path, &named) != nil || held.Ino != named.Ino || held.Dev != named.Dev {
			unlock(f)
			continue
		}
		b, _ := json.Marshal(h)
		if err := f.Truncate(0); err == nil {
			_, err = f.WriteAt(b, 0)
		}
		if err != nil {
			unlock(f)
			return nil, fmt.Errorf("record writer lease for session %s: %w", id, err)
		}
		return &lease{f: f, path: path}, nil
	}
	return nil, fmt.Errorf("lock writer lease for session %s: lease file keeps being replaced", id)
}

func readHolder(path string) *Holder {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var h Holder
	if json.Unmarshal(b, &h) != nil || h.PID == 0 {
		return nil
	}
	return &h
}

// release drops the lease. With remove, the lease file is unlinked first
// (while still locked) so an unused session leaves no files behind.
func (l *lease) release(remove bool) error {
	var err error
	if remove {
		err = os.Remove(l.path)
	} else {
		err = l.f.Truncate(0)
	}
	unlock(l.f)
	return err
}
