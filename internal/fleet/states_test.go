package fleet

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm/llmtest"
)

// Tasks that cannot run end in a clear state, and a cancelled or
// malformed entry is never run; the worker goes on with the next.
func TestTerminalStates(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Stall{After: 0}, llmtest.Text("ok"))
	srv.MultiConversation()
	cfg := Config{Dir: t.TempDir(), AckWait: 5 * time.Second}
	c := connect(t, cfg)
	ctx := context.Background()
	repo := newRepo(t)

	cancelled, err := c.Add(ctx, Spec{Prompt: "never runs", Dir: repo})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Cancel(ctx, cancelled.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Cancel(ctx, cancelled.ID); err == nil || !strings.Contains(err.Error(), "already cancelled") {
		t.Errorf("second cancel: %v", err)
	}
	// A malformed record in the bucket and its queue entry.
	if _, err := c.kv.Create(ctx, "tbroken", []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.js.Publish(ctx, queueSubject, []byte("tbroken")); err != nil {
		t.Fatal(err)
	}
	vanished, _ := c.Add(ctx, Spec{Prompt: "x", Dir: filepath.Join(t.TempDir(), "gone")})
	notRepo, _ := c.Add(ctx, Spec{Prompt: "x", Dir: t.TempDir()})
	badClone, _ := c.Add(ctx, Spec{Prompt: "x", Repo: filepath.Join(t.TempDir(), "no-such-repo")})
	late, _ := c.Add(ctx, Spec{Prompt: "x", Dir: repo, Deadline: time.Now().Add(-time.Minute)})
	// The model stalls: the deadline stops the turn.
	stalled, _ := c.Add(ctx, Spec{Prompt: "x", Dir: repo, Deadline: time.Now().Add(1500 * time.Millisecond)})
	after, _ := c.Add(ctx, Spec{Prompt: "x", Dir: repo})

	stop, _ := startWorkers(t, cfg, 1, WorkerOptions{Engine: engineOpts(t, srv), WorkRoot: t.TempDir()})
	ids := []string{cancelled.ID, vanished.ID, notRepo.ID, badClone.ID, late.ID, stalled.ID, after.ID}
	got := waitAll(t, c, ids, time.Minute)
	stop()
	for i, tc := range []struct {
		state State
		err   string
	}{
		{Cancelled, "cancelled by request"},
		{Failed, "does not exist on this worker"},
		{Failed, "is not a git repository"},
		{Failed, "clone "},
		{Failed, "deadline"},
		{Failed, "deadline"},
		{Completed, ""},
	} {
		task := got[i]
		if task.State != tc.state || tc.err != "" && !strings.Contains(task.Error, tc.err) || tc.err == "" && task.Error != "" {
			t.Errorf("task %d: state %s error %q; want %s %q", i, task.State, task.Error, tc.state, tc.err)
		}
	}
	if got[0].Attempts != 0 {
		t.Errorf("the cancelled task ran %d times", got[0].Attempts)
	}
	if _, err := c.Get(ctx, "tbroken"); !errors.Is(err, ErrMalformed) {
		t.Errorf("malformed record: %v", err)
	}
	ends := endMarkers(t, c)
	for i, id := range ids {
		if len(ends[id]) != 1 || ends[id][0] != got[i].State {
			t.Errorf("task %s: end markers %v, want [%s]", id, ends[id], got[i].State)
		}
	}
}

// Cancelling a running task stops its turn; the worker records nothing
// over the cancellation.
func TestCancelRunningTask(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Stall{After: 0})
	srv.MultiConversation()
	cfg := Config{Dir: t.TempDir(), AckWait: 5 * time.Second}
	c := connect(t, cfg)
	ctx := context.Background()
	task, err := c.Add(ctx, Spec{Prompt: "long", Dir: newRepo(t)})
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{}, 1)
	stop, workers := startWorkers(t, cfg, 1, WorkerOptions{Engine: engineOpts(t, srv), WorkRoot: t.TempDir(),
		OnStart: func(*Task) { started <- struct{}{} }})
	<-started
	for len(srv.Requests()) == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := c.Cancel(ctx, task.ID); err != nil {
		t.Fatal(err)
	}
	// The worker is free again: it takes the next task.
	srv.Push(llmtest.Text("next"))
	next, _ := c.Add(ctx, Spec{Prompt: "next", Dir: newRepo(t)})
	got := waitAll(t, c, []string{task.ID, next.ID}, time.Minute)
	stop()
	if got[0].State != Cancelled || got[1].State != Completed || workers[0].Finished() != 1 {
		t.Errorf("states %s %s, worker finished %d", got[0].State, got[1].State, workers[0].Finished())
	}
}

