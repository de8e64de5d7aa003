package fleet

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/openseek/openseek/internal/llm/llmtest"
)

// A worker killed after it published its task's end and before it wrote
// the record leaves the end marker behind: the next worker to get the
// task applies that end (the record ends as the marker says, with one
// marker) and runs nothing again.
func TestAnEndPublishedByAKilledWorkerIsApplied(t *testing.T) {
	srv := llmtest.NewServer(t) // no turn: a model request fails the test
	cfg := Config{Dir: t.TempDir(), AckWait: time.Second}
	c := connect(t, cfg)
	ctx := context.Background()
	// The killed worker: it took the task, ran it, published its end, and
	// never acknowledged the message.
	task, running := abandoned(t, c, "killed")
	final := *running
	final.State, final.Result = Completed, "done before the kill"
	if won, err := c.publishEnd(ctx, &final); !won || err != nil {
		t.Fatalf("publishEnd = %v, %v", won, err)
	}
	if again, err := c.publishEnd(ctx, &final); again || err != nil {
		t.Fatalf("a second end was published: %v, %v", again, err)
	}

	stop, _ := startWorkers(t, cfg, 1, WorkerOptions{Engine: engineOpts(t, srv), WorkRoot: t.TempDir()})
	got := waitAll(t, c, []string{task.ID}, time.Minute)[0]
	stop()
	if got.State != Completed || got.Result != "done before the kill" || got.Attempts != 1 || got.Worker != "killed" {
		t.Errorf("task: %s attempts %d worker %q result %q error %q", got.State, got.Attempts, got.Worker, got.Result, got.Error)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the task ran again (%d model requests)", n)
	}
	if ends := endMarkers(t, c)[task.ID]; !slices.Equal(ends, []State{Completed}) {
		t.Errorf("end markers %v, want [completed]", ends)
	}
	// The queue is empty: the message was acknowledged.
	cons, err := c.consumer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cons.Next(jetstream.FetchMaxWait(2 * time.Second)); err == nil {
		t.Error("the task is still queued")
	}
}

// A cancel and a worker's end at once: the first end published stands,
// the other is refused, and the record and the marker agree.
func TestCancelAfterTheEndIsRefused(t *testing.T) {
	c := connect(t, Config{Dir: t.TempDir()})
	ctx := context.Background()
	task, err := c.Add(ctx, Spec{Prompt: "x", Dir: newRepo(t)})
	if err != nil {
		t.Fatal(err)
	}
	done := *task
	done.State, done.Attempts, done.Result = Completed, 1, "done"
	// The worker published its end; its record write has not happened.
	if won, err := c.publishEnd(ctx, &done); !won || err != nil {
		t.Fatalf("publishEnd = %v, %v", won, err)
	}
	if _, err := c.Cancel(ctx, task.ID); err == nil || err.Error() != "task "+task.ID+" is already completed" {
		t.Errorf("Cancel = %v, want: already completed", err)
	}
	if got, _ := c.Get(ctx, task.ID); got.State != Completed || got.Result != "done" {
		t.Errorf("record %s %q, want the worker's end", got.State, got.Result)
	}
	if ends := endMarkers(t, c)[task.ID]; !slices.Equal(ends, []State{Completed}) {
		t.Errorf("end markers %v, want [completed]", ends)
	}
}

// abandoned adds a task and plays a worker named worker that took it and
// holds it without a heartbeat: its message delivered and never
// acknowledged, its record running the first attempt, with its session.
func abandoned(t *testing.T, c *Client, worker string) (added, running *Task) {
	t.Helper()
	ctx := context.Background()
	added, err := c.Add(ctx, Spec{Prompt: "work", Dir: newRepo(t)})
	if err != nil {
		t.Fatal(err)
	}
	cons, err := c.consumer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cons.Next(jetstream.FetchMaxWait(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	running, err = c.update(ctx, added.ID, func(t *Task) error {
		t.State, t.Attempts, t.Worker, t.Session = Running, 1, worker, "task-"+t.ID
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return added, running
}
