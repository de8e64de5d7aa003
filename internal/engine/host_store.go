package engine

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/openseek/openseek/internal/session"
)

// Store is a workspace's session store: the host's record of its
// sessions, which the offline commands (list, show, search, fork, repair,
// export) read without building a host.
type Store = session.Store

// Log is one session's recorded log, loaded from the store.
type Log = session.Session

// SearchHit is one place Store.Search found its text.
type SearchHit = session.Hit

// OpenStore is the session store under root (what Host.Store is for a
// host whose session root is root).
func OpenStore(root string) *Store { return session.NewStore(root) }

// NewSessionID is a fresh session id: prefix, then the time.
func NewSessionID(prefix string, now time.Time) string { return session.NewID(prefix, now) }

// IsReviewSession reports whether id is a review run's session, which
// listings leave out unless asked.
func IsReviewSession(id string) bool { return session.IsReview(id) }

// ParseLog reads a session log's bytes as session id.
func ParseLog(id string, data []byte) (*Log, error) { return session.Parse(id, data) }

// ReadLog is the bytes of session id's log, with an error a user can act
// on for an id that is not a session of the store.
func ReadLog(store *Store, id string) ([]byte, error) {
	if err := session.ValidateID(id); err != nil {
		return nil, err
	}
	if !store.Exists(id) {
		return nil, fmt.Errorf("session %s does not exist in %s; `openseek sessions list` shows the sessions", id, store.Root())
	}
	data, err := os.ReadFile(store.Path(id))
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", id, err)
	}
	return data, nil
}

// SubSessions loads the sub-agent sessions of session id (<id>-sr-N), in
// order, each followed by its own, skipping any that do not load.
func SubSessions(store *Store, id string) []*Log {
	ls, err := store.List()
	if err != nil {
		return nil
	}
	var out []*Log
	for _, l := range ls {
		if rest, ok := strings.CutPrefix(l.ID, id+"-sr-"); ok && !strings.Contains(rest, "-") {
			if s, err := store.Load(l.ID); err == nil {
				out = append(out, s)
				out = append(out, SubSessions(store, l.ID)...)
			}
		}
	}
	return out
}
