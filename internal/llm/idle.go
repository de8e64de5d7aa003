package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// ErrIdle is the cause of a model call's failure when the server went
// silent for longer than the call's idle timeout.
var ErrIdle = errors.New("idle timeout")

// IdleWatch fails a streaming model call whose server stays silent for
// longer than its timeout: it cancels the call's context with ErrIdle.
// Every byte read through Body re-arms it, so keep-alive comments and pings
// count as life. An adapter starts one per call with WatchIdle.
type IdleWatch struct {
	parent context.Context
	ctx    context.Context
	cancel context.CancelCauseFunc
	timer  *time.Timer
	d      time.Duration
}

// WatchIdle starts the watch on a call made with parent: the call must
// use the returned context, and Stop the watch when it ends.
func WatchIdle(parent context.Context, d time.Duration) (context.Context, *IdleWatch) {
	ctx, cancel := context.WithCancelCause(parent)
	w := &IdleWatch{parent: parent, ctx: ctx, cancel: cancel, d: d}
	w.timer = time.AfterFunc(d, func() { cancel(ErrIdle) })
	return ctx, w
}

// Stop disarms the watch and releases the call's context.
func (w *IdleWatch) Stop() {
	w.timer.Stop()
	w.cancel(nil)
}

// Body wraps a response body so that every byte received re-arms the
// watch.
func (w *IdleWatch) Body(rc io.ReadCloser) io.ReadCloser {
	return &idleBody{ReadCloser: rc, timer: w.timer, d: w.d}
}

// Interrupted says why the call failed when it was not the server's doing:
// the caller's context ended (its error, wrapped), or the server went
// silent (a retryable *Error wrapping ErrIdle). nil otherwise.
func (w *IdleWatch) Interrupted() error {
	if perr := w.parent.Err(); perr != nil {
		return fmt.Errorf("model call: %w", perr)
	}
	if errors.Is(context.Cause(w.ctx), ErrIdle) {
		return &Error{
			Message:   fmt.Sprintf("no data from the model API for %s", w.d),
			Retryable: true,
			Err:       ErrIdle,
		}
	}
	return nil
}

// TransportError classifies err, a failure to get a response at all:
// Interrupted's answer when there is one, else an *Error with the API key
// redacted, retryable unless a redirect was refused (*RedirectError).
func (w *IdleWatch) TransportError(err error, key string) error {
	if ierr := w.Interrupted(); ierr != nil {
		return ierr
	}
	var redirect *RedirectError
	retry := !errors.As(err, &redirect)
	return &Error{Message: "cannot reach the model API: " + Redact(err.Error(), key), Retryable: retry, Err: err}
}

// idleBody re-arms the idle timer on every byte received.
type idleBody struct {
	io.ReadCloser
	timer *time.Timer
	d     time.Duration
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.timer.Reset(b.d)
	}
	return n, err
}
