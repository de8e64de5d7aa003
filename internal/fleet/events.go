package fleet

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Headers of the messages in a task's event subject.
const (
	hdrAttempt = "Openseek-Attempt"
	// hdrEnd marks the message published once when a task reaches its
	// terminal state; its value is the state.
	hdrEnd = "Openseek-End"
)

// Event is one message of a task's event stream: a protocol event line
// of its session (Line), or the end marker (End = the terminal state).
type Event struct {
	Seq     uint64
	Attempt int
	Line    []byte
	End     State
}

func eventSubject(id string) string { return eventsSubject + id }

// publishEnd records that t reached its terminal state. It is called only
// by whoever won the update to that state, so it appears once.
func (c *Client) publishEnd(ctx context.Context, t *Task) {
	m := nats.NewMsg(eventSubject(t.ID))
	m.Header.Set(hdrEnd, string(t.State))
	m.Header.Set(hdrAttempt, strconv.Itoa(t.Attempts))
	m.Data = []byte(t.Error)
	_, _ = c.js.PublishMsg(ctx, m)
}

// Events calls fn with each event of a task, oldest first. With follow it
// waits for new events until the task's end marker; without, it returns
// at the newest event. fn returning an error stops the reading.
func (c *Client) Events(ctx context.Context, id string, follow bool, fn func(Event) error) error {
	return c.EventsSince(ctx, id, 0, follow, fn)
}

// EventsSince is Events starting after the stream sequence since (an
// Event's Seq; 0 = from the first), as an SSE client resumes.
func (c *Client) EventsSince(ctx context.Context, id string, since uint64, follow bool, fn func(Event) error) error {
	if _, err := c.Get(ctx, id); err != nil {
		return err
	}
	subj := eventSubject(id)
	if !follow {
		// Stop at the last message that exists now.
		info, err := c.js.Stream(ctx, EventsStream)
		if err != nil {
			return fmt.Errorf("read the events of task %s: %w", id, err)
		}
		last, err := info.GetLastMsgForSubject(ctx, subj)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read the events of task %s: %w", id, err)
		}
		if last.Sequence <= since {
			return nil
		}
		return c.readEvents(ctx, subj, since, last.Sequence, fn)
	}
	return c.readEvents(ctx, subj, since, 0, fn)
}

// readEvents reads subj in order, after sequence since, until the
// message with sequence upto (0 = until the end marker).
func (c *Client) readEvents(ctx context.Context, subj string, since, upto uint64, fn func(Event) error) error {
	cfg := jetstream.OrderedConsumerConfig{FilterSubjects: []string{subj}, DeliverPolicy: jetstream.DeliverAllPolicy}
	if since > 0 {
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, since+1
	}
	cons, err := c.js.OrderedConsumer(ctx, EventsStream, cfg)
	if err != nil {
		return fmt.Errorf("follow %s: %w", subj, err)
	}
	for {
		nctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		msg, err := cons.Next(jetstream.FetchContext(nctx))
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if c.nc.IsClosed() {
			return fmt.Errorf("follow %s: the connection to NATS is closed", subj)
		}
		if err != nil {
			// No event yet, or the server is away: wait and ask again.
			continue
		}
		md, _ := msg.Metadata()
		ev := Event{Line: msg.Data()}
		if md != nil {
			ev.Seq = md.Sequence.Stream
		}
		ev.Attempt, _ = strconv.Atoi(msg.Headers().Get(hdrAttempt))
		if end := msg.Headers().Get(hdrEnd); end != "" {
			ev.End, ev.Line = State(end), nil
		}
		if err := fn(ev); err != nil {
			return err
		}
		if ev.End != "" && upto == 0 || upto != 0 && ev.Seq >= upto {
			return nil
		}
	}
}
