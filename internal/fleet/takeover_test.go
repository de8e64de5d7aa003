package fleet

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm/llmtest"
)

// gate holds the model's requests until opened; it counts them.
type gate struct {
	open   chan struct{}
	posted atomic.Int32
}

func (g *gate) RoundTrip(r *http.Request) (*http.Response, error) {
	g.posted.Add(1)
	select {
	case <-g.open:
		return http.DefaultTransport.RoundTrip(r)
	case <-r.Context().Done():
		return nil, r.Context().Err()
	}
}

// A worker connected to the embedded server of another process (a `tasks
// add` that started it) that ends runs the server itself and carries on:
// the task it was running keeps its first attempt and completes, and a
// task queued afterwards runs too.
func TestWorkerTakesOverTheEmbeddedServer(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("first"), llmtest.Text("second"))
	srv.MultiConversation()
	g := &gate{open: make(chan struct{})}
	dir := t.TempDir()
	cfg := Config{Dir: dir, AckWait: time.Second}
	owner, err := Connect(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if owner.Embedded() == nil {
		t.Fatal("the first client did not start the embedded server")
	}
	first, err := owner.Add(context.Background(), Spec{Prompt: "x", Dir: newRepo(t)})
	if err != nil {
		t.Fatal(err)
	}
	wc := connect(t, cfg)
	if wc.Embedded() != nil {
		t.Fatal("the second client started a second server")
	}
	eo := engineOpts(t, srv)
	eo.HTTPClient = &http.Client{Transport: g}
	w := wc.NewWorker(WorkerOptions{Name: "w", Engine: eo, WorkRoot: t.TempDir()})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- w.Run(ctx) }()
	defer func() { cancel(); <-ran }()
	waitUntil(t, "the worker to ask the model", func() bool { return g.posted.Load() == 1 })
	owner.Close() // the process that ran the server ends mid-task
	waitUntil(t, "the worker to run the server", func() bool { return wc.Embedded() != nil })
	close(g.open)

	c := connect(t, cfg)
	if got := waitAll(t, c, []string{first.ID}, time.Minute)[0]; got.State != Completed || got.Attempts != 1 || got.Result != "first" {
		t.Errorf("the running task: %s attempts %d result %q error %q", got.State, got.Attempts, got.Result, got.Error)
	}
	second, err := c.Add(context.Background(), Spec{Prompt: "y", Dir: newRepo(t)})
	if err != nil {
		t.Fatal(err)
	}
	if got := waitAll(t, c, []string{second.ID}, time.Minute)[0]; got.State != Completed || got.Result != "second" {
		t.Errorf("the task queued after the takeover: %s %s", got.State, got.Error)
	}
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
