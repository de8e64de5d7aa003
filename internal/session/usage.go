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

// Cost is what the session's model responses cost in USD, summed from the
// costs recorded with them. known is false when any response with usage
// has no recorded cost (an unknown price, or a log written before costs
// were recorded): a partial sum would read as the whole.
func (s *Session) Cost() (usd float64, known bool) {
	known = true
	for _, e := range s.Events {
		a, ok := e.Item.(*Assistant)
		if !ok || a.Usage == nil {
			continue
		}
		if a.CostUSD == nil {
			known = false
			continue
		}
		usd += *a.CostUSD
	}
	return usd, known
}
