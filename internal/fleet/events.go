package fleet

import (
	"context"
	"encoding/json"
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
// of its session (Line), or the end marker (End = the terminal state,
// Task = the record it ended with; nil from a marker of an older
// version).
type Event struct {
	Seq     uint64
	Attempt int
	Line    []byte
	End     State
	Task    *Task
}

func eventSubject(id string) string { return eventsSubject + id }

// endSubject holds a task's end marker: at most one message, whose
// publication decides how the task ended (see end).
func endSubject(id string) string { return eventSubject(id) + ".end" }

// end makes t, a terminal record, the task's end, once: it publishes the
// end marker (the whole record) unless the task has one, then writes the
// record. The marker comes first, so a process killed between the two
// leaves a task whose marker says how it ended, which whoever handles the
// task next applies (settleEnd) — never a finished record without its
// marker. Of two ends at once (a worker's and a cancel), the first marker
// wins and is applied; the other is dropped. It returns the record that
// ended the task and whether it was t.
func (c *Client) end(ctx context.Context, t *Task) (*Task, bool, error) {
	won, err := c.publishEnd(ctx, t)
	if err != nil {
		return nil, false, err
	}
	final, err := c.settleEnd(ctx, t.ID)
	if err != nil || final == nil {
		return nil, false, err
	}
	// A retried publish whose first reply was lost finds its own marker.
	return final, won || final.State == t.State && final.Attempts == t.Attempts && final.Worker == t.Worker, nil
}

// publishEnd publishes t as the task's end marker unless the task has
// one; it reports whether t's was published.
func (c *Client) publishEnd(ctx context.Context, t *Task) (bool, error) {
	data, _ := json.Marshal(t)
	m := nats.NewMsg(endSubject(t.ID))
	m.Header.Set(hdrEnd, string(t.State))
	m.Header.Set(hdrAttempt, strconv.Itoa(t.Attempts))
	m.Data = data
	// Only the first marker is taken: the subject must still be empty.
	err := retry(ctx, func() error {
		_, err := c.js.PublishMsg(ctx, m, jetstream.WithExpectLastSequencePerSubject(0))
		return err
	})
	if err == nil {
		return true, nil
	}
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence || apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant) {
		return false, nil // the task has its end already
	}
	return false, fmt.Errorf("record the end of task %s: %w", t.ID, err)
}

// endMarker returns the record task id's end marker carries, or nil when
// the task has none.
func (c *Client) endMarker(ctx context.Context, id string) (*Task, error) {
	var msg *jetstream.RawStreamMsg
	err := retry(ctx, func() (err error) {
		msg, err = c.events.GetLastMsgForSubject(ctx, endSubject(id))
		return err
	})
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the end of task %s: %w", id, err)
	}
	var t Task
	if err := json.Unmarshal(msg.Data, &t); err != nil || t.ID != id || !t.State.Terminal() {
		return nil, fmt.Errorf("task %s: a malformed end marker (stream %s, sequence %d)", id, EventsStream, msg.Sequence)
	}
	return &t, nil
}

// settleEnd writes the record task id's end marker carries, unless the
// record is terminal already; it returns that record (nil: no marker).
func (c *Client) settleEnd(ctx context.Context, id string) (*Task, error) {
	t, err := c.endMarker(ctx, id)
	if err != nil || t == nil {
		return nil, err
	}
	_, err = c.update(ctx, id, func(cur *Task) error {
		if cur.State.Terminal() {
			return errSkip
		}
		*cur = *t
		return nil
	})
	if err != nil && !errors.Is(err, errSkip) {
		return nil, err
	}
	return t, nil
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
	subjs := []string{eventSubject(id), endSubject(id)}
	if !follow {
		// Stop at the last message that exists now.
		info, err := c.js.Stream(ctx, EventsStream)
		if err != nil {
			return fmt.Errorf("read the events of task %s: %w", id, err)
		}
		var upto uint64
		for _, subj := range subjs {
			last, err := info.GetLastMsgForSubject(ctx, subj)
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				continue
			}
			if err != nil {
				return fmt.Errorf("read the events of task %s: %w", id, err)
			}
			upto = max(upto, last.Sequence)
		}
		if upto <= since {
			return nil
		}
		return c.readEvents(ctx, id, subjs, since, upto, fn)
	}
	return c.readEvents(ctx, id, subjs, since, 0, fn)
}

// readEvents reads task id's subjects subjs in order, after sequence
// since, until the message with sequence upto (0 = until the end marker).
func (c *Client) readEvents(ctx context.Context, id string, subjs []string, since, upto uint64, fn func(Event) error) error {
	subj := subjs[0]
	cfg := jetstream.OrderedConsumerConfig{FilterSubjects: subjs, DeliverPolicy: jetstream.DeliverAllPolicy}
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
			var t Task
			if json.Unmarshal(msg.Data(), &t) == nil && t.State == ev.End {
				ev.Task = &t
				// A reader that saw the end finds the record ended too.
				_, _ = c.settleEnd(ctx, id)
			}
		}
		if err := fn(ev); err != nil {
			return err
		}
		if ev.End != "" && upto == 0 || upto != 0 && ev.Seq >= upto {
			return nil
		}
	}
}
