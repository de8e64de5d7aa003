package llm

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// RetryPolicy bounds how a failed model call is retried.
type RetryPolicy struct {
	Attempts  int           // total attempts, including the first (<1 means 1)
	Base, Max time.Duration // first backoff and its cap
}

// maxRetryAfter caps a server's Retry-After so a hostile or confused header
// cannot park a turn for hours.
const maxRetryAfter = 2 * time.Minute

// DefaultRetry is 5 attempts with backoff from 500ms doubling to an 8s cap.
// The OPENSEEK_RETRY_ATTEMPTS and OPENSEEK_RETRY_BACKOFF_MS overrides are
// applied by the caller.
func DefaultRetry() RetryPolicy {
	return RetryPolicy{Attempts: 5, Base: 500 * time.Millisecond, Max: 8 * time.Second}
}

// WithRetry wraps p so that retryable failures (see IsRetryable) are tried
// again with capped exponential backoff and jitter, or after the server's
// Retry-After when the error carries one. Before each new attempt it emits a
// Retry delta. Once a text or reasoning delta has reached on, a failure is
// returned as is: the caller has shown partial output and a silent retry
// would duplicate it. Cancelling ctx stops a pending wait at once.
func WithRetry(p Provider, rp RetryPolicy) Provider {
	return retrying{next: p, policy: rp}
}

type retrying struct {
	next   Provider
	policy RetryPolicy
}

func (r retrying) Stream(ctx context.Context, req Request, on func(Delta)) (*Response, error) {
	attempts := max(r.policy.Attempts, 1)
	for attempt := 1; ; attempt++ {
		streamed := false
		resp, err := r.next.Stream(ctx, req, func(d Delta) {
			if d.Kind == TextDelta || d.Kind == ReasoningDelta {
				streamed = true
			}
			on(d)
		})
		if err == nil {
			return resp, nil
		}
		if streamed || attempt >= attempts || ctx.Err() != nil || !IsRetryable(err) {
			return resp, err
		}
		on(Delta{Kind: Retry, Attempt: attempt + 1, MaxAttempts: attempts, Reason: err.Error()})
		if werr := sleep(ctx, r.policy.delay(attempt, err)); werr != nil {
			return nil, fmt.Errorf("waiting to retry the model call: %w", werr)
		}
	}
}

// delay is the wait after the failed attempt n (1-based).
func (rp RetryPolicy) delay(n int, err error) time.Duration {
	if ra := RetryAfterOf(err); ra > 0 {
		return min(ra, maxRetryAfter)
	}
	d := rp.Base
	for i := 1; i < n && d < rp.Max; i++ {
		d *= 2
	}
	if rp.Max > 0 && d > rp.Max {
		d = rp.Max
	}
	if d <= 0 {
		return 0
	}
	// Equal jitter: half fixed, half random, so concurrent clients spread
	// out without any wait collapsing to zero.
	half := d / 2
	return half + rand.N(d-half+1)
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
