package session

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/openseek/openseek/internal/beneath"
)

// Repaired is what Repair did to a session file.
type Repaired struct {
	Kept  int    // events kept: the readable prefix
	Aside string // where the original file was set aside ("" when it loaded as it was)
}

// Repair makes a session that does not load loadable again without losing
// anything: the longest prefix of events that loads stays as the session,
// and the original file is set aside beside it, untouched, as
// <file>.corrupt-<unix-ms>. A session that loads is left alone; one whose
// header is unreadable (an unknown format version, say) is refused, since
// nothing could be kept. The session must not be open for writing.
func (s *Store) Repair(id string) (Repaired, error) {
	if err := ValidateID(id); err != nil {
		return Repaired{}, err
	}
	dir := s.Dir(id)
	if _, err := os.Stat(s.Path(id)); err != nil {
		return Repaired{}, &notExistError{id}
	}
	l, err := acquireLease(dir, id, Holder{PID: os.Getpid(), Command: "openseek sessions repair"})
	if err != nil {
		return Repaired{}, err
	}
	defer l.release(false)
	lk, err := lockSession(dir, unix.LOCK_EX)
	if err != nil {
		return Repaired{}, err
	}
	defer unlock(lk)
	data, err := os.ReadFile(s.Path(id))
	if err != nil {
		return Repaired{}, fmt.Errorf("repair session %s: %w", id, err)
	}
	if sess, err := parseFile(id, data); err == nil {
		return Repaired{Kept: len(sess.Events)}, nil
	}
	header, rest, _ := bytes.Cut(data, []byte{'\n'})
	if _, err := parseHeader(id, header); err != nil {
		return Repaired{}, fmt.Errorf("session %s cannot be repaired: its header does not load (%v); nothing was changed", id, err)
	}
	lines := splitLines(rest)
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	// Loading is monotone in the prefix (a prefix of a loadable log
	// loads), so the longest loadable prefix is found by bisection.
	prefix := func(n int) []byte {
		var b bytes.Buffer
		b.Write(header)
		b.WriteByte('\n')
		for _, l := range lines[:n] {
			b.Write(l)
			b.WriteByte('\n')
		}
		return b.Bytes()
	}
	n := sort.Search(len(lines)+1, func(n int) bool {
		_, err := parseFile(id, prefix(n))
		return err != nil
	}) - 1
	if n < 0 {
		return Repaired{}, fmt.Errorf("session %s cannot be repaired: no prefix of it loads; nothing was changed", id)
	}
	good := prefix(n)
	sess, err := parseFile(id, good)
	if err != nil {
		return Repaired{}, errors.Join(fmt.Errorf("session %s cannot be repaired; nothing was changed", id), err)
	}
	aside := s.Path(id) + ".corrupt-" + strconv.FormatInt(s.now().UnixMilli(), 10)
	if err := os.Link(s.Path(id), aside); err != nil {
		return Repaired{}, fmt.Errorf("set the corrupt file aside: %w; nothing was changed", err)
	}
	if err := beneath.WriteFile(s.Path(id), good, 0o600); err != nil {
		return Repaired{}, fmt.Errorf("replace the session file: %w (the original is at %s)", err, aside)
	}
	return Repaired{Kept: len(sess.Events), Aside: filepath.Clean(aside)}, nil
}
