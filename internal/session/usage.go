package session

import "github.com/openseek/openseek/protocol"

// Usage is the session's total token usage: the sum of the usage recorded
// on its assistant items (replays carry none, so nothing is counted twice).
func (s *Session) Usage() protocol.Usage {
	var u protocol.Usage
	for _, e := range s.Events {
		if a, ok := e.Item.(*Assistant); ok && a.Usage != nil {
			u = u.Add(*a.Usage)
		}
	}
	return u
}
