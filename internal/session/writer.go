package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// ErrStale is matched (errors.Is) by an append refused because the file
// no longer holds the writer's snapshot.
var ErrStale = errors.New("stale session snapshot")

type staleError struct{ msg string }

func (e *staleError) Error() string        { return e.msg }
func (e *staleError) Is(target error) bool { return target == ErrStale }

// ErrGone is matched (errors.Is, as is ErrStale) by an append refused
// because the session's file was deleted after it was written: the
// session cannot record anything more, and every later append of the
// writer fails the same way at once, touching nothing on disk.
var ErrGone = errors.New("session file deleted")

// GoneError says which file went and what to do.
type GoneError struct{ ID, Path string }

func (e *GoneError) Error() string {
	return fmt.Sprintf("the file of session %s (%s) was deleted while the session was running, so nothing more can be recorded and the turn stopped; "+
		"start a new session (what the turn changed in the workspace stays), and leave .openseek/sessions alone while a session runs", e.ID, e.Path)
}

func (e *GoneError) Is(target error) bool { return target == ErrGone || target == ErrStale }

// Writer appends to one session while holding its writer lease. Its
// methods are safe for concurrent use; appends are serialised.
type Writer struct {
	store *Store
	id    string
	lease *lease

	mu     sync.Mutex
	sess   *Session
	fp     fingerprint // of the file as this writer last read or wrote it
	synced bool        // fp is valid and the file then held exactly sess
	closed bool
	gone   *GoneError // the file was deleted: every append fails with this
}

// OpenWriter takes the writer lease of session id (failing at once with a
// *BusyError naming the holder if another writer has it) and loads the
// session, or starts it in memory if it has no file yet: the file, header
// included, is written by the first append. When the session exists its
// header's system prompt wins over systemPrompt. holder names the command
// in the lease (e.g. "openseek run").
func (s *Store) OpenWriter(id, systemPrompt, holder string) (*Writer, error) {
	if err := ValidateID(id); err != nil {
		return nil, err
	}
	dir := s.Dir(id)
	h := Holder{PID: os.Getpid(), Command: holder, StartedAtMS: s.now().UnixMilli()}
	h.Host, _ = os.Hostname()
	var l *lease
	var err error
	// A closing writer of an unwritten session removes its directory; if
	// that races with this open, create the directory again.
	for range 3 {
		if err = os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("open session %s: %w", id, err)
		}
		if l, err = acquireLease(dir, id, h); !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	w := &Writer{store: s, id: id, lease: l}
	if _, err := os.Stat(s.Path(id)); errors.Is(err, fs.ErrNotExist) {
		w.sess = &Session{ID: id, SystemPrompt: systemPrompt}
		return w, nil
	}
	lk, err := lockSession(dir, unix.LOCK_SH)
	if err != nil {
		w.release()
		return nil, fmt.Errorf("open session %s: %w", id, err)
	}
	sess, fp, err := s.read(id)
	unlock(lk)
	switch {
	case err == nil:
		w.sess, w.fp, w.synced = sess, fp, true
	case errors.Is(err, fs.ErrNotExist):
		w.sess = &Session{ID: id, SystemPrompt: systemPrompt}
	default:
		w.release()
		return nil, err
	}
	return w, nil
}

// Session is the current snapshot. It is never modified afterwards (an
// append produces a new one); callers must not mutate it.
func (w *Writer) Session() *Session {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sess
}

// Append stamps item with the next sequence and the current time, makes it
// durable (fdatasync) and returns the stored event. It is refused if the
// file no longer holds this writer's snapshot; a torn tail left by a crash
// is repaired by rewriting the file atomically.
func (w *Writer) Append(item Item) (Event, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return Event{}, fmt.Errorf("append to session %s: writer is closed", w.id)
	}
	if w.gone != nil {
		return Event{}, w.gone
	}
	item, err := prepareItem(item, w.sess.LastSequence())
	if err != nil {
		return Event{}, fmt.Errorf("append to session %s: %w", w.id, err)
	}
	return w.append(item)
}

// Compact appends a summary of the inclusive range from..to (reference
// §3.5). Earlier lines are never rewritten.
func (w *Writer) Compact(content string, from, to int) (Event, error) {
	return w.Append(&Summary{Content: content, From: from, To: to})
}

