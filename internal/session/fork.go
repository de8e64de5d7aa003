package session

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ForkPrefix starts the notice "[fork] parent=<id> sequence=<n>" that ends
// the copied events of a forked session: the session was made from the
// first n events of session id. Like the snapshot and rewind markers it
// is bookkeeping the projection never shows the model.
const ForkPrefix = "[fork] parent="

// ForkMarker is the notice linking a fork to its parent.
func ForkMarker(parent string, at int) string {
	return ForkPrefix + parent + " sequence=" + strconv.Itoa(at)
}

// parseFork returns the parent and sequence of a fork marker.
func parseFork(c string) (string, int, bool) {
	rest, ok := strings.CutPrefix(c, ForkPrefix)
	if !ok {
		return "", 0, false
	}
	parent, seq, ok := strings.Cut(rest, " sequence=")
	if !ok || parent == "" || strings.ContainsAny(parent, " \n") {
		return "", 0, false
	}
	n, err := strconv.Atoi(seq)
	if err != nil || n <= 0 || strconv.Itoa(n) != seq {
		return "", 0, false
	}
	return parent, n, true
}

// ForkedFrom is the session this one was forked from and the last
// sequence it copied; ok is false for a session that is not a fork.
func (s *Session) ForkedFrom() (parent string, at int, ok bool) {
	for _, e := range s.Events {
		if n, isNotice := e.Item.(*Notice); isNotice {
			if parent, at, ok := parseFork(n.Content); ok {
				return parent, at, true
			}
		}
	}
	return "", 0, false
}

// Fork makes session id from the first at events of session parent: the
// same system prompt, the events byte for byte (sequences and times
// kept, so summaries and snapshot markers still name the right events),
// then a fork marker. Resuming id continues the conversation from there;
// the parent is not touched. id must not exist yet. Nothing of the
// workspace changes: the copied snapshot markers let a rewind of the fork
// put the files back when asked.
func (s *Store) Fork(parent string, at int, id string) (*Session, error) {
	src, err := s.Load(parent)
	if err != nil {
		return nil, err
	}
	if last := src.LastSequence(); at < 1 || at > last {
		return nil, fmt.Errorf("fork session %s: --at %d is outside its events 1..%d", parent, at, last)
	}
	if err := ValidateID(id); err != nil {
		return nil, err
	}
	if s.Exists(id) {
		return nil, fmt.Errorf("fork session %s: session %s already exists; pick another id", parent, id)
	}
	w, err := s.OpenWriter(id, src.SystemPrompt, "openseek sessions fork")
	if err != nil {
		return nil, fmt.Errorf("fork session %s: %w", parent, err)
	}
	defer w.Close()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sess.LastSequence() > 0 {
		return nil, fmt.Errorf("fork session %s: session %s already exists; pick another id", parent, id)
	}
	// Sequences are contiguous from 1: the first at events are [:at].
	events := slices.Clip(slices.Clone(src.Events[:at]))
	marker := Event{Sequence: at + 1, TS: s.now().UnixMilli(), Item: &Notice{Content: ForkMarker(parent, at)}}
	next := &Session{ID: id, SystemPrompt: src.SystemPrompt, Events: append(events, marker)}
	lk, err := lockSession(s.Dir(id), unix.LOCK_EX)
	if err != nil {
		return nil, fmt.Errorf("fork session %s: %w", parent, err)
	}
	defer unlock(lk)
	fp, err := w.rewrite(next)
	if err != nil {
		return nil, fmt.Errorf("fork session %s: %w", parent, err)
	}
	w.sess, w.fp, w.synced = next, fp, true
	return next, nil
}
