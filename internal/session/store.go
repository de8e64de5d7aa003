package session

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// Store is a session root (e.g. <workspace>/.openseek) holding sessions
// under sessions/<id>/.
type Store struct {
	root string
	now  func() time.Time // event stamps; replaced in tests
}

// NewStore returns the store rooted at root. Nothing is created until a
// session is written.
func NewStore(root string) *Store { return &Store{root: root, now: time.Now} }

// Root is the session root.
func (s *Store) Root() string { return s.root }

// Dir is the directory of session id: <root>/sessions/<id>.
func (s *Store) Dir(id string) string { return filepath.Join(s.root, "sessions", id) }

// Path is the log file of session id:
// <root>/sessions/<id>/openseek_session-<id>.jsonl.
func (s *Store) Path(id string) string {
	return filepath.Join(s.Dir(id), "openseek_session-"+id+".jsonl")
}

// Exists reports whether id is valid and its session file exists.
func (s *Store) Exists(id string) bool {
	if ValidateID(id) != nil {
		return false
	}
	_, err := os.Stat(s.Path(id))
	return err == nil
}

// notExistError reports a missing session; errors.Is(err, fs.ErrNotExist).
type notExistError struct{ id string }

func (e *notExistError) Error() string        { return fmt.Sprintf("session %s does not exist", e.id) }
func (e *notExistError) Unwrap() error        { return fs.ErrNotExist }
func (e *notExistError) Is(target error) bool { return target == fs.ErrNotExist }

// Load reads session id under the shared session lock. It never writes,
// never creates anything and never picks a session implicitly; a missing
// session is an error matching fs.ErrNotExist.
func (s *Store) Load(id string) (*Session, error) {
	if err := ValidateID(id); err != nil {
		return nil, err
	}
	dir := s.Dir(id)
	// Checking the file first keeps Load from creating session.lock in
	// the directory of a session that a writer has opened but not written.
	if _, err := os.Stat(s.Path(id)); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &notExistError{id}
		}
		return nil, fmt.Errorf("load session %s: %w", id, err)
	}
	l, err := lockSession(dir, unix.LOCK_SH)
	if err != nil {
		return nil, fmt.Errorf("load session %s: %w", id, err)
	}
	defer unlock(l)
	sess, _, err := s.read(id)
	return sess, err
}

// fingerprint identifies a version of the session file cheaply, for the
// append fast path: any other writer changes size, mtime or ctime.
type fingerprint struct {
	size         int64
	mtime, ctime unix.Timespec
}

func fingerprintOf(st *unix.Stat_t) fingerprint {
	return fingerprint{size: st.Size, mtime: st.Mtim, ctime: st.Ctim}
}

// read loads the session file (the caller holds session.lock) and returns
// the fingerprint of the bytes it parsed.
func (s *Store) read(id string) (*Session, fingerprint, error) {
	f, err := os.Open(s.Path(id))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fingerprint{}, &notExistError{id}
		}
		return nil, fingerprint{}, fmt.Errorf("load session %s: %w", id, err)
	}
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return nil, fingerprint{}, fmt.Errorf("load session %s: %w", id, err)
	}
	data := make([]byte, 0, st.Size+1)
	data, err = readAll(f, data)
	if err != nil {
		return nil, fingerprint{}, fmt.Errorf("load session %s: %w", id, err)
	}
	sess, err := parseFile(id, data)
	if err != nil {
		return nil, fingerprint{}, err
	}
	return sess, fingerprintOf(&st), nil
}

func readAll(r io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}
