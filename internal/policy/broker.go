package policy

import (
	"context"
	"fmt"
	"slices"
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

	mu      sync.Mutex
	next    int
	pending map[string]*request
	// remembered holds the patterns allowed for the session; true when
	// the approval let the command leave the sandbox, which then covers
	// both kinds of request.
	remembered map[string]bool
}

type request struct {
	n        int         // the number in the id, for ordering
	answer   chan Answer // buffered: the resolver never blocks
	patterns []string
	outside  bool
}

// Question is what a tool asks the controller.
type Question struct {
	Tool   string
	Detail string // what would be granted, and why it is asked
	Body   string // what would run; "" sends null
	// Patterns are the command prefixes approving for the session covers
	// ("git push"); when every one was approved, Ask answers at once.
	Patterns []string
	// Outside: allowing lets the command run outside the sandbox. A
	// prefix approved for the session inside the sandbox does not cover it.
	Outside bool
}

// Answer is the controller's answer.
type Answer struct {
	Allow, Remember bool
	Reason          string // the user's word on a rejection, for the model
}

// NewBroker returns a broker that reports requests and their outcomes
// through emit (nil: nowhere).
func NewBroker(emit func(protocol.Event)) *Broker {
	if emit == nil {
		emit = func(protocol.Event) {}
	}
	return &Broker{emit: emit, pending: map[string]*request{}, remembered: map[string]bool{}}
}

// Ask asks the controller q. It emits approval_requested and blocks until
// Resolve answers, CancelAll runs or ctx ends, then emits
// approval_resolved. When every pattern of q was approved for this
// session, Ask allows at once without asking. A ctx that ends returns a
// refusal and ctx's error.
func (b *Broker) Ask(ctx context.Context, q Question) (Answer, error) {
	b.mu.Lock()
	if b.allRemembered(q.Patterns, q.Outside) {
		b.mu.Unlock()
		return Answer{Allow: true, Remember: true}, nil
	}
	if err := ctx.Err(); err != nil {
		b.mu.Unlock()
		return Answer{}, err
	}
	b.next++
	req := &request{n: b.next, answer: make(chan Answer, 1), patterns: q.Patterns, outside: q.Outside}
	id := req.id()
	b.pending[id] = req
	b.mu.Unlock()

	var bodyPtr *string
	if q.Body != "" {
		bodyPtr = &q.Body
	}
	b.emit(protocol.ApprovalRequested{ID: id, ToolName: q.Tool, Detail: q.Detail, Body: bodyPtr, Prefixes: q.Patterns})

	select {
	case a := <-req.answer:
		return a, nil
	case <-ctx.Done():
		if b.take(id) == nil {
			// Resolve or CancelAll got there first and is sending.
			return <-req.answer, nil
		}
		b.emit(protocol.ApprovalResolved{ID: id, Outcome: protocol.ApprovalCancelled})
		return Answer{}, ctx.Err()
	}
}

// Resolve answers the pending request id. With Allow and Remember, the
// request's patterns are allowed for the rest of the session. An id that
// is not pending is an error and approves nothing.
func (b *Broker) Resolve(id string, a Answer) error {
	b.mu.Lock()
	req := b.pending[id]
	if req == nil {
		b.mu.Unlock()
		return fmt.Errorf("no approval request with id %s is pending", id)
	}
	delete(b.pending, id)
	if a.Allow && a.Remember {
		for _, p := range req.patterns {
			b.remembered[p] = b.remembered[p] || req.outside
		}
	}
	b.mu.Unlock()
	outcome := protocol.ApprovalRejected
	switch {
	case a.Allow && a.Remember:
		outcome = OutcomeAllowedForSession
	case a.Allow:
		outcome = protocol.ApprovalAllowedOnce
	}
	if a.Allow {
		a.Reason = ""
	}
	b.emit(protocol.ApprovalResolved{ID: id, Outcome: outcome, Reason: a.Reason})
	req.answer <- a
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
		r.answer <- Answer{}
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

// Remembered reports whether every one of patterns was approved for this
// session (outside: to run outside the sandbox).
func (b *Broker) Remembered(patterns []string, outside bool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.allRemembered(patterns, outside)
}

func (b *Broker) allRemembered(patterns []string, outside bool) bool {
	if len(patterns) == 0 {
		return false
	}
	for _, p := range patterns {
		out, ok := b.remembered[p]
		if !ok || outside && !out {
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
