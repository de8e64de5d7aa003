package fleet

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm/llmtest"
)

// A worker connected to the embedded server of a process that ends (a
// `tasks add` that started it) stops with ErrServerGone; connecting again
// makes it the server's owner, and the queued task is still there.
func TestWorkerTakesOverTheEmbeddedServer(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("done"))
	dir := t.TempDir()
	cfg := Config{Dir: dir, AckWait: 5 * time.Second}
	owner, err := Connect(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if owner.Embedded() == nil {
		t.Fatal("the first client did not start the embedded server")
	}
	wc := connect(t, cfg)
	if wc.Embedded() != nil {
		t.Fatal("the second client started a second server")
	}
	w := wc.NewWorker(WorkerOptions{Engine: engineOpts(t, srv), WorkRoot: t.TempDir()})
	ran := make(chan error, 1)
	go func() { ran <- w.Run(context.Background()) }()
	// Once the worker is taking tasks, the process that ran the server ends.
	for {
		if _, err := owner.js.Consumer(context.Background(), QueueStream, WorkersName); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	owner.Close()

	select {
	case err := <-ran:
		if !errors.Is(err, ErrServerGone) {
			t.Fatalf("Run = %v, want ErrServerGone", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the worker did not notice the server went away")
	}
	// Meanwhile another `tasks add` started the server again and queued a task.
	adder := connect(t, cfg)
	task, err := adder.Add(context.Background(), Spec{Prompt: "x", Dir: newRepo(t)})
	if err != nil {
		t.Fatal(err)
	}
	adder.Close()
	nc := connect(t, cfg)
	if nc.Embedded() == nil {
		t.Fatal("the worker's new connection does not own the server")
	}
	stop, _ := startWorkers(t, cfg, 1, WorkerOptions{Engine: engineOpts(t, srv), WorkRoot: t.TempDir()})
	got := waitAll(t, nc, []string{task.ID}, time.Minute)[0]
	stop()
	if got.State != Completed {
		t.Errorf("task after the takeover: %s %s", got.State, got.Error)
	}
}
