package fleet

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/goleak"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/llmtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newRepo makes a git repository with one commit.
func newRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "base"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("sh", "-c", "cd "+dir+" && git add a.txt && git -c user.email=t@t -c user.name=t commit -qm a").CombinedOutput(); err != nil {
		t.Fatalf("commit: %v\n%s", err, out)
	}
	return dir
}

// connect opens a client on the embedded server under dir (the first
// one starts it), closed at cleanup.
func connect(t testing.TB, cfg Config) *Client {
	t.Helper()
	if cfg.Name == "" {
		cfg.Name = "test"
	}
	c, err := Connect(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func engineOpts(t testing.TB, srv *llmtest.Server) engine.Options {
	return engine.Options{
		Home: t.TempDir(), Model: "test-model", APIURL: srv.URL(), NoSandbox: true, NoVerify: true,
		Retry: llm.RetryPolicy{Attempts: 1, Base: time.Millisecond, Max: time.Millisecond},
		// Snapshots (for rewind) cost a git commit per turn; these tests
		// measure the queue, not them.
		Getenv: func(k string) string {
			if k == "OPENSEEK_SNAPSHOTS" {
				return "off"
			}
			return ""
		},
	}
}

// startWorkers runs n workers, each on its own connection, until the
// returned stop is called.
func startWorkers(t testing.TB, cfg Config, n int, opts WorkerOptions) (stop func(), workers []*Worker) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range n {
		c := connect(t, cfg)
		o := opts
		o.Name = "w" + string(rune('a'+i))
		w := c.NewWorker(o)
		workers = append(workers, w)
		wg.Go(func() { _ = w.Run(ctx) })
	}
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); wg.Wait() }) }
	t.Cleanup(stop)
	return stop, workers
}

