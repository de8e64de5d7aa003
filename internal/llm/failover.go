package llm

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Candidate is one model a failover provider may ask.
type Candidate struct {
	Name     string   // "provider/model": shown in Retry deltas, set as Response.Model
	Provider Provider // answers for this candidate, already bound to its model (BindModel)
}

// FailoverOptions tune Failover. Zero values mean the defaults.
type FailoverOptions struct {
	// Retry bounds the calls of one Stream: Attempts is the total number of
	// calls across all candidates (never fewer than one per candidate);
	// Base and Max are the backoff before each new pass over the list.
	Retry RetryPolicy
	// Threshold is the number of consecutive retryable failures that open
	// a candidate's circuit breaker (0 = 3).
	Threshold int
	// Cooldown is how long an open breaker makes later calls skip its
	// candidate (0 = 30s). After it, the candidate gets one trial call:
	// success closes the breaker, failure opens it again.
	Cooldown time.Duration
	// Now is the clock (nil = time.Now); tests move it.
	Now func() time.Time
}

// Failover returns a Provider that asks cands in order. A retryable failure
// (IsRetryable) before the first text or reasoning delta moves on to the
// next candidate at once, announced by a Retry delta whose Reason names the
// failed and the next model; after a full pass it waits the Retry backoff
// (or the server's Retry-After) and starts again, until Retry.Attempts
// calls were made. Once a delta has streamed, a failure is returned as is:
// the caller has shown partial output, so no other model takes over.
// Non-retryable failures (a refused key, a bad request) are returned at
// once. A candidate that failed Threshold times in a row is skipped for
// Cooldown; when every breaker is open the one closest to closing is tried
// anyway, so a call never fails without a request. The breaker state is
// shared by every Stream of the returned provider, which is safe for
// concurrent use. Response.Model is the answering candidate's Name.
func Failover(cands []Candidate, o FailoverOptions) Provider {
	if o.Threshold <= 0 {
		o.Threshold = 3
	}
	if o.Cooldown <= 0 {
		o.Cooldown = 30 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &failover{cands: cands, opts: o, health: make([]health, len(cands))}
}

type failover struct {
	cands []Candidate
	opts  FailoverOptions

	mu     sync.Mutex
	health []health
}

// health is one candidate's breaker: consecutive failures and, when open,
// the time it closes (half-opens) again.
type health struct {
	failures  int
	openUntil time.Time
}

func (f *failover) Stream(ctx context.Context, req Request, on func(Delta)) (*Response, error) {
	if len(f.cands) == 0 {
		return nil, &Error{Message: "no model to ask: the failover list is empty"}
	}
	attempts := max(f.opts.Retry.Attempts, len(f.cands), 1)
	attempt := 0
	order := f.available()
	for round := 1; ; round++ {
		for k, i := range order {
			attempt++
			c := f.cands[i]
			streamed := false
			resp, err := c.Provider.Stream(ctx, req, func(d Delta) {
				if d.Kind == TextDelta || d.Kind == ReasoningDelta {
					streamed = true
				}
				on(d)
			})
			f.record(i, err)
			if err == nil {
				if resp != nil {
					resp.Model = c.Name
				}
				return resp, nil
			}
			if streamed || attempt >= attempts || ctx.Err() != nil || !IsRetryable(err) {
				return resp, fmt.Errorf("%s: %w", c.Name, err)
			}
			var next int
			last := k == len(order)-1
			if last {
				order = f.available()
				next = order[0]
			} else {
				next = order[k+1]
			}
			on(Delta{Kind: Retry, Attempt: attempt + 1, MaxAttempts: attempts,
				Reason: fmt.Sprintf("%s failed (%v); trying %s", c.Name, err, f.cands[next].Name)})
			if last {
				if werr := sleep(ctx, f.opts.Retry.delay(round, err)); werr != nil {
					return nil, fmt.Errorf("waiting to retry the model call: %w", werr)
				}
				break
			}
		}
	}
}

// available lists the candidates whose breaker is closed (or half-open), in
// order; when all are open, the one that closes first.
func (f *failover) available() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.opts.Now()
	var out []int
	soonest := 0
	for i, h := range f.health {
		if !now.Before(h.openUntil) {
			out = append(out, i)
		}
		if h.openUntil.Before(f.health[soonest].openUntil) {
			soonest = i
		}
	}
	if len(out) == 0 {
		out = append(out, soonest)
	}
	return out
}

// record updates candidate i's breaker after a call. Only retryable
// failures count: a refused request says nothing about the provider's
// health, and a cancelled one says nothing at all.
func (f *failover) record(i int, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := &f.health[i]
	switch {
	case err == nil:
		*h = health{}
	case IsRetryable(err):
		h.failures++
		if h.failures >= f.opts.Threshold {
			h.openUntil = f.opts.Now().Add(f.opts.Cooldown)
		}
	}
}

// BindModel returns a Provider that sends every request to model,
// whatever Request.Model says: each failover candidate, and each resolved
// "provider/model", names its own model on the wire.
func BindModel(p Provider, model string) Provider {
	return boundModel{next: p, model: model}
}

type boundModel struct {
	next  Provider
	model string
}

func (b boundModel) Stream(ctx context.Context, req Request, on func(Delta)) (*Response, error) {
	if b.model != "" {
		req.Model = b.model
	}
	return b.next.Stream(ctx, req, on)
}
