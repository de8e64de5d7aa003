// Package hub is a session's event stream: one publisher (the session's
// turn loop) fanned out to any number of subscribers, each a cursor into a
// bounded window of sequenced, once-encoded events. Publishing never
// blocks; a subscriber that falls out of the window is told what it missed
// (*Lag) and where the stream resumes. It depends on protocol alone.
package hub

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/openseek/openseek/protocol"
)

// Hub fans one session's event stream out to any number of subscribers
// without ever blocking the publisher (the turn loop).
//
// Every event gets a sequence number (1, 2, … for the life of the hub)
// and is encoded once; the hub keeps the most recent events in a window
// bounded by count and bytes. A subscriber is only a cursor into that
// window plus a wake-up channel, so an idle subscriber costs a few hundred
// bytes, and a slow one costs nothing until it falls out of the window:
// then its next read reports a *Lag saying what was missed and where the
// stream resumes, and the client re-reads the session for the gap.
type Hub struct {
	mu       sync.Mutex
	ring     []Entry // circular; ring[(start+i)%len] for i < n
	start, n int
	limit    int // most events kept; ring grows to it as events come
	bytes    int
	next     int64 // sequence of the next event
	maxBytes int
	subs     map[*Subscription]struct{}
	closed   bool
	// asking are the approval_requested entries not yet resolved, oldest
	// first: a subscriber that starts after one still sees it (Replay).
	asking []Entry
}

// Entry is one published event with its sequence number and wire line
// (protocol.Emit's bytes, no newline). Line is shared: never modify it.
type Entry struct {
	Seq   int64
	Event protocol.Event
	Line  []byte
	// Replay: an approval_requested from before the subscription's start,
	// still waiting for its answer, repeated first so that a client
	// opened late can answer it. Seq is its original sequence; the
	// subscription's cursor does not move for it, and a client that saw
	// it already knows it by its id.
	Replay bool
}

// Default bounds of a hub's replay window.
const (
	DefaultWindowEvents = 4096
	DefaultWindowBytes  = 8 << 20
)

// NewHub makes a hub that keeps at most events events and about maxBytes
// bytes of encoded lines for replay (0 = the defaults).
func NewHub(events, maxBytes int) *Hub {
	if events <= 0 {
		events = DefaultWindowEvents
	}
	if maxBytes <= 0 {
		maxBytes = DefaultWindowBytes
	}
	return &Hub{limit: events, next: 1, maxBytes: maxBytes, subs: map[*Subscription]struct{}{}}
}

// grow makes room for one more event in a full ring below its limit: a
// run of a few steps publishes a few dozen events, and a ring of the
// whole window (224 KB) made at the start was live heap for the run.
func (h *Hub) grow() {
	ring := make([]Entry, min(max(2*len(h.ring), 64), h.limit))
	for i := range h.n {
		ring[i] = h.ring[(h.start+i)%len(h.ring)]
	}
	h.ring, h.start = ring, 0
}

// Publish appends e to the stream and wakes every subscriber. It never
// blocks on a subscriber. It returns e's sequence number (0 after Close).
func (h *Hub) Publish(e protocol.Event) int64 {
	line := protocol.Emit(e)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return 0
	}
	seq := h.next
	h.next++
	if h.n == h.limit {
		h.evict()
	}
	if h.n == len(h.ring) {
		h.grow()
	}
	h.ring[(h.start+h.n)%len(h.ring)] = Entry{Seq: seq, Event: e, Line: line}
	h.n++
	switch e := e.(type) {
	case protocol.ApprovalRequested:
		h.asking = append(h.asking, Entry{Seq: seq, Event: e, Line: line, Replay: true})
	case protocol.ApprovalResolved:
		h.asking = slices.DeleteFunc(h.asking, func(a Entry) bool { return a.Event.(protocol.ApprovalRequested).ID == e.ID })
	}
	h.bytes += len(line)
	for h.bytes > h.maxBytes && h.n > 1 {
		h.evict()
	}
	for s := range h.subs {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
	return seq
}

