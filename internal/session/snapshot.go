package session

import (
	"errors"
	"fmt"

	"encoding/json"
)

// MarshalSnapshot renders the session as the single JSON line `openseek
// sessions show` prints (no trailing newline):
// {"version":1,"id":…,"system_prompt":…,"events":[…]} with each event
// exactly as in the file.
func (s *Session) MarshalSnapshot() []byte {
	b := make([]byte, 0, 64+len(s.SystemPrompt)+200*len(s.Events))
	b = appendHeader(b, s.ID, s.SystemPrompt)
	b = append(b[:len(b)-1], `,"events":[`...)
	for i, e := range s.Events {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendEvent(b, e)
	}
	return append(b, "]}"...)
}

type wireSnapshot struct {
	Version      *int              `json:"version"`
	ID           json.RawMessage   `json:"id"`
	SystemPrompt *string           `json:"system_prompt"`
	Events       []json.RawMessage `json:"events"`
}

// ParseSnapshot decodes the `sessions show` form: only version 1, id a
// string, a missing events list meaning none; sequences must be contiguous.
func ParseSnapshot(data []byte) (*Session, error) {
	var w wireSnapshot
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("session snapshot: %w", err)
	}
	if w.Version == nil {
		return nil, errors.New("session snapshot: missing field `version`")
	}
	if *w.Version != Version {
		return nil, fmt.Errorf("session snapshot uses unsupported version %d; this build reads version 1", *w.Version)
	}
	var id string
	if !isString(w.ID) || json.Unmarshal(w.ID, &id) != nil {
		return nil, errors.New("session snapshot: id must be a string")
	}
	if w.SystemPrompt == nil {
		return nil, errors.New("session snapshot: missing field `system_prompt`")
	}
	s := &Session{ID: id, SystemPrompt: *w.SystemPrompt, Events: make([]Event, 0, len(w.Events))}
	for i, raw := range w.Events {
		e, err := ParseEvent(raw)
		if err != nil {
			return nil, fmt.Errorf("session snapshot event %d: %w", i+1, err)
		}
		if e.Sequence != i+1 {
			return nil, fmt.Errorf("session event log sequence mismatch: expected %d, found %d", i+1, e.Sequence)
		}
		s.Events = append(s.Events, e)
	}
	return s, nil
}
