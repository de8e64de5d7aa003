//go:build !headless

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/openseek/openseek/internal/fleet"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// fleetServer starts a NATS server in process for a test's fleet, and a
// client of it for the test to read the tasks with.
func fleetServer(t *testing.T) (*fleet.Embedded, *fleet.Client) {
	t.Helper()
	emb, err := fleet.StartEmbedded(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(emb.Close)
	fc, err := fleet.Connect(context.Background(), fleet.Config{URL: emb.URL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fc.Close)
	return emb, fc
}

// `tasks add --workflow FILE args…` runs the workflow on a worker (the
// default sandbox on) as the task's session: its tool calls are recorded
// under the run's call, its agent is the session <task session>-sr-1
// announced on the run's stream, what it printed is the task's result,
// the agent's spend counts in the task's cost, and `tasks logs` and `tasks show`
// show the run. A workflow that fails makes a failed task naming its line.
func TestTaskRunsAWorkflow(t *testing.T) {
	t.Parallel()
	emb, fc := fleetServer(t)
	home := t.TempDir()
	env := []string{"HOME=" + home}
	repo := fleetRepo(t, map[string]string{"a.txt": "alpha\n"})
	flow := writeWorkflow(t, `text = read(path = "a.txt")
listed = shell(cmd = "ls")
r = agent(task = "write b.txt")
print(json.encode({"read": "alpha" in text, "listed": "a.txt" in listed, "ok": r.ok, "answer": r.answer, "session": r.session, "args": args}))
`)
	srv := llmtest.NewServer(t, writeAndFinish("b.txt", "beta\n", "wrote b"))
	r := openseek(t, repo, "", env, "tasks", "add", "--nats", emb.URL, "--workflow", flow, "one", "two")
	if r.code != 0 {
		t.Fatalf("tasks add: exit %d: %s", r.code, r.stderr)
	}
	id := strings.TrimSpace(r.stdout)
	failing := openseek(t, repo, "", env, "tasks", "add", "--nats", emb.URL, "--workflow", writeWorkflow(t, "print('before')\nfail('boom')\n"))
	if failing.code != 0 {
		t.Fatalf("tasks add: exit %d: %s", failing.code, failing.stderr)
	}
	failID := strings.TrimSpace(failing.stdout)

	startWorker(t, home, emb.URL, srv.URL(), "W")
	task := waitTask(t, fc, id)
	if task.State != fleet.Completed || task.Session != "task-"+id || task.Prompt != "workflow flow one two" {
		t.Fatalf("task: state %s session %q prompt %q error %q", task.State, task.Session, task.Prompt, task.Error)
	}
	var out struct {
		Read, Listed, OK bool
		Answer, Session  string
		Args             []string
	}
	if err := json.Unmarshal([]byte(task.Result), &out); err != nil {
		t.Fatalf("the task's result is not the workflow's output: %v: %q", err, task.Result)
	}
	if !out.Read || !out.Listed || !out.OK || out.Answer != "wrote b" || out.Session != task.Session+"-sr-1" || strings.Join(out.Args, " ") != "one two" {
		t.Errorf("workflow output: %+v", out)
	}
	// The run itself asks no model; its agent does, at the price of the
	// model "m", which no catalogue knows: counted, the cost is unknown
	// (left out, it would be a false $0).
	if !task.CostUnknown {
		t.Errorf("the task's cost leaves out its agent's: $%g, not unknown", task.CostUSD)
	}
	if b, _ := os.ReadFile(filepath.Join(task.Workspace, "b.txt")); string(b) != "beta\n" {
		t.Errorf("the agent did not write b.txt in the task's workspace: %q", b)
	}
	store := session.NewStore(filepath.Join(task.Workspace, ".openseek"))
	if !store.Exists(task.Session + "-sr-1") {
		t.Errorf("no agent session %s-sr-1 beside the run's", task.Session)
	}
	s, err := store.Load(task.Session)
	if err != nil {
		t.Fatal(err)
	}
	var kids []string
	for _, e := range s.Events {
		if it, ok := e.Item.(*session.ToolResult); ok && it.Parent != "" {
			kids = append(kids, it.ToolName)
		}
	}
	if strings.Join(kids, ",") != "read,shell" {
		t.Errorf("the run's session records the calls %v under its call, want read,shell", kids)
	}

	logs := openseek(t, repo, "", env, "tasks", "logs", "--nats", emb.URL, "--format", "jsonl", id)
	if !strings.Contains(logs.stderr, "task "+id+": completed") {
		t.Errorf("tasks logs: no end line in %q", logs.stderr)
	}
	var started []protocol.SubrunStarted
	for _, line := range strings.Split(logs.stdout, "\n") {
		if ev, ok := protocol.ParseEvent([]byte(line)); ok {
			if s, ok := ev.(protocol.SubrunStarted); ok {
				started = append(started, s)
			}
		}
	}
	if len(started) != 1 || started[0].ID != task.Session+"-sr-1" || !strings.Contains(logs.stdout, `"parent":"wf`) {
		t.Errorf("tasks logs does not show the run's agent and calls: %v\n%s", started, logs.stdout)
	}
	show := openseek(t, repo, "", env, "tasks", "show", "--nats", emb.URL, id)
	for _, want := range []string{"state:     completed", "task:      workflow flow one two", `"answer":"wrote b"`} {
		if !strings.Contains(show.stdout, want) {
			t.Errorf("tasks show lacks %q:\n%s", want, show.stdout)
		}
	}

	failed := waitTask(t, fc, failID)
	if failed.State != fleet.Failed || !strings.Contains(failed.Error, "line 2: fail: boom") || failed.Result != "before\n" {
		t.Errorf("a failing workflow's task: state %s error %q result %q", failed.State, failed.Error, failed.Result)
	}
}

// An unknown workflow is refused when the task is added, and nothing is
// queued; a task that names one the worker does not know (added through
// the API, with no source) fails on the worker with the same words
// instead of hanging.
func TestTaskUnknownWorkflow(t *testing.T) {
	t.Parallel()
	emb, fc := fleetServer(t)
	home := t.TempDir()
	env := []string{"HOME=" + home}
	repo := fleetRepo(t, nil)
	r := openseek(t, repo, "", env, "tasks", "add", "--nats", emb.URL, "--workflow", "nosuch")
	if r.code == 0 || !strings.Contains(r.stderr, `no workflow named "nosuch"; known: check, fix-tests, review`) {
		t.Fatalf("tasks add --workflow nosuch: exit %d, stderr %q", r.code, r.stderr)
	}
	if ts, _ := fc.List(context.Background()); len(ts) != 0 {
		t.Fatalf("a refused task was queued: %+v", ts[0])
	}
	for _, tc := range []struct{ name, want string }{
		{"nosuch", `no workflow named "nosuch"`},
		{"elsewhere.star", "carries no source"},
	} {
		task, err := fc.Add(context.Background(), fleet.Spec{Workflow: tc.name, Dir: repo})
		if err != nil {
			t.Fatal(err)
		}
		if tc.name == "nosuch" {
			startWorker(t, home, emb.URL, llmtest.NewServer(t).URL(), "W")
		}
		got := waitTask(t, fc, task.ID)
		if got.State != fleet.Failed || !strings.Contains(got.Error, tc.want) {
			t.Errorf("workflow %s on the worker: state %s error %q, want failed with %q", tc.name, got.State, got.Error, tc.want)
		}
	}
}

// TestTaskWorkflowAsOrdinaryUser runs the workflow task tests again as an
// ordinary user.
func TestTaskWorkflowAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^(TestTaskRunsAWorkflow|TestTaskUnknownWorkflow|TestTaskWorkflowResumesAfterAKill)$")
}

// A worker killed (SIGKILL) in the middle of a workflow task leaves its
// session whole; the next worker records the killed run's call as failed
// and its turn as interrupted, runs the workflow again in the same
// session and workspace, and completes the task once.
func TestTaskWorkflowResumesAfterAKill(t *testing.T) {
	t.Parallel()
	emb, fc := fleetServer(t)
	home := t.TempDir()
	repo := fleetRepo(t, nil)
	// The first run waits in its command; the second finds the mark and goes on.
	flow := writeWorkflow(t, "shell(cmd = \"test -f mark || { touch mark; sleep 60; }\", timeout_ms = 120000)\nprint(\"done after the kill\")\n")
	r := openseek(t, repo, "", []string{"HOME=" + home}, "tasks", "add", "--nats", emb.URL, "--workflow", flow)
	if r.code != 0 {
		t.Fatalf("tasks add: exit %d: %s", r.code, r.stderr)
	}
	id := strings.TrimSpace(r.stdout)
	srv := llmtest.NewServer(t)
	a := startWorker(t, home, emb.URL, srv.URL(), "A")
	var ws string
	waitFor(t, "the first run to reach its command", func() bool {
		task, _ := fc.Get(context.Background(), id)
		if task == nil || task.Workspace == "" {
			return false
		}
		ws = task.Workspace
		_, err := os.Stat(filepath.Join(ws, "mark"))
		return err == nil
	})
	if err := a.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = a.Wait()
	if _, err := session.NewStore(filepath.Join(ws, ".openseek")).Load("task-" + id); err != nil {
		t.Fatalf("the killed run's session does not load: %v", err)
	}

	startWorker(t, home, emb.URL, srv.URL(), "B")
	task := waitTask(t, fc, id)
	if task.State != fleet.Completed || task.Attempts != 2 || task.Result != "done after the kill\n" {
		t.Fatalf("task: state %s attempts %d result %q error %q", task.State, task.Attempts, task.Result, task.Error)
	}
	s, err := session.NewStore(filepath.Join(ws, ".openseek")).Load(task.Session)
	if err != nil {
		t.Fatal(err)
	}
	var ends []string
	for _, e := range s.Events {
		if term, ok := e.Item.(*session.Terminal); ok {
			ends = append(ends, string(term.Kind))
		}
	}
	if strings.Join(ends, ",") != "interrupted,finished" {
		t.Errorf("the session's turns ended %v; want the killed one interrupted, then the resumed one finished", ends)
	}
}