// Best-of-N: each run gets its own workspace; the parent picks the run
// that passed the verify command with the fewest changed lines, reports
// every run with its diff, and sums the cost.
func TestBestOfN(t *testing.T) {
	// One worker, one task at a time: the runs take the script in order.
	// Run 1 writes three good lines, run 2 a bad one, run 3 one good line.
	write := func(content string) llmtest.Turn {
		return llmtest.Reply{Reasoning: "write it", Calls: []llmtest.Call{{Name: "write", Args: `{"path":"out.txt","content":"` + content + `"}`}}}
	}
	srv := llmtest.NewServer(t,
		write(`good\ngood\ngood\n`), llmtest.Text("done 1"),
		write(`bad\n`), llmtest.Text("done 2"),
		write(`good\n`), llmtest.Text("done 3"))
	srv.MultiConversation()
	cfg := Config{Dir: t.TempDir(), AckWait: 5 * time.Second}
	c := connect(t, cfg)
	ctx := context.Background()
	parent, err := c.Add(ctx, Spec{Prompt: "improve", Dir: newRepo(t), Runs: 3, Verify: "grep -q good out.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if len(parent.Children) != 3 || parent.State != Queued {
		t.Fatalf("parent %+v", parent)
	}
	stop, _ := startWorkers(t, cfg, 1, WorkerOptions{Engine: engineOpts(t, srv), WorkRoot: t.TempDir()})
	runs := waitAll(t, c, parent.Children, time.Minute)
	p := waitAll(t, c, []string{parent.ID}, time.Minute)[0]
	stop()
	workspaces := map[string]bool{}
	for i, r := range runs {
		workspaces[r.Workspace] = true
		// A run whose verify command failed did not do the task.
		want := map[bool]State{true: Completed, false: Failed}[i != 1]
		if r.State != want || r.VerifyOK == nil || r.Result != fmt.Sprintf("done %d", i+1) || !strings.Contains(r.Diff, "+++ b/out.txt") ||
			(want == Failed) != strings.Contains(r.Error, "the verify command failed (grep -q good out.txt)") {
			t.Errorf("run %d: %s verify %v result %q diff %q error %q", i+1, r.State, r.VerifyOK, r.Result, r.Diff, r.Error)
		}
	}
	if len(workspaces) != 3 {
		t.Errorf("runs shared workspaces: %v", workspaces)
	}
	if *runs[1].VerifyOK || !*runs[0].VerifyOK || runs[0].ChangedLines != 3 || runs[2].ChangedLines != 1 {
		t.Errorf("verify/changed: %v/%d %v/%d %v/%d", *runs[0].VerifyOK, runs[0].ChangedLines, *runs[1].VerifyOK, runs[1].ChangedLines, *runs[2].VerifyOK, runs[2].ChangedLines)
	}
	if p.State != Completed || p.Chosen != runs[2].ID || p.Result != "done 3" || p.Diff != runs[2].Diff {
		t.Errorf("parent: %s chosen %q result %q error %q", p.State, p.Chosen, p.Result, p.Error)
	}
	if ends := endMarkers(t, c)[parent.ID]; len(ends) != 1 || ends[0] != Completed {
		t.Errorf("parent end markers %v", ends)
	}
}

func TestPick(t *testing.T) {
	yes, no := true, false
	run := func(n int, st State, v *bool, lines int, cost float64) *Task {
		return &Task{ID: fmt.Sprint("r", n), Run: n, State: st, VerifyOK: v, ChangedLines: lines, CostUSD: cost}
	}
	for _, tc := range []struct {
		name     string
		runs     []*Task
		verified bool
		want     string // "" = none
	}{
		{"fewest lines", []*Task{run(1, Completed, nil, 9, 0), run(2, Completed, nil, 3, 0), run(3, Completed, nil, 5, 0)}, false, "r2"},
		{"verify first", []*Task{run(1, Completed, &no, 1, 0), run(2, Completed, &yes, 7, 0)}, true, "r2"},
		{"failed runs never", []*Task{run(1, Failed, nil, 0, 0), run(2, Completed, nil, 4, 0)}, false, "r2"},
		{"tie: cheaper", []*Task{run(1, Completed, nil, 2, 0.5), run(2, Completed, nil, 2, 0.1)}, false, "r2"},
		{"tie: first", []*Task{run(1, Completed, nil, 2, 0), run(2, Completed, nil, 2, 0)}, false, "r1"},
		{"none passes", []*Task{run(1, Completed, &no, 1, 0)}, true, ""},
		{"none completes", []*Task{run(1, Failed, nil, 1, 0), run(2, Cancelled, nil, 0, 0)}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, why := Pick(tc.runs, tc.verified)
			switch {
			case tc.want == "" && (got != nil || why == ""):
				t.Errorf("got %v, why %q; want none with a reason", got, why)
			case tc.want != "" && (got == nil || got.ID != tc.want):
				t.Errorf("got %v; want %s", got, tc.want)
			}
		})
	}
}
