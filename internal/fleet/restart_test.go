package fleet

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/openseek/openseek/internal/llm/llmtest"
)

// A NATS server that goes away mid-run and comes back: workers wait,
// reconnect and go on; no task is lost.
func TestServerRestartMidRun(t *testing.T) {
	port, store := freePort(t), t.TempDir()
	start := func() *server.Server {
		s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: store, NoLog: true, NoSigs: true})
		if err != nil {
			t.Fatal(err)
		}
		s.Start()
		if !s.ReadyForConnections(10 * time.Second) {
			t.Fatal("server not ready")
		}
		return s
	}
	s := start()
	srv := llmtest.NewServer(t, llmtest.Text("one"), llmtest.Text("two"))
	srv.MultiConversation()
	cfg := Config{URL: fmt.Sprintf("nats://127.0.0.1:%d", port), AckWait: 5 * time.Second}
	c := connect(t, cfg)
	repo := newRepo(t)
	stop, _ := startWorkers(t, cfg, 1, WorkerOptions{Engine: engineOpts(t, srv), WorkRoot: t.TempDir()})
	first, err := c.Add(context.Background(), Spec{Prompt: "x", Dir: repo})
	if err != nil {
		t.Fatal(err)
	}
	waitAll(t, c, []string{first.ID}, time.Minute)

	s.Shutdown()
	s.WaitForShutdown()
	s = start()
	defer func() { s.Shutdown(); s.WaitForShutdown() }()
	second, err := c.Add(context.Background(), Spec{Prompt: "x", Dir: repo})
	if err != nil {
		t.Fatal(err)
	}
	got := waitAll(t, c, []string{first.ID, second.ID}, time.Minute)
	stop()
	for _, task := range got {
		if task.State != Completed || task.Attempts != 1 {
			t.Errorf("task %s: %s attempts %d %s", task.ID, task.State, task.Attempts, task.Error)
		}
	}
}
