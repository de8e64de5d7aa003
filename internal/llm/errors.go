package llm

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Error is a failed model call. Status is the HTTP status (0 for transport
// failures and broken streams). Message is fit to show a user: it never
// contains the API key. Retryable says whether the same request may succeed
// if sent again (rate limits, server errors, dropped connections, stalls).
type Error struct {
	Status     int
	Message    string
	Retryable  bool
	Err        error
	RetryAfter time.Duration // the server's Retry-After, 0 when it sent none
}

func (e *Error) Error() string {
	switch {
	case e.Status != 0 && e.Message != "":
		return fmt.Sprintf("model API error (HTTP %d): %s", e.Status, e.Message)
	case e.Status != 0:
		return fmt.Sprintf("model API error (HTTP %d)", e.Status)
	case e.Message != "":
		return "model API error: " + e.Message
	case e.Err != nil:
		return "model API error: " + e.Err.Error()
	}
	return "model API error"
}

func (e *Error) Unwrap() error { return e.Err }

// IsRetryable reports whether err is an *Error that may succeed on a new
// attempt. A cancelled or expired context is never retryable.
func IsRetryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var e *Error
	return errors.As(err, &e) && e.Retryable
}

// RetryAfterOf returns the server-requested delay carried by err, or 0.
func RetryAfterOf(err error) time.Duration {
	var e *Error
	if errors.As(err, &e) {
		return e.RetryAfter
	}
	return 0
}