// waitAll waits until every listed task is terminal.
func waitAll(t testing.TB, c *Client, ids []string, within time.Duration) []*Task {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var out []*Task
		done := true
		for _, id := range ids {
			task, err := c.Get(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, task)
			done = done && task.State.Terminal()
		}
		if done {
			return out
		}
		if time.Now().After(deadline) {
			for _, task := range out {
				if !task.State.Terminal() {
					t.Fatalf("task %s still %s after %s (attempts %d, worker %s)", task.ID, task.State, within, task.Attempts, task.Worker)
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// endMarkers counts the end markers of every task in the events stream.
func endMarkers(t testing.TB, c *Client) map[string][]State {
	t.Helper()
	// A deadline, not a timing: a hundred tasks' events took more than
	// 10 s to read with the race detector on a busy machine.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var si *jetstream.StreamInfo
	if err := retry(ctx, func() error {
		info, err := c.js.Stream(ctx, EventsStream)
		if err == nil {
			si, err = info.Info(ctx)
		}
		return err
	}); err != nil {
		t.Fatalf("events stream info: %v", err)
	}
	out := map[string][]State{}
	if si.State.Msgs == 0 {
		return out
	}
	var cons jetstream.Consumer
	if err := retry(ctx, func() (err error) {
		cons, err = c.js.OrderedConsumer(ctx, EventsStream, jetstream.OrderedConsumerConfig{})
		return err
	}); err != nil {
		t.Fatalf("events consumer: %v", err)
	}
	for {
		msg, err := cons.Next(jetstream.FetchContext(ctx))
		if err != nil && transient(err) {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if err != nil {
			t.Fatalf("read the events: %v", err)
		}
		if end := msg.Headers().Get(hdrEnd); end != "" {
			id := strings.TrimSuffix(strings.TrimPrefix(msg.Subject(), eventsSubject), ".end")
			out[id] = append(out[id], State(end))
		}
		md, _ := msg.Metadata()
		if md.Sequence.Stream >= si.State.LastSeq {
			return out
		}
	}
}

func TestHundredTasksFourWorkersExactlyOnce(t *testing.T) {
	const n = 100
	turns := make([]llmtest.Turn, n)
	for i := range turns {
		turns[i] = llmtest.Text("done")
	}
	srv := llmtest.NewServer(t, turns...)
	srv.MultiConversation()
	cfg := Config{Dir: t.TempDir(), AckWait: 10 * time.Second}
	c := connect(t, cfg)
	repo := newRepo(t)
	var ids []string
	for range n {
		task, err := c.Add(context.Background(), Spec{Prompt: "say done", Dir: repo})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, task.ID)
	}
	stop, workers := startWorkers(t, cfg, 4, WorkerOptions{Concurrency: 2, Engine: engineOpts(t, srv), WorkRoot: t.TempDir()})
	tasks := waitAll(t, c, ids, 2*time.Minute)
	stop()
	for _, task := range tasks {
		if task.State != Completed || task.Attempts != 1 || task.Result != "done" || task.Session != "task-"+task.ID {
			t.Errorf("task %s: state %s attempts %d result %q session %q error %q", task.ID, task.State, task.Attempts, task.Result, task.Session, task.Error)
		}
	}
	var finished int64
	used := 0
	for _, w := range workers {
		finished += w.Finished()
		if w.Finished() > 0 {
			used++
		}
	}
	if finished != n {
		t.Errorf("workers finished %d tasks, want %d", finished, n)
	}
	if used < 2 {
		t.Errorf("only %d of 4 workers took tasks", used)
	}
	ends := endMarkers(t, c)
	for _, id := range ids {
		if got := ends[id]; len(got) != 1 || got[0] != Completed {
			t.Errorf("task %s: end markers %v, want exactly one completed", id, got)
		}
	}
	if srv.Remaining() != 0 {
		t.Errorf("%d model turns not played", srv.Remaining())
	}
	// The queue is empty: every delivery was acknowledged.
	info, err := c.js.Stream(context.Background(), QueueStream)
	if err != nil {
		t.Fatal(err)
	}
	if si, _ := info.Info(context.Background()); si.State.Msgs != 0 {
		t.Errorf("queue still holds %d messages", si.State.Msgs)
	}
}

// A worker that took a task and died (no heartbeat, no ack) loses it
// after the ack wait; another worker resumes it in the same workspace and
// session, and the dead attempt can no longer finish it.
func TestAbandonedTaskIsResumedOnce(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("first"), llmtest.Text("resumed"))
	srv.MultiConversation()
	cfg := Config{Dir: t.TempDir(), AckWait: time.Second}
	c := connect(t, cfg)
	repo := newRepo(t)
	root := t.TempDir()
	task, err := c.Add(context.Background(), Spec{Prompt: "work", Dir: repo})
	if err != nil {
		t.Fatal(err)
	}
	// The first worker runs the turn in full, then dies before recording
	// the end: its session is on disk, its message unacknowledged.
	ctx := context.Background()
	cons, err := c.consumer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := cons.Next()
	if err != nil {
		t.Fatal(err)
	}
	ghost := c.NewWorker(WorkerOptions{Name: "ghost", Engine: engineOpts(t, srv), WorkRoot: root})
	cur, err := c.update(ctx, task.ID, func(t *Task) error {
		t.State, t.Attempts, t.Worker, t.Session = Running, 1, "ghost", "task-"+t.ID
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	finishGhost, err := ghost.execute(ctx, cur)
	if err != nil {
		t.Fatal(err)
	}
	_ = msg // never acknowledged: the ghost is dead

	started := time.Now()
	stop, _ := startWorkers(t, cfg, 1, WorkerOptions{Engine: engineOpts(t, srv), WorkRoot: root})
	got := waitAll(t, c, []string{task.ID}, time.Minute)[0]
	t.Logf("recovered %s after the holder died (ack wait 1s)", time.Since(started).Round(time.Millisecond))
	stop()
	if got.State != Completed || got.Attempts != 2 || got.Result != "resumed" || got.Worker != "wa" {
		t.Fatalf("resumed task: state %s attempts %d result %q worker %q error %q", got.State, got.Attempts, got.Result, got.Worker, got.Error)
	}
	// The resumed turn saw the first turn's conversation: same session.
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "first") || !strings.Contains(string(reqs[1].Body), "interrupted") {
		t.Errorf("the resumed request does not carry the first attempt's session: %d requests", len(reqs))
	}
	// The dead attempt cannot complete the task again.
	_, err = c.update(ctx, task.ID, func(cur *Task) error {
		if cur.State != Running || cur.Attempts != 1 {
			return errSkip
		}
		finishGhost(cur)
		return nil
	})
	if !errors.Is(err, errSkip) {
		t.Errorf("a stale attempt could still finish the task: %v", err)
	}
	if ends := endMarkers(t, c)[task.ID]; len(ends) != 1 {
		t.Errorf("end markers %v, want one", ends)
	}
}
