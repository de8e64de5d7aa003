package policy

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/openseek/openseek/protocol"
)

// OutcomeAllowedForSession is the approval_resolved outcome of an approval
// given with "remember": true. The reference lists three outcomes and asks
// clients to keep the field open; this is the fourth word.
const OutcomeAllowedForSession = "allowed_for_session"

// Broker holds the approval requests waiting for the controller. Ids are
// "ap-1", "ap-2", … in the order asked, unique for the broker's life (one
// broker per engine process). Safe for concurrent use.
type Broker struct {
	emit func(protocol.Event)

	mu         sync.Mutex
	next       int
	pending    map[string]*request
	remembered map[string]bool
}

type request struct {
	n        int       // the number in the id, for ordering
	answer   chan bool // buffered: the resolver never blocks
	patterns []string
}

// NewBroker returns a broker that reports requests and their outcomes
// through emit (nil: nowhere).
func NewBroker(emit func(protocol.Event)) *Broker {
	if emit == nil {
		emit = func(protocol.Event) {}
	}
	return &Broker{emit: emit, pending: map[string]*request{}, remembered: map[string]bool{}}
}

// Ask asks the controller whether toolName may do what detail says (body:
// what would run; "" sends null). It emits approval_requested and blocks
// until Resolve answers, CancelAll runs or ctx ends, then emits
// approval_resolved. pattern is one or more newline-separated command
// patterns; when every one was approved for this session, Ask returns true
// at once without asking. A ctx that ends returns false and ctx's error.
func (b *Broker) Ask(ctx context.Context, toolName, detail, body, pattern string) (bool, error) {
	patterns := splitPatterns(pattern)
	b.mu.Lock()
	if b.allRemembered(patterns) {
		b.mu.Unlock()
		return true, nil
	}
	if err := ctx.Err(); err != nil {
		b.mu.Unlock()
		return false, err
	}
	b.next++
	req := &request{n: b.next, answer: make(chan bool, 1), patterns: patterns}
	id := req.id()
	b.pending[id] = req
	b.mu.Unlock()

	var bodyPtr *string
	if body != "" {
		bodyPtr = &body
	}
	b.emit(protocol.ApprovalRequested{ID: id, ToolName: toolName, Detail: detail, Body: bodyPtr})

	select {
	case ok := <-req.answer:
		return ok, nil
	case <-ctx.Done():
		if b.take(id) == nil {
			// Resolve or CancelAll got there first and is sending.
			return <-req.answer, nil
		}
		b.emit(protocol.ApprovalResolved{ID: id, Outcome: protocol.ApprovalCancelled})
		return false, ctx.Err()
	}
}

// Resolve answers the pending request id. With allow and remember, the
// request's patterns are allowed for the rest of the session. An id that
// is not pending is an error and approves nothing.
func (b *Broker) Resolve(id string, allow, remember bool) error {
	b.mu.Lock()
	req := b.pending[id]
	if req == nil {
		b.mu.Unlock()
		return fmt.Errorf("no approval request with id %s is pending", id)
	}
	delete(b.pending, id)
	if allow && remember {
		for _, p := range req.patterns {
			b.remembered[p] = true
		}
	}
	b.mu.Unlock()
	outcome := protocol.ApprovalRejected
	switch {
	case allow && remember:
		outcome = OutcomeAllowedForSession
	case allow:
		outcome = protocol.ApprovalAllowedOnce
	}
	b.emit(protocol.ApprovalResolved{ID: id, Outcome: outcome})
	req.answer <- allow
	return nil
}

// CancelAll ends every pending request with outcome "cancelled" (the turn
// was interrupted); the asking tools get false.
func (b *Broker) CancelAll() {
	b.mu.Lock()
	reqs := b.sortedLocked()
	clear(b.pending)
	b.mu.Unlock()
	for _, r := range reqs {
		b.emit(protocol.ApprovalResolved{ID: r.id(), Outcome: protocol.ApprovalCancelled})
		r.answer <- false
	}
}

// Pending lists the ids waiting for an answer, oldest first.
func (b *Broker) Pending() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var ids []string
	for _, r := range b.sortedLocked() {
		ids = append(ids, r.id())
	}
	return ids
}

// sortedLocked lists the pending requests oldest first; b.mu is held.
func (b *Broker) sortedLocked() []*request {
	reqs := make([]*request, 0, len(b.pending))
	for _, r := range b.pending {
		reqs = append(reqs, r)
	}
	slices.SortFunc(reqs, func(x, y *request) int { return x.n - y.n })
	return reqs
}

func (r *request) id() string { return fmt.Sprintf("ap-%d", r.n) }

// Remembered reports whether pattern was approved for this session.
func (b *Broker) Remembered(pattern string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.allRemembered(splitPatterns(pattern))
}

func (b *Broker) allRemembered(patterns []string) bool {
	if len(patterns) == 0 {
		return false
	}
	for _, p := range patterns {
		if !b.remembered[p] {
			return false
		}
	}
	return true
}

// take removes and returns the pending request id, or nil.
func (b *Broker) take(id string) *request {
	b.mu.Lock()
	defer b.mu.Unlock()
	r := b.pending[id]
	delete(b.pending, id)
	return r
}

func splitPatterns(pattern string) []string {
	var out []string
	for _, p := range strings.Split(pattern, "\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
