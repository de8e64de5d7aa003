package fleet

import (
	"context"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/session"
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

// A task delivered again while a live process on the machine has its
// session open — a worker the probe did not reach — is not run, nor
// failed: the record goes back to that attempt, and once the session is
// free the task is taken over and completes.
func TestATaskWhoseSessionIsOpenIsNotTaken(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("first"), llmtest.Text("resumed"))
	srv.MultiConversation()
	cfg := Config{Dir: t.TempDir(), AckWait: time.Second}
	c := connect(t, cfg)
	root := t.TempDir()
	ctx := context.Background()
	// The first worker ran a turn and keeps its session open, but answers
	// no probe (cut off from NATS) and sends no heartbeat.
	task, cur := abandoned(t, c, "cut-off")
	if _, err := c.NewWorker(WorkerOptions{Name: "cut-off", Engine: engineOpts(t, srv), WorkRoot: root}).execute(ctx, cur); err != nil {
		t.Fatal(err)
	}
	open, err := session.NewStore(filepath.Join(root, task.ID, ".openseek")).OpenWriter(cur.Session, "", "the cut-off worker")
	if err != nil {
		t.Fatal(err)
	}
	var starts atomic.Int32
	stop, _ := startWorkers(t, cfg, 1, WorkerOptions{Engine: engineOpts(t, srv), WorkRoot: root, OnStart: func(*Task) { starts.Add(1) }})
	waitUntil(t, "another worker to try the task", func() bool { return starts.Load() > 0 })
	waitUntil(t, "the record to go back to the first attempt", func() bool {
		got, err := c.Get(ctx, task.ID)
		return err == nil && got.State == Running && got.Attempts == 1 && got.Worker == "cut-off"
	})
	if len(srv.Requests()) != 1 {
		t.Errorf("the task ran while its session was open elsewhere")
	}
	open.Close()
	got := waitAll(t, c, []string{task.ID}, time.Minute)[0]
	stop()
	if got.State != Completed || got.Result != "resumed" || got.Worker != "wa" {
		t.Errorf("task: %s attempts %d worker %q result %q error %q", got.State, got.Attempts, got.Worker, got.Result, got.Error)
	}
}
