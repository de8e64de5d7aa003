package agent

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/openseek/openseek/internal/session"
)

// MemoryLog is a Log that lives only in memory, for --no-session runs.
type MemoryLog struct {
	mu sync.Mutex
	s  *session.Session
}

// NewMemoryLog returns an empty in-memory session.
func NewMemoryLog(id, systemPrompt string) *MemoryLog {
	return &MemoryLog{s: &session.Session{ID: id, SystemPrompt: systemPrompt}}
}

// Session returns a snapshot of the log.
func (m *MemoryLog) Session() *session.Session {
	m.mu.Lock()
	defer m.mu.Unlock()
	cp := *m.s
	cp.Events = m.s.Events[:len(m.s.Events):len(m.s.Events)]
	return &cp
}

// Append adds an item with the next sequence number.
func (m *MemoryLog) Append(item session.Item) (session.Event, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ev := session.Event{Sequence: len(m.s.Events) + 1, TS: time.Now().UnixMilli(), Item: item}
	m.s.Events = append(m.s.Events, ev)
	return ev, nil
}

// AppendAll adds items in order with the next sequence numbers.
func (m *MemoryLog) AppendAll(items ...session.Item) ([]session.Event, error) {
	evs := make([]session.Event, len(items))
	for i, item := range items {
		evs[i], _ = m.Append(item)
	}
	return evs, nil
}

// Compact appends a summary of from..to, validated as the durable store
// validates it.
func (m *MemoryLog) Compact(content string, from, to int) (session.Event, error) {
	m.mu.Lock()
	last := len(m.s.Events)
	m.mu.Unlock()
	switch {
	case strings.TrimSpace(content) == "":
		return session.Event{}, errors.New("summary content must not be empty")
	case from <= 0:
		return session.Event{}, errors.New("summary from_sequence must be positive")
	case to < from:
		return session.Event{}, errors.New("summary to_sequence must be >= from_sequence")
	case to > last:
		return session.Event{}, fmt.Errorf("summary range %d..%d exceeds last sequence %d", from, to, last)
	}
	return m.Append(&session.Summary{Content: content, From: from, To: to})
}
