package hub

import (
	"context"
	"errors"
	"sync"

	"github.com/openseek/openseek/protocol"
)

// Follower hands a session's events to one function, in order, on a
// goroutine of its own, and tells its owner when a given event was
// handed over. It is how a transport follows a session: the events go to
// the client while the turn runs (a slow client never stalls the turn: it
// only falls behind in the hub's window and gets a stream_reset), and the
// transport answers "the turn ended" once WaitFor says the turn's last
// event reached the client.
type Follower struct {
	sub  *Subscription
	fn   func(Entry) error
	hub  *Hub
	stop context.CancelFunc
	done chan struct{}
	err  error // why the follower ended; written before done is closed

	mu      sync.Mutex
	seen    int64 // the newest sequence handed to fn (or skipped by a lag)
	ended   bool
	waiters map[chan struct{}]int64
}

// Follow hands every event after since to fn, in order, on a goroutine of
// its own (since 0: the whole window; Head(): only what comes next).
// Waiting approval requests from before since come first (Entry.Replay);
// events that left the window before fn could take them reach fn as one
// stream_reset entry with Seq 0, and following goes on from the oldest
// event still held. It ends when the hub is closed and every event was
// handed over, when fn returns an error, or on Stop.
func (h *Hub) Follow(since int64, fn func(Entry) error) *Follower {
	ctx, stop := context.WithCancel(context.Background())
	f := &Follower{sub: h.Subscribe(since), fn: fn, hub: h, stop: stop, done: make(chan struct{}), seen: since}
	if r := f.sub.replay; len(r) > 0 {
		// Not caught up before the repeated approval requests are handed
		// over: a client waiting for the head must get to answer them.
		f.seen = r[0].Seq - 1
	}
	go f.run(ctx, since)
	return f
}

func (f *Follower) run(ctx context.Context, since int64) {
	defer close(f.done)
	err := f.loop(ctx, since)
	f.sub.Close()
	if errors.Is(err, ErrClosed) || errors.Is(err, context.Canceled) {
		err = nil
	}
	f.err = err
	f.mu.Lock()
	f.ended = true
	for w := range f.waiters {
		close(w)
	}
	f.waiters = nil
	f.mu.Unlock()
}

func (f *Follower) loop(ctx context.Context, since int64) error {
	for ctx.Err() == nil {
		batch, err := f.sub.Next(ctx, 256)
		var lag *Lag
		if errors.As(err, &lag) {
			reset := lag.Reset()
			if err := f.fn(Entry{Event: reset, Line: protocol.Emit(reset)}); err != nil {
				return err
			}
			since = lag.Resume - 1
			f.handed(since)
			continue
		}
		if err != nil {
			return err
		}
		if err := f.hand(ctx, batch, since); err != nil {
			return err
		}
	}
	return nil
}

// hand gives fn a batch and then records how far it got, once per batch
// (one lock, not one per event). A replay comes alone, first: after it
// the follower is where it started, at since.
func (f *Follower) hand(ctx context.Context, batch []Entry, since int64) error {
	last := int64(-1)
	defer func() {
		if last >= 0 {
			f.handed(last)
		}
	}()
	for _, e := range batch {
		if ctx.Err() != nil {
			return nil
		}
		if err := f.fn(e); err != nil {
			return err
		}
		last = e.Seq
		if e.Replay {
			last = since
		}
	}
	return nil
}

// handed records that every event up to seq was handed over and wakes
// the waiters it satisfies.
func (f *Follower) handed(seq int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen = seq
	for w, want := range f.waiters {
		if want <= seq {
			close(w)
			delete(f.waiters, w)
		}
	}
}

// WaitFor blocks until the event with sequence seq was handed to fn. It
// returns nil then; ctx.Err() when ctx ends first; and when the follower
// ended before, fn's error, or ErrClosed.
func (f *Follower) WaitFor(ctx context.Context, seq int64) error {
	f.mu.Lock()
	if f.seen >= seq {
		f.mu.Unlock()
		return nil
	}
	if f.ended {
		f.mu.Unlock()
		return f.endErr()
	}
	w := make(chan struct{})
	if f.waiters == nil {
		f.waiters = map[chan struct{}]int64{}
	}
	f.waiters[w] = seq
	f.mu.Unlock()
	select {
	case <-w:
	case <-ctx.Done():
		f.mu.Lock()
		delete(f.waiters, w)
		f.mu.Unlock()
		return ctx.Err()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.seen >= seq {
		return nil
	}
	return f.endErr()
}

// CatchUp waits until every event published so far was handed to fn
// (WaitFor the hub's head): after a turn returns, its last event.
func (f *Follower) CatchUp(ctx context.Context) error { return f.WaitFor(ctx, f.hub.Head()) }

// endErr is why an ended follower cannot hand over more (f.ended is set,
// so f.err is written).
func (f *Follower) endErr() error {
	if f.err != nil {
		return f.err
	}
	return ErrClosed
}

// Done is closed once the follower has ended.
func (f *Follower) Done() <-chan struct{} { return f.done }

// Wait blocks until the follower ends by itself (the hub closed and every
// event was handed over, or fn failed) and returns fn's error, if any.
func (f *Follower) Wait() error {
	<-f.done
	return f.err
}

// Stop ends the follower after the event being handed over, without
// waiting for the rest of the stream, and returns once fn is no longer
// called, with fn's error if it had failed.
func (f *Follower) Stop() error {
	f.stop()
	return f.Wait()
}
