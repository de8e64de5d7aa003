package fleet

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/openseek/openseek/internal/llm/llmtest"
)

// BenchmarkQueue measures the queue alone: add a task, take it, claim it,
// record its completion, publish its end and acknowledge it — every
// JetStream round trip a task costs, without the engine.
func BenchmarkQueue(b *testing.B) {
	c := connect(b, Config{Dir: b.TempDir(), AckWait: 30 * time.Second})
	ctx := context.Background()
	cons, err := c.consumer(ctx)
	if err != nil {
		b.Fatal(err)
	}
	repo := b.TempDir()
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Add(ctx, Spec{Prompt: "x", Dir: repo}); err != nil {
			b.Fatal(err)
		}
		msg, err := cons.Next(jetstream.FetchMaxWait(5 * time.Second))
		if err != nil {
			b.Fatal(err)
		}
		id := string(msg.Data())
		if _, err := c.update(ctx, id, func(t *Task) error { t.State, t.Attempts = Running, t.Attempts+1; return nil }); err != nil {
			b.Fatal(err)
		}
		t, err := c.Get(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		t.State = Completed
		if _, _, err := c.end(ctx, t); err != nil {
			b.Fatal(err)
		}
		if err := msg.DoubleAck(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tasks/s")
}

// BenchmarkWorkers measures whole tasks through 4 workers (2 slots each)
// with an instant scripted model: worktree, engine, turn, diff, records.
func BenchmarkWorkers(b *testing.B) {
	n := b.N
	turns := make([]llmtest.Turn, n)
	for i := range turns {
		turns[i] = llmtest.Text("done")
	}
	srv := llmtest.NewServer(b, turns...)
	srv.MultiConversation()
	cfg := Config{Dir: b.TempDir(), AckWait: 30 * time.Second}
	c := connect(b, cfg)
	repo := newRepo(b)
	var ids []string
	for range n {
		t, err := c.Add(context.Background(), Spec{Prompt: "x", Dir: repo})
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, t.ID)
	}
	b.ResetTimer()
	stop, _ := startWorkers(b, cfg, 4, WorkerOptions{Concurrency: 2, Engine: engineOpts(b, srv), WorkRoot: b.TempDir()})
	waitAll(b, c, ids, 10*time.Minute)
	b.StopTimer()
	stop()
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "tasks/s")
}

// BenchmarkPickup measures the time from Add returning to an idle
// worker starting the task.
func BenchmarkPickup(b *testing.B) {
	srv := llmtest.NewServer(b)
	srv.MultiConversation()
	cfg := Config{Dir: b.TempDir(), AckWait: 30 * time.Second}
	c := connect(b, cfg)
	repo := newRepo(b)
	started := make(chan time.Time, 1)
	startWorkers(b, cfg, 1, WorkerOptions{Engine: engineOpts(b, srv), WorkRoot: b.TempDir(),
		OnStart: func(*Task) { started <- time.Now() }})
	var total time.Duration
	b.ResetTimer()
	for b.Loop() {
		srv.Push(llmtest.Text("done"))
		t0 := time.Now()
		t, err := c.Add(context.Background(), Spec{Prompt: "x", Dir: repo})
		if err != nil {
			b.Fatal(err)
		}
		total += (<-started).Sub(t0)
		waitAll(b, c, []string{t.ID}, time.Minute)
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/pickup")
}