func (w *Writer) append(item Item) (Event, error) {
	s, id := w.store, w.id
	dir := s.Dir(id)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) && w.sess.LastSequence() > 0 {
		// The whole directory went: do not make an empty one again.
		w.gone = &GoneError{ID: id, Path: s.Path(id)}
		return Event{}, w.gone
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Event{}, fmt.Errorf("append to session %s: %w", id, err)
	}
	lk, err := lockSession(dir, unix.LOCK_EX)
	if err != nil {
		return Event{}, fmt.Errorf("append to session %s: %w", id, err)
	}
	defer unlock(lk)
	exists, repair, err := w.verify()
	if err != nil {
		return Event{}, err
	}

	line := appendEvent(nil, Event{Sequence: w.sess.LastSequence() + 1, TS: s.now().UnixMilli(), Item: item})
	// Keep in memory exactly what a reload will see.
	stored, err := ParseEvent(line)
	if err != nil {
		return Event{}, fmt.Errorf("append to session %s: encode event: %w", id, err)
	}
	next := &Session{ID: id, SystemPrompt: w.sess.SystemPrompt, Events: append(w.sess.Events, stored)}

	var fp fingerprint
	if exists && !repair {
		fp, err = appendLine(s.Path(id), append(line, '\n'))
	} else {
		fp, err = w.rewrite(next)
	}
	if err != nil {
		w.synced = false // the file may hold a torn line; verify in full next time
		return Event{}, fmt.Errorf("append to session %s: %w", id, err)
	}
	w.sess, w.fp, w.synced = next, fp, true
	return stored, nil
}

// verify checks, under the exclusive lock, that the file still holds the
// writer's snapshot, and reports whether it exists and needs tail repair.
func (w *Writer) verify() (exists, repair bool, err error) {
	path := w.store.Path(w.id)
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		if errors.Is(err, unix.ENOENT) {
			if w.sess.LastSequence() > 0 {
				w.gone = &GoneError{ID: w.id, Path: path}
				return false, false, w.gone
			}
			return false, false, nil
		}
		return false, false, fmt.Errorf("append to session %s: %w", w.id, err)
	}
	if w.synced && fingerprintOf(&st) == w.fp {
		return true, w.sess.tornTail, nil
	}
	disk, _, err := w.store.read(w.id)
	if err != nil {
		return false, false, fmt.Errorf("append to session %s: %w", w.id, err)
	}
	if !sameEvents(disk, w.sess) {
		return false, false, &staleError{"stale session snapshot for " + w.id}
	}
	return true, disk.tornTail, nil
}

func sameEvents(a, b *Session) bool {
	if a.SystemPrompt != b.SystemPrompt || len(a.Events) != len(b.Events) {
		return false
	}
	var x, y []byte
	for i := range a.Events {
		x = appendEvent(x[:0], a.Events[i])
		y = appendEvent(y[:0], b.Events[i])
		if string(x) != string(y) {
			return false
		}
	}
	return true
}

// appendLine is the normal save path: one O_APPEND write, fdatasync.
func appendLine(path string, line []byte) (fingerprint, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fingerprint{}, err
	}
	defer f.Close()
	if _, err := f.Write(line); err != nil {
		return fingerprint{}, err
	}
	if err := fdatasync(f); err != nil {
		return fingerprint{}, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return fingerprint{}, err
	}
	return fingerprintOf(&st), nil
}

// rewrite writes the whole session atomically: the first durable write
// (header and first event together) and tail repair.
func (w *Writer) rewrite(next *Session) (fingerprint, error) {
	path := w.store.Path(w.id)
	if err := writeAtomic(path, encodeFile(next), w.store.dirChain(w.id)...); err != nil {
		return fingerprint{}, err
	}
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return fingerprint{}, err
	}
	return fingerprintOf(&st), nil
}

// Err is why the writer can append no more (a *GoneError), or nil.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.gone == nil {
		return nil
	}
	return w.gone
}

// Close releases the writer lease. A session that was never written
// leaves nothing behind. Close is idempotent.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	return w.release()
}

func (w *Writer) release() error {
	_, statErr := os.Stat(w.store.Path(w.id))
	unwritten := errors.Is(statErr, fs.ErrNotExist)
	err := w.lease.release(unwritten)
	if unwritten {
		_ = os.Remove(w.store.Dir(w.id)) // only if empty
	}
	if err != nil {
		return fmt.Errorf("release writer lease of session %s: %w", w.id, err)
	}
	return nil
}
