package engine

import (
	"context"
	"fmt"
)

// Compacted is what a compaction did: the events its summary covers and
// the session's last sequence after it.
type Compacted struct {
	From, To int
	Last     int
}

// Compact has the model summarise the whole of session id (which must
// exist) and appends the summary; holder is who writes the session, shown
// to a second writer. A session open here is compacted where it is (after
// its queued turns); otherwise it is opened for the compaction and closed
// after.
func (h *Host) Compact(ctx context.Context, id, holder string) (Compacted, error) {
	s, shared := h.Get(id)
	if !shared {
		var err error
		if s, err = h.Open(ctx, OpenOptions{ID: id, Existing: true, Holder: holder}); err != nil {
			return Compacted{}, err
		}
		defer s.Close()
	}
	covered := s.Snapshot().LastSequence()
	if err := s.Compact(ctx); err != nil {
		return Compacted{}, fmt.Errorf("compaction failed, the session is unchanged: %w", err)
	}
	return Compacted{From: 1, To: covered, Last: s.Snapshot().LastSequence()}, nil
}

// CompactText appends text as the summary of events from..to of session
// id (which must exist), without the model: a summary written elsewhere.
// holder is who writes the session, shown to a second writer.
func (h *Host) CompactText(id, holder, text string, from, to int) (Compacted, error) {
	w, err := h.Store().OpenWriter(id, "", holder)
	if err != nil {
		return Compacted{}, err
	}
	defer w.Close()
	if _, err := w.Compact(text, from, to); err != nil {
		return Compacted{}, err
	}
	return Compacted{From: from, To: to, Last: w.Session().LastSequence()}, nil
}
