package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// ErrNotFound is returned for a task id the fleet does not know.
var ErrNotFound = errors.New("no such task")

// errSkip, returned by an update's change, leaves the record as it is.
var errSkip = errors.New("skip")

// ErrMalformed is returned for a record that is not a task.
var ErrMalformed = errors.New("malformed task record")

// Add records a task and queues it (each of its runs, for best-of-N) and
// returns its record.
func (c *Client) Add(ctx context.Context, spec Spec) (*Task, error) {
	if spec.Dir != "" {
		abs, err := filepath.Abs(spec.Dir)
		if err != nil {
			return nil, err
		}
		spec.Dir = abs
	}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	spec.Prompt = spec.title()
	now := time.Now().UTC()
	t := &Task{ID: newID(), Spec: spec, State: Queued, CreatedAt: now}
	var runs []*Task
	if spec.Runs > 1 {
		for i := 1; i <= spec.Runs; i++ {
			child := &Task{ID: fmt.Sprintf("%s-r%d", t.ID, i), Spec: spec, State: Queued, Parent: t.ID, Run: i, CreatedAt: now}
			child.Runs = 0
			t.Children = append(t.Children, child.ID)
			runs = append(runs, child)
		}
	} else {
		t.Runs = 0
		runs = []*Task{t}
	}
	records := runs
	if len(runs) > 1 {
		records = append([]*Task{t}, runs...)
	}
	for _, r := range records {
		data, _ := json.Marshal(r)
		tries := 0
		err := retry(ctx, func() error {
			tries++
			_, err := c.kv.Create(ctx, r.ID, data)
			if tries > 1 && errors.Is(err, jetstream.ErrKeyExists) {
				return nil // our own write, whose reply was lost
			}
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("record task %s: %w", r.ID, err)
		}
	}
	for _, r := range runs {
		// The message id lets the stream drop a duplicate of a retried publish.
		if err := retry(ctx, func() error {
			_, err := c.js.Publish(ctx, queueSubject, []byte(r.ID), jetstream.WithMsgID("queue-"+r.ID))
			return err
		}); err != nil {
			return nil, fmt.Errorf("queue task %s: %w", r.ID, err)
		}
	}
	return t, nil
}

// Get returns a task's record.
func (c *Client) Get(ctx context.Context, id string) (*Task, error) {
	t, _, err := c.get(ctx, id)
	return t, err
}

func (c *Client) get(ctx context.Context, id string) (*Task, uint64, error) {
	if !validID(id) {
		return nil, 0, fmt.Errorf("%w %q: task ids are lower-case letters, digits and '-' (see openseek tasks list)", ErrNotFound, id)
	}
	e, err := c.kv.Get(ctx, id)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, 0, fmt.Errorf("%w %s (see openseek tasks list)", ErrNotFound, id)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read task %s: %w", id, err)
	}
	var t Task
	if err := json.Unmarshal(e.Value(), &t); err != nil || t.ID != id {
		return nil, e.Revision(), fmt.Errorf("task %s: %w (revision %d); remove it from bucket %s", id, ErrMalformed, e.Revision(), TasksBucket)
	}
	return &t, e.Revision(), nil
}

// List returns every task, oldest first.
func (c *Client) List(ctx context.Context) ([]*Task, error) {
	lister, err := c.kv.ListKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("list tasks: %w", err)
	}
	var out []*Task
	for key := range lister.Keys() {
		t, _, err := c.get(ctx, key)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				continue // removed meanwhile
			}
			return nil, err
		}
		out = append(out, t)
	}
	slices.SortStableFunc(out, func(a, b *Task) int {
		if d := a.CreatedAt.Compare(b.CreatedAt); d != 0 {
			return d
		}
		return cmpString(a.ID, b.ID)
	})
	return out, nil
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// update applies change to the current record and writes it only if no
// one else wrote meanwhile (revision-checked), retrying on a conflict.
// change returning errSkip leaves the record unchanged (update then
// returns the current record and errSkip).
func (c *Client) update(ctx context.Context, id string, change func(*Task) error) (*Task, error) {
	for {
		var (
			t   *Task
			rev uint64
		)
		err := retry(ctx, func() (err error) {
			t, rev, err = c.get(ctx, id)
			return err
		})
		if err != nil {
			return nil, err
		}
		if err := change(t); err != nil {
			return t, err
		}
		data, _ := json.Marshal(t)
		err = retry(ctx, func() error {
			_, err := c.kv.Update(ctx, id, data, rev)
			return err
		})
		if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("update task %s: %w", id, err)
		}
		return t, nil
	}
}

// Cancel stops a task (and the runs of a best-of-N task): a queued task
// will not start, a running one is stopped by its worker. Cancelling a
// finished task is an error naming its state.
func (c *Client) Cancel(ctx context.Context, id string) (*Task, error) {
	t, err := c.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if t.State.Terminal() {
		return nil, fmt.Errorf("task %s is already %s", t.ID, t.State)
	}
	t.State, t.Error, t.FinishedAt = Cancelled, "cancelled by request", time.Now().UTC()
	ended, won, err := c.end(ctx, t)
	if err != nil {
		return nil, err
	}
	if !won {
		return nil, fmt.Errorf("task %s is already %s", t.ID, ended.State)
	}
	for _, child := range t.Children {
		ct, err := c.Get(ctx, child)
		if err != nil || ct.State.Terminal() {
			continue
		}
		ct.State, ct.Error, ct.FinishedAt = Cancelled, "the best-of-N task was cancelled", time.Now().UTC()
		_, _, _ = c.end(ctx, ct)
	}
	return ended, nil
}
