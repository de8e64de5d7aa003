package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/fleet"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
)

// startWorker starts `openseek worker` as a child process (the test
// binary standing in for openseek) and returns it running: the default
// sandbox on, on the NATS at natsURL, or with "" the machine's embedded
// server under home. --no-verify: the engine's build check has nothing
// to check in these repositories.
func startWorker(t *testing.T, home, natsURL, apiURL, name string) *exec.Cmd {
	t.Helper()
	args := []string{"worker", "--ack-wait", "1s", "--name", name, "--no-verify", "--model", "m", "--api-url", apiURL}
	if natsURL != "" {
		args = append(args, "--nats", natsURL)
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = []string{"OPENSEEK_TEST_MAIN=1", "HOME=" + home, "PATH=" + os.Getenv("PATH"), "OPENSEEK_RETRY_BACKOFF_MS=1", "OPENSEEK_SNAPSHOTS=off"}
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("worker %s stderr:\n%s", name, errb.String())
		}
	})
	return cmd
}

// A worker process killed with SIGKILL in the middle of a task loses its
// hold; a second worker process resumes the task in the same workspace
// and session and completes it, once.
func TestWorkerKilledMidTaskIsResumedByAnother(t *testing.T) {
	t.Parallel()
	emb, err := fleet.StartEmbedded(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(emb.Close)
	srv := llmtest.NewServer(t, llmtest.Stall{After: 0}, llmtest.Text("finished after the crash"))
	srv.MultiConversation()
	home, repo := t.TempDir(), t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "base"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git: %v\n%s", err, out)
		}
	}
	r := openseek(t, repo, "", []string{"HOME=" + home}, "tasks", "add", "--nats", emb.URL, "fix", "everything")
	if r.code != 0 {
		t.Fatalf("tasks add: %d %s", r.code, r.stderr)
	}
	id := strings.TrimSpace(r.stdout)

	a := startWorker(t, home, emb.URL, srv.URL(), "A")
	fc, err := fleet.Connect(context.Background(), fleet.Config{URL: emb.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer fc.Close()
	waitFor(t, "worker A to call the model", func() bool { return len(srv.Requests()) == 1 })
	if task, _ := fc.Get(context.Background(), id); task.State != fleet.Running || task.Worker != "A" {
		t.Fatalf("before the kill: state %s worker %q", task.State, task.Worker)
	}
	if err := a.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = a.Wait()
	killed := time.Now()

	startWorker(t, home, emb.URL, srv.URL(), "B")
	var task *fleet.Task
	waitFor(t, "the task to end", func() bool {
		task, _ = fc.Get(context.Background(), id)
		return task.State.Terminal()
	})
	t.Logf("recovered %s after SIGKILL (ack wait 1s)", time.Since(killed).Round(time.Millisecond))
	if task.State != fleet.Completed || task.Attempts != 2 || task.Worker != "B" || task.Result != "finished after the crash" {
		t.Fatalf("task after the kill: state %s attempts %d worker %q result %q error %q", task.State, task.Attempts, task.Worker, task.Result, task.Error)
	}
	if body := string(srv.Requests()[1].Body); !strings.Contains(body, "fix everything") || !strings.Contains(body, "interrupted") {
		t.Errorf("the resumed request lacks the session's first prompt: %s", body)
	}

	show := openseek(t, repo, "", []string{"HOME=" + home}, "tasks", "show", "--nats", emb.URL, "--format", "json", id)
	var shown fleet.Task
	if err := json.Unmarshal([]byte(show.stdout), &shown); err != nil || shown.State != fleet.Completed || shown.Session != "task-"+id {
		t.Errorf("tasks show: %v %+v %s", err, shown, show.stderr)
	}
	logs := openseek(t, repo, "", []string{"HOME=" + home}, "tasks", "logs", "--nats", emb.URL, id)
	if !strings.Contains(logs.stderr, "task "+id+": completed") || strings.Count(logs.stderr, ": completed") != 1 {
		t.Errorf("tasks logs: want one end line, stderr %q", logs.stderr)
	}
	if summaries := strings.Count(logs.stdout, `{"event":"turn_summary"`); summaries != 1 {
		t.Errorf("tasks logs printed %d turn summaries, want 1 (the resumed attempt's):\n%s", summaries, logs.stdout)
	}
}

// Worker processes killed with SIGKILL at random moments, again and
// again, while others keep working, on the machine's embedded server
// (which runs in one of them, so the kills take it down too): no task is
// lost, finished twice or taken from a worker that lives — each kill
// costs at most the one task its worker ran an attempt — and every
// finished task has its one end marker.
func TestWorkersKilledAtRandomNeverLoseOrDoubleATask(t *testing.T) {
	t.Parallel()
	const n, kills = 24, 12
	var turns []llmtest.Turn
	for range n + kills + 8 { // each killed turn uses one
		turns = append(turns, llmtest.Reply{Text: "done", ChunkSize: 1, Delay: 25 * time.Millisecond})
	}
	srv := llmtest.NewServer(t, turns...)
	srv.MultiConversation()
	home, repo := t.TempDir(), fleetRepo(t, nil)
	dir := filepath.Join(home, ".openseek", "fleet")
	workers := []*exec.Cmd{startWorker(t, home, "", srv.URL(), "w0")}
	waitFor(t, "the first worker to run the embedded server", func() bool {
		_, err := os.Stat(filepath.Join(dir, "server.url"))
		return err == nil
	})
	for i := 1; i < 3; i++ {
		workers = append(workers, startWorker(t, home, "", srv.URL(), fmt.Sprint("w", i)))
	}
	fc, err := fleet.Connect(context.Background(), fleet.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer fc.Close()
	if fc.Embedded() != nil {
		t.Fatal("the test's client runs the server")
	}
	var ids []string
	for range n {
		task, err := fc.Add(context.Background(), fleet.Spec{Prompt: "work", Dir: repo})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, task.ID)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for k := range kills {
		// Random moments, paced by the tasks' progress rather than the clock.
		started := len(srv.Requests())
		waitFor(t, "the workers to make progress", func() bool { return len(srv.Requests()) > started })
		time.Sleep(time.Duration(rng.IntN(150)) * time.Millisecond)
		i := rng.IntN(len(workers))
		_ = workers[i].Process.Signal(syscall.SIGKILL)
		_ = workers[i].Wait()
		workers[i] = startWorker(t, home, "", srv.URL(), fmt.Sprint("w", i, "-", k))
	}
	var tasks []*fleet.Task
	waitFor(t, "every task to end", func() bool {
		tasks = tasks[:0]
		for _, id := range ids {
			task, err := fc.Get(context.Background(), id)
			if err != nil || !task.State.Terminal() {
				return false
			}
			tasks = append(tasks, task)
		}
		return true
	})
	retried, again := 0, 0
	for _, task := range tasks {
		if task.State != fleet.Completed {
			t.Errorf("task %s: %s %s", task.ID, task.State, task.Error)
		}
		if task.Attempts > 1 {
			retried++
			again += task.Attempts - 1
		}
		ends := 0
		if err := fc.Events(context.Background(), task.ID, false, func(e fleet.Event) error {
			if e.End != "" {
				ends++
			}
			return nil
		}); err != nil || ends != 1 {
			t.Errorf("task %s: %d end markers (%v), want 1", task.ID, ends, err)
		}
	}
	if again > kills {
		t.Errorf("%d attempts were run again after %d kills: tasks were taken from live workers", again, kills)
	}
	t.Logf("%d of %d tasks were resumed after %d kills (%d attempts again)", retried, n, kills, again)
}

func TestTasksBadInput(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tasks", "add", "--nats", "nats://127.0.0.1:1", "x"}, "cannot reach NATS at nats://127.0.0.1:1"},
		{[]string{"tasks", "add", "--runs", "0", "x"}, "--runs must be between 1 and 32"},
		{[]string{"tasks", "add", "--deadline", "tomorrow", "x"}, "--deadline \"tomorrow\" is neither"},
		{[]string{"tasks", "add"}, "a task is required"},
		{[]string{"tasks", "list", "--format", "yaml"}, "--format must be text or json"},
		{[]string{"worker", "--concurrency", "0"}, "--concurrency must be at least 1"},
	} {
		r := openseek(t, home, "", []string{"HOME=" + home}, tc.args...)
		if r.code != 1 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// fleetRepo makes a git repository with one commit of files.
func fleetRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitRun(t, dir, "init", "-q")
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "base")
	return dir
}

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// writeConfig writes home's ~/.openseek/config.toml.
func writeConfig(t *testing.T, home, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(home, ".openseek"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".openseek", "config.toml"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// [fleet] nats in the config is where tasks go when --nats is not given;
// an unreachable one is an error naming it and the file that set it.
func TestFleetNATSFromConfig(t *testing.T) {
	t.Parallel()
	emb, err := fleet.StartEmbedded(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(emb.Close)
	home, repo := t.TempDir(), fleetRepo(t, nil)
	writeConfig(t, home, "[fleet]\nnats = \""+emb.URL+"\"\n")
	r := openseek(t, repo, "", []string{"HOME=" + home}, "tasks", "add", "queued through the config")
	if r.code != 0 {
		t.Fatalf("tasks add: %d %s", r.code, r.stderr)
	}
	fc, err := fleet.Connect(context.Background(), fleet.Config{URL: emb.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer fc.Close()
	if task, err := fc.Get(context.Background(), strings.TrimSpace(r.stdout)); err != nil || task.Prompt != "queued through the config" {
		t.Fatalf("the task is not on the configured server: %v %+v", err, task)
	}

	bad := t.TempDir()
	writeConfig(t, bad, "[fleet]\nnats = \"nats://127.0.0.1:1\"\n")
	for _, args := range [][]string{{"tasks", "list"}, {"worker"}} {
		r := openseek(t, repo, "", []string{"HOME=" + bad}, args...)
		want := "cannot reach NATS at nats://127.0.0.1:1 (set by [fleet] nats in " + filepath.Join(bad, ".openseek", "config.toml")
		if r.code != 1 || !strings.Contains(r.stderr, want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", args, r.code, r.stderr, want)
		}
	}
	// --nats wins over the config.
	r = openseek(t, repo, "", []string{"HOME=" + bad}, "tasks", "list", "--nats", emb.URL, "--format", "json")
	if r.code != 0 || !strings.Contains(r.stdout, "queued through the config") {
		t.Errorf("tasks list --nats: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// serve --http answers the fleet's /v1/tasks routes behind its token: a
// task added over HTTP is queued, listed, shown and its events stream as
// SSE until its end.
func TestServeHTTPTasks(t *testing.T) {
	t.Parallel()
	emb, err := fleet.StartEmbedded(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(emb.Close)
	srv := llmtest.NewServer(t, llmtest.Text("done over http"))
	home, repo := t.TempDir(), fleetRepo(t, nil)
	writeConfig(t, home, "[fleet]\nnats = \""+emb.URL+"\"\n")
	s := startHTTP(t, repo, home, append(modelArgs(srv), "serve", "--http", "127.0.0.1:0")...)
	noToken := func(r *http.Request) { r.Header.Del("Authorization") }
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/v1/tasks", ""},
		{"GET", "/v1/tasks/tx", ""},
		{"POST", "/v1/tasks", `{"prompt":"x","dir":"` + repo + `"}`},
		{"GET", "/v1/tasks/tx/events", ""},
	} {
		if code, body, _ := s.do(t, tc.method, tc.path, tc.body, noToken); code != http.StatusUnauthorized {
			t.Errorf("%s %s without a token = %d %s, want 401", tc.method, tc.path, code, body)
		}
	}
	code, body, _ := s.do(t, "POST", "/v1/tasks", `{"prompt":"work over http","dir":"`+repo+`"}`, nil)
	if code != http.StatusCreated {
		t.Fatalf("POST /v1/tasks = %d %s", code, body)
	}
	var added fleet.Task
	if err := json.Unmarshal([]byte(body), &added); err != nil || added.State != fleet.Queued {
		t.Fatalf("POST /v1/tasks answered %s (%v)", body, err)
	}
	if code, body, _ := s.do(t, "GET", "/v1/tasks", "", nil); code != http.StatusOK || !strings.Contains(body, added.ID) {
		t.Errorf("GET /v1/tasks = %d %s", code, body)
	}
	if code, body, _ := s.do(t, "POST", "/v1/tasks", `{"prompt":""}`, nil); code != http.StatusBadRequest || !strings.Contains(body, "a task is required") {
		t.Errorf("POST /v1/tasks with no prompt = %d %s", code, body)
	}
	if code, _, _ := s.do(t, "GET", "/v1/tasks/nosuch", "", nil); code != http.StatusNotFound {
		t.Errorf("GET /v1/tasks/nosuch = %d, want 404", code)
	}

	startWorker(t, t.TempDir(), emb.URL, srv.URL(), "W")
	code, body, _ = s.do(t, "GET", "/v1/tasks/"+added.ID+"/events", "", nil)
	if code != http.StatusOK || !strings.Contains(body, "event: turn_summary") || !strings.Contains(body, "event: task_end\n") || !strings.Contains(body, `"state":"completed"`) {
		t.Fatalf("GET /v1/tasks/%s/events = %d\n%s", added.ID, code, body)
	}
	code, body, _ = s.do(t, "GET", "/v1/tasks/"+added.ID, "", nil)
	var shown fleet.Task
	if err := json.Unmarshal([]byte(body), &shown); code != http.StatusOK || err != nil || shown.State != fleet.Completed || shown.Result != "done over http" {
		t.Errorf("GET /v1/tasks/%s = %d %s", added.ID, code, body)
	}
}

// A --repo task whose worker is killed with SIGKILL mid-task is resumed by
// a worker on "another machine" (its own home, so a fresh clone): the
// session the first worker streamed into JetStream is restored into the
// new workspace and continued, so the final log holds the first worker's
// events followed by the second's, and the task completes once.
func TestRepoTaskResumesItsSessionOnAnotherWorker(t *testing.T) {
	t.Parallel()
	emb, err := fleet.StartEmbedded(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(emb.Close)
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "first-worker-call", Name: "write", Args: `{"path":"half.txt","content":"half done\n"}`}),
		llmtest.Stall{After: 0},
		llmtest.Text("finished on the second worker"),
	)
	srv.MultiConversation()
	src := fleetRepo(t, map[string]string{"README.md": "# project\n"})
	bare := filepath.Join(t.TempDir(), "remote.git")
	if out, err := exec.Command("git", "clone", "-q", "--bare", src, bare).CombinedOutput(); err != nil {
		t.Fatalf("git clone --bare: %v\n%s", err, out)
	}
	r := openseek(t, t.TempDir(), "", nil, "tasks", "add", "--nats", emb.URL, "--repo", bare, "write", "the", "note")
	if r.code != 0 {
		t.Fatalf("tasks add: %d %s", r.code, r.stderr)
	}
	id := strings.TrimSpace(r.stdout)
	fc, err := fleet.Connect(context.Background(), fleet.Config{URL: emb.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer fc.Close()

	homeA, homeB := t.TempDir(), t.TempDir()
	a := startWorker(t, homeA, emb.URL, srv.URL(), "A")
	waitFor(t, "worker A to call the model again after its tool call", func() bool { return len(srv.Requests()) == 2 })
	// The tool call's result reaches the published log before the kill
	// (the call itself, published first, holds "half done" too: only
	// the result carries its call's id as tool_call_id).
	waitFor(t, "worker A's log to reach JetStream", func() bool {
		log, _ := fc.SessionLog(context.Background(), id)
		return strings.Contains(string(log), `"tool_call_id":"first-worker-call"`)
	})
	if err := a.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = a.Wait()

	startWorker(t, homeB, emb.URL, srv.URL(), "B")
	var task *fleet.Task
	waitFor(t, "the task to end", func() bool {
		task, _ = fc.Get(context.Background(), id)
		return task.State.Terminal()
	})
	if task.State != fleet.Completed || task.Attempts != 2 || task.Worker != "B" || task.Result != "finished on the second worker" {
		t.Fatalf("task: state %s attempts %d worker %q result %q error %q", task.State, task.Attempts, task.Worker, task.Result, task.Error)
	}
	if want := filepath.Join(homeB, ".openseek", "fleet", "work", id); task.Workspace != want {
		t.Errorf("workspace %s, want worker B's fresh clone %s", task.Workspace, want)
	}
	// The resumed request carries the first worker's tool call: the
	// session was continued, not started afresh.
	if body := string(srv.Requests()[2].Body); !strings.Contains(body, "first-worker-call") || !strings.Contains(body, "another worker") {
		t.Errorf("the resumed request lacks the first worker's history: %s", body)
	}
	logPath := filepath.Join(task.Workspace, ".openseek", "sessions", task.Session, "openseek_session-"+task.Session+".jsonl")
	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	log := string(data)
	first, resumed, answer := strings.Index(log, "first-worker-call"), strings.Index(log, "resumed on another worker"), strings.Index(log, "finished on the second worker")
	if first < 0 || resumed < first || answer < resumed {
		t.Errorf("the final log does not hold the first worker's events then the second's (offsets %d, %d, %d):\n%s", first, resumed, answer, log)
	}
	if n := strings.Count(log, `"version":1`); n != 1 {
		t.Errorf("the log has %d headers, want 1", n)
	}
	published, err := fc.SessionLog(context.Background(), id)
	if err != nil || string(published) != log {
		t.Errorf("the log in JetStream differs from the workspace's (%v):\n%s", err, published)
	}
	ends := 0
	_ = fc.Events(context.Background(), id, false, func(e fleet.Event) error {
		if e.End != "" {
			ends++
		}
		return nil
	})
	if ends != 1 {
		t.Errorf("%d end markers, want 1", ends)
	}
}

// tasks add --runs 2 --judge: once both runs are over, the worker asks a
// judging model, which sees both runs, and records its choice and why; a
// judge that answers nonsense leaves the choice to the rule, with a
// warning.
func TestTasksBestOfJudge(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, reply      string
		chosen           string
		verdict, warning string
	}{
		{"verdict", `{"best": 2, "reason": "the second answer is clearer"}`, "-r2", "chosen by the judge: the second answer is clearer", ""},
		{"malformed", "both are fine", "-r1", "the fewest changed lines", "the judge could not choose"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			emb, err := fleet.StartEmbedded(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(emb.Close)
			srv := llmtest.NewServer(t, llmtest.Text("first answer"), llmtest.Text("second answer"), llmtest.Text(tc.reply))
			srv.MultiConversation()
			home, repo := t.TempDir(), fleetRepo(t, nil)
			r := openseek(t, repo, "", []string{"HOME=" + home}, "tasks", "add", "--nats", emb.URL, "--runs", "2", "--judge", "answer", "well")
			if r.code != 0 {
				t.Fatalf("tasks add: %d %s", r.code, r.stderr)
			}
			id := strings.TrimSpace(r.stdout)
			startWorker(t, home, emb.URL, srv.URL(), "J")
			fc, err := fleet.Connect(context.Background(), fleet.Config{URL: emb.URL})
			if err != nil {
				t.Fatal(err)
			}
			defer fc.Close()
			var task *fleet.Task
			waitFor(t, "the best-of-2 task to end", func() bool {
				task, _ = fc.Get(context.Background(), id)
				return task.State.Terminal()
			})
			if task.State != fleet.Completed || task.Chosen != id+tc.chosen || !strings.Contains(task.Verdict, tc.verdict) || !strings.Contains(task.Warning, tc.warning) || (tc.warning == "") != (task.Warning == "") {
				t.Fatalf("task: state %s chosen %s verdict %q warning %q error %q", task.State, task.Chosen, task.Verdict, task.Warning, task.Error)
			}
			reqs := srv.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d model requests, want 2 runs and the judge", len(reqs))
			}
			if judge := string(reqs[2].Body); !strings.Contains(judge, "first answer") || !strings.Contains(judge, "second answer") || !strings.Contains(judge, "answer well") {
				t.Errorf("the judge did not see the task and both runs: %s", judge)
			}
			show := openseek(t, repo, "", []string{"HOME=" + home}, "tasks", "show", "--nats", emb.URL, id)
			if !strings.Contains(show.stdout, "verdict:") || !strings.Contains(show.stdout, "(chosen)") {
				t.Errorf("tasks show lacks the verdict:\n%s", show.stdout)
			}
		})
	}
	r := openseek(t, t.TempDir(), "", nil, "tasks", "add", "--judge", "x")
	if r.code != 1 || !strings.Contains(r.stderr, "--judge picks the best of several runs") {
		t.Errorf("tasks add --judge without --runs: exit %d %q", r.code, r.stderr)
	}
}

// fleetCmd runs a fleet command (tasks …) as the user would, against the
// machine's embedded server under home unless args name --nats.
func fleetCmd(t *testing.T, dir, home string, args ...string) result {
	t.Helper()
	return openseek(t, dir, "", []string{"HOME=" + home}, args...)
}

// waitTask waits until task id is in a terminal state and returns it.
func waitTask(t *testing.T, fc *fleet.Client, id string) *fleet.Task {
	t.Helper()
	var task *fleet.Task
	waitFor(t, "task "+id+" to end", func() bool {
		task, _ = fc.Get(context.Background(), id)
		return task != nil && task.State.Terminal()
	})
	return task
}

// `openseek worker &` then `openseek tasks add`, the sandbox on as by
// default: a task's commands write its workspace (under ~/.openseek,
// which the sandbox otherwise keeps read-only) and nothing else of
// ~/.openseek — not the config, not the fleet's token, not another
// task's workspace. A task whose every command failed, or whose verify
// command failed, ends failed, and the record says so.
func TestTasksRunInTheSandbox(t *testing.T) {
	t.Parallel()
	home, repo := t.TempDir(), fleetRepo(t, map[string]string{"README.md": "# project\n"})
	writeConfig(t, home, "# the user's config\n")
	other := filepath.Join(home, ".openseek", "fleet", "work", "tother")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(home, ".openseek", "config.toml")
	token := filepath.Join(home, ".openseek", "fleet", "server.url")
	shell := func(id, cmd string) llmtest.Call {
		return llmtest.Call{ID: id, Name: "shell", Args: `{"cmd":` + quoteJSON(cmd) + `}`}
	}
	srv := llmtest.NewServer(t,
		llmtest.Reply{Calls: []llmtest.Call{
			shell("inside", "echo made > made.txt && cat made.txt"),
			shell("config", "echo 'model = \"evil\"' >> "+config),
			shell("token", "echo nats://evil >> "+token),
			shell("other", "echo planted > "+filepath.Join(other, "planted")),
		}},
		llmtest.Text("made it"),
		llmtest.Reply{Calls: []llmtest.Call{shell("missing", "cat no-such-file")}},
		llmtest.Text("could not"),
	)
	srv.MultiConversation()
	startWorker(t, home, "", srv.URL(), "S")
	waitFor(t, "the worker's embedded server", func() bool {
		_, err := os.Stat(token)
		return err == nil
	})
	fc, err := fleet.Connect(context.Background(), fleet.Config{Dir: filepath.Join(home, ".openseek", "fleet")})
	if err != nil {
		t.Fatal(err)
	}
	defer fc.Close()
	tokenBefore, _ := os.ReadFile(token)

	// The verify command runs in the sandbox too: in a PID namespace of
	// its own, where its shell's pid is small.
	r := fleetCmd(t, repo, home, "tasks", "add", "--verify", "test -f made.txt && test $$ -lt 100", "make", "a", "file")
	if r.code != 0 {
		t.Fatalf("tasks add: %d %s", r.code, r.stderr)
	}
	ok := waitTask(t, fc, strings.TrimSpace(r.stdout))
	if ok.State != fleet.Completed || ok.Result != "made it" || ok.VerifyOK == nil || !*ok.VerifyOK {
		t.Fatalf("the sandboxed task: state %s result %q verify %v error %q", ok.State, ok.Result, ok.VerifyOK, ok.Error)
	}
	if b, err := os.ReadFile(filepath.Join(ok.Workspace, "made.txt")); err != nil || string(b) != "made\n" {
		t.Errorf("the task's command did not write its workspace: %q %v", b, err)
	}
	// The escapes fail, or (a home under /tmp, as here) write the
	// command's private /tmp: the host's files are checked below.
	if ok.Commands != 4 || ok.FailedCommands > 3 {
		t.Errorf("commands %d, failed %d; want 4, and the first to succeed", ok.Commands, ok.FailedCommands)
	}
	if b, _ := os.ReadFile(config); string(b) != "# the user's config\n" {
		t.Errorf("a task rewrote ~/.openseek/config.toml: %q", b)
	}
	if b, _ := os.ReadFile(token); string(b) != string(tokenBefore) {
		t.Errorf("a task rewrote the fleet's server.url: %q", b)
	}
	if _, err := os.Stat(filepath.Join(other, "planted")); err == nil {
		t.Errorf("a task wrote another task's workspace")
	}

	r = fleetCmd(t, repo, home, "tasks", "add", "--verify", "test -f made.txt", "read", "a", "file")
	if r.code != 0 {
		t.Fatalf("tasks add: %d %s", r.code, r.stderr)
	}
	bad := waitTask(t, fc, strings.TrimSpace(r.stdout))
	if bad.State != fleet.Failed || bad.Commands != 1 || bad.FailedCommands != 1 || bad.VerifyOK == nil || *bad.VerifyOK ||
		!strings.Contains(bad.Error, "every command failed") || !strings.Contains(bad.Error, "verify") {
		t.Fatalf("a task whose commands all failed: state %s commands %d/%d verify %v error %q", bad.State, bad.FailedCommands, bad.Commands, bad.VerifyOK, bad.Error)
	}
	show := fleetCmd(t, repo, home, "tasks", "show", bad.ID)
	for _, want := range []string{"state:     failed", "commands:  1 run, 1 failed", "verify:    failed (test -f made.txt)"} {
		if !strings.Contains(show.stdout, want) {
			t.Errorf("tasks show lacks %q:\n%s", want, show.stdout)
		}
	}
	list := fleetCmd(t, repo, home, "tasks", "list")
	for _, want := range [][]string{{ok.ID, "completed", "1", fmt.Sprintf("%d/4", ok.FailedCommands), "passed"}, {bad.ID, "failed", "1", "1/1", "failed"}} {
		if !slices.ContainsFunc(strings.Split(list.stdout, "\n"), func(l string) bool { return slices.Equal(strings.Fields(l)[:min(5, len(strings.Fields(l)))], want) }) {
			t.Errorf("tasks list lacks a row %v:\n%s", want, list.stdout)
		}
	}
}

// TestFleetAsOrdinaryUser runs the fleet's end-to-end tests again as an
// ordinary user, as most people run it.
func TestFleetAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^(TestTasksRunInTheSandbox|TestKillingTheServersWorkerTakesNoTaskFromALiveOne|TestAWorkerCutOffFromItsServerStopsOnCtrlC|TestWorkerKilledMidTaskIsResumedByAnother)$")
}

// modelGate holds the model's requests until opened, counting them.
type modelGate struct {
	URL    string
	open   chan struct{}
	posted atomic.Int32
}

func newModelGate(t *testing.T, srv *llmtest.Server) *modelGate {
	t.Helper()
	g := &modelGate{open: make(chan struct{})}
	target, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.posted.Add(1)
		select {
		case <-g.open:
		case <-r.Context().Done():
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	// A request held at cleanup (its worker killed) must end for Close.
	t.Cleanup(func() {
		select {
		case <-g.open:
		default:
			close(g.open)
		}
	})
	g.URL = hs.URL + target.Path
	return g
}

// stopWorker sends a worker Ctrl-C (SIGINT) and returns how long it took
// to exit.
func stopWorker(t *testing.T, w *exec.Cmd) time.Duration {
	t.Helper()
	start := time.Now()
	if err := w.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { // the cleanup kills it if it never ends
		_, _ = w.Process.Wait()
		close(exited)
	}()
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Errorf("worker %v ignored Ctrl-C for 30s", w.Args)
	}
	return time.Since(start)
}

// The way people run it, killed where it hurts: `openseek worker` ×2 on
// the machine's embedded server, which the first runs; the first is
// killed (SIGKILL) while both run a task, and a third worker starts.
// The second worker's task is never taken from it: its turn, which
// finishes while the server is away, is recorded by it once the server
// runs again (the second or third worker starts it), with one attempt.
// The killed worker's task is resumed by another, once. Each worker left
// stops on Ctrl-C at once.
func TestKillingTheServersWorkerTakesNoTaskFromALiveOne(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	repo := fleetRepo(t, map[string]string{"README.md": "# project\n"})
	srv := llmtest.NewServer(t, llmtest.Text("done"), llmtest.Text("done"), llmtest.Text("done"), llmtest.Text("done"), llmtest.Text("done"))
	srv.MultiConversation()
	g := newModelGate(t, srv)
	dir := filepath.Join(home, ".openseek", "fleet")

	w1 := startWorker(t, home, "", g.URL, "W1")
	waitFor(t, "W1 to run the embedded server", func() bool {
		_, err := os.Stat(filepath.Join(dir, "server.url"))
		return err == nil
	})
	w2 := startWorker(t, home, "", g.URL, "W2")
	var ids []string
	for _, p := range []string{"first", "second"} {
		r := fleetCmd(t, repo, home, "tasks", "add", p)
		if r.code != 0 {
			t.Fatalf("tasks add: %d %s", r.code, r.stderr)
		}
		ids = append(ids, strings.TrimSpace(r.stdout))
	}
	fc, err := fleet.Connect(context.Background(), fleet.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer fc.Close()
	holder := map[string]string{}
	waitFor(t, "both workers to run a task", func() bool {
		for _, id := range ids {
			if task, err := fc.Get(context.Background(), id); err == nil && task.State == fleet.Running {
				holder[task.Worker] = id
			}
		}
		return len(holder) == 2 && g.posted.Load() == 2
	})
	if err := w1.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = w1.Wait()
	w3 := startWorker(t, home, "", g.URL, "W3")
	close(g.open) // W2's turn ends while the server may still be away

	lived, killed := waitTask(t, fc, holder["W2"]), waitTask(t, fc, holder["W1"])
	if lived.State != fleet.Completed || lived.Attempts != 1 || lived.Worker != "W2" {
		t.Errorf("the live worker's task: %s attempts %d worker %s error %q", lived.State, lived.Attempts, lived.Worker, lived.Error)
	}
	if killed.State != fleet.Completed || killed.Attempts != 2 || killed.Worker == "W1" {
		t.Errorf("the killed worker's task: %s attempts %d worker %s error %q", killed.State, killed.Attempts, killed.Worker, killed.Error)
	}
	for _, id := range ids {
		ends := 0
		if err := fc.Events(context.Background(), id, false, func(e fleet.Event) error {
			if e.End != "" {
				ends++
			}
			return nil
		}); err != nil || ends != 1 {
			t.Errorf("task %s: %d end markers (%v), want 1", id, ends, err)
		}
	}
	// The workers take more tasks, and stop on Ctrl-C at once.
	r := fleetCmd(t, repo, home, "tasks", "add", "third")
	if r.code != 0 {
		t.Fatalf("tasks add: %d %s", r.code, r.stderr)
	}
	if third := waitTask(t, fc, strings.TrimSpace(r.stdout)); third.State != fleet.Completed {
		t.Errorf("a task added after the kill: %s %s", third.State, third.Error)
	}
	fc.Close()
	for _, w := range []*exec.Cmd{w2, w3} {
		took := stopWorker(t, w)
		t.Logf("%s stopped %s after Ctrl-C", w.Args[5], took.Round(time.Millisecond))
		if took > 5*time.Second {
			t.Errorf("%s took %s to stop after Ctrl-C", w.Args[5], took)
		}
	}
}

// A worker whose turn ends while its server is away, and cannot come
// back (the process that ran it still holds the fleet's directory),
// stops on Ctrl-C at once rather than waiting to record the end; the
// task is run again once a server and a worker are back.
func TestAWorkerCutOffFromItsServerStopsOnCtrlC(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	repo := fleetRepo(t, map[string]string{"README.md": "# project\n"})
	srv := llmtest.NewServer(t, llmtest.Text("done while cut off"), llmtest.Text("done again"))
	srv.MultiConversation()
	g := newModelGate(t, srv)
	dir := filepath.Join(home, ".openseek", "fleet")
	// The server runs in this process, as in a `tasks add`.
	emb, err := fleet.StartEmbedded(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(emb.Close)
	fc, err := fleet.Connect(context.Background(), fleet.Config{URL: emb.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer fc.Close()
	cut := startWorker(t, home, "", g.URL, "cut")
	task, err := fc.Add(context.Background(), fleet.Spec{Prompt: "work", Dir: repo})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the worker to run the task", func() bool { return g.posted.Load() == 1 })
	// The server goes; its process keeps the directory, so the worker
	// cannot start it again.
	emb.Server.Shutdown()
	emb.Server.WaitForShutdown()
	close(g.open)
	waitFor(t, "the turn to end", func() bool { return len(srv.Requests()) == 1 })
	took := stopWorker(t, cut)
	t.Logf("the cut-off worker stopped %s after Ctrl-C", took.Round(time.Millisecond))
	if took > 5*time.Second {
		t.Errorf("the cut-off worker took %s to stop after Ctrl-C", took)
	}

	emb.Close()
	startWorker(t, home, "", g.URL, "back")
	waitFor(t, "the server to run again", func() bool {
		_, err := os.Stat(filepath.Join(dir, "server.url"))
		return err == nil
	})
	back, err := fleet.Connect(context.Background(), fleet.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	if got := waitTask(t, back, task.ID); got.State != fleet.Completed || got.Worker != "back" || got.Result != "done again" {
		t.Errorf("task: %s attempts %d worker %s result %q error %q", got.State, got.Attempts, got.Worker, got.Result, got.Error)
	}
}