func (h *Hub) evict() {
	old := &h.ring[h.start]
	h.bytes -= len(old.Line)
	*old = Entry{}
	h.start = (h.start + 1) % len(h.ring)
	h.n--
}

// Head is the sequence number of the newest event (0 before the first).
func (h *Hub) Head() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.next - 1
}

// Subscribe returns a subscription that reads the events after since:
// since 0 replays the whole window, Head() reads only what comes next.
// Approval requests still waiting from before since come first (Replay).
func (h *Hub) Subscribe(since int64) *Subscription {
	s := &Subscription{h: h, cursor: since + 1, wake: make(chan struct{}, 1)}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, a := range h.asking {
		if a.Seq <= since {
			s.replay = append(s.replay, a)
		}
	}
	if h.closed {
		s.closed = true
	} else {
		h.subs[s] = struct{}{}
	}
	if since > h.next-1 {
		// A sequence this hub never issued (the server restarted):
		// the client must re-read.
		s.future = true
	}
	return s
}

// Subscribers is the number of open subscriptions.
func (h *Hub) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// Close ends the stream: subscribers read what is left, then ErrClosed.
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.closed = true
	for s := range h.subs {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// ErrClosed is returned by Next once the hub is closed and drained.
var ErrClosed = errors.New("the session's event stream is closed")

// Lag is returned by Next when events the subscriber had not read left
// the window (or never existed in this process): Since is the last
// sequence it read, Resume the first it can read now.
type Lag struct{ Since, Resume int64 }

func (l *Lag) Error() string {
	return fmt.Sprintf("events %d to %d are no longer in memory; re-read the session and continue from %d", l.Since+1, l.Resume-1, l.Resume)
}

// Reset is the protocol event that tells a client about l.
func (l *Lag) Reset() protocol.StreamReset {
	return protocol.StreamReset{Since: l.Since, Resume: l.Resume, Reason: l.Error()}
}

// Subscription is one reader's cursor into a Hub.
type Subscription struct {
	h      *Hub
	cursor int64 // next sequence to read
	wake   chan struct{}
	closed bool
	future bool
	replay []Entry // waiting approval requests to repeat first
}

// Next blocks until events are available, then returns up to max of them
// (max <= 0: all available) in order. After a *Lag the cursor has moved to
// the oldest event still held, so the next call goes on from there. It
// returns ctx.Err() when ctx ends and ErrClosed once the hub is closed and
// every event was read.
func (s *Subscription) Next(ctx context.Context, max int) ([]Entry, error) {
	for {
		batch, ok, err := s.poll(max)
		if ok {
			return batch, err
		}
		select {
		case <-s.wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Pending reports whether events are ready to read without blocking.
func (s *Subscription) Pending() bool {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	return len(s.replay) > 0 || s.cursor < s.h.next
}

// Cursor is the sequence of the next event the subscription will read.
func (s *Subscription) Cursor() int64 {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	return s.cursor
}

func (s *Subscription) poll(max int) ([]Entry, bool, error) {
	h := s.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if s.future {
		s.future = false
		lag := &Lag{Since: s.cursor - 1, Resume: h.next}
		s.cursor = h.next
		return nil, true, lag
	}
	if len(s.replay) > 0 {
		out := s.replay
		s.replay = nil
		return out, true, nil
	}
	oldest := h.next - int64(h.n)
	if s.cursor < oldest {
		lag := &Lag{Since: s.cursor - 1, Resume: oldest}
		s.cursor = oldest
		return nil, true, lag
	}
	avail := int(h.next - s.cursor)
	if avail == 0 {
		if h.closed || s.closed {
			return nil, true, ErrClosed
		}
		return nil, false, nil
	}
	if max > 0 && avail > max {
		avail = max
	}
	out := make([]Entry, avail)
	first := int(s.cursor - oldest)
	for i := range out {
		out[i] = h.ring[(h.start+first+i)%len(h.ring)]
	}
	s.cursor += int64(avail)
	return out, true, nil
}

// Close ends the subscription; the hub forgets it.
func (s *Subscription) Close() {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	delete(s.h.subs, s)
	s.closed = true
}
