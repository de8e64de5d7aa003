package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// The test binary doubles as the openseek binary: with OPENSEEK_TEST_MAIN
// set it runs main's logic, so the tests drive the real command line,
// stdout and exit status in a child process.
func TestMain(m *testing.M) {
	sandbox.Main()
	if os.Getenv("OPENSEEK_TEST_MCP_SERVER") == "1" {
		mcpServerMain()
	}
	if os.Getenv("OPENSEEK_TEST_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	// The tests wait on the program under test and the scripted model:
	// four at a time keep two cores busy.
	sandboxtest.DefaultParallel(4)
	os.Exit(m.Run())
}

type result struct {
	code           int
	stdout, stderr string
	events         []protocol.Event
}

// openseek runs the CLI in a child process with a clean environment (no
// API keys) plus env.
func openseek(t *testing.T, dir string, stdin string, env []string, args ...string) result {
	t.Helper()
	return runBinary(t, os.Args[0], dir, stdin, append([]string{"OPENSEEK_TEST_MAIN=1"}, env...), args...)
}

// runBinary runs bin (this test binary as openseek, or a built openseek)
// in a child process with a clean environment plus env.
func runBinary(t *testing.T, bin, dir string, stdin string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(append([]string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "OPENSEEK_RETRY_BACKOFF_MS=1"}, startPathEnv()...), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run openseek: %v", err)
	}
	r.events = parseEvents(t, out.Bytes())
	return r
}

// goBuild is `go build args...` with this test binary's -race setting,
// so that it reuses the packages go test compiled for the tests rather
// than compiling every dependency again without the race detector.
func goBuild(args ...string) *exec.Cmd {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-race" && s.Value == "true" {
				args = append([]string{"-race"}, args...)
			}
		}
	}
	return exec.Command("go", append([]string{"build"}, args...)...)
}

func parseEvents(t *testing.T, out []byte) []protocol.Event {
	t.Helper()
	var evs []protocol.Event
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasPrefix(line, []byte(`{"event":`)) {
			continue // sessions list/show print other JSON
		}
		ev, ok := protocol.ParseEvent(line)
		if !ok {
			t.Errorf("stdout line is not an event: %s", line)
			continue
		}
		evs = append(evs, ev)
	}
	return evs
}

func names(evs []protocol.Event) []string {
	var n []string
	for _, e := range evs {
		n = append(n, e.EventName())
	}
	return n
}

func find[T protocol.Event](evs []protocol.Event) []T {
	var out []T
	for _, e := range evs {
		if v, ok := e.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

func modelArgs(srv *llmtest.Server) []string {
	return []string{"--api-url", srv.URL(), "--model", "test-model"}
}

func TestRunEditsFilesAndRecordsTheSession(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("# Demo\nhello\n"), 0o644)
	srv := llmtest.NewServer(t,
		llmtest.Reply{Reasoning: "look first", Calls: []llmtest.Call{{ID: "c1", Name: "read", Args: `{"path":"README.md"}`}}},
		llmtest.Reply{Calls: []llmtest.Call{
			{ID: "c2", Name: "write", Args: `{"path":"out/note.txt","content":"hi\n"}`},
			{ID: "c3", Name: "shell", Args: `{"cmd":"cat out/note.txt && echo done-shell"}`},
		}},
		llmtest.Text("I wrote out/note.txt."),
	)
	r := openseek(t, ws, "", nil, append(modelArgs(srv), "run", "write a note")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", r.code, r.stderr, r.stdout)
	}
	if lines := strings.Count(r.stdout, "\n"); lines != len(r.events) {
		t.Errorf("%d stdout lines but %d events", lines, len(r.events))
	}
	got := names(r.events)
	if got[0] != "session_started" {
		t.Errorf("first event %q, want session_started", got[0])
	}
	if last := got[len(got)-1]; last != "turn_summary" {
		t.Errorf("last event %q, want turn_summary", last)
	}
	if end := got[len(got)-2]; end != "agent_finished" {
		t.Errorf("turn ended with %q, want agent_finished", end)
	}
	if n := len(find[protocol.AgentStep](r.events)); n != 3 {
		t.Errorf("%d agent_step events, want 3", n)
	}
	results := find[protocol.ToolResult](r.events)
	if len(results) != 3 || results[1].ToolCallID != "c2" || results[2].ToolCallID != "c3" {
		t.Fatalf("tool results out of order: %+v", results)
	}
	for _, tr := range results {
		if tr.IsError {
			t.Errorf("tool %s failed: %s", tr.ToolName, tr.Content)
		}
	}
	if !strings.Contains(results[2].Content, "hi\ndone-shell") || !strings.Contains(results[2].Content, "<system>exit=0</system>") {
		t.Errorf("shell result %q", results[2].Content)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "out/note.txt")); string(data) != "hi\n" {
		t.Errorf("note.txt = %q", data)
	}
	if fin := find[protocol.AgentFinished](r.events); fin[0].Answer != "I wrote out/note.txt." {
		t.Errorf("answer %q", fin[0].Answer)
	}
	// The reasoning went back with the tool-call message (llmtest checks it
	// on every request) and each request extended the previous one.
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if !bytes.Contains(reqs[1].Body, []byte(`"reasoning_content":"look first"`)) {
		t.Errorf("second request lacks the reasoning: %s", reqs[1].Body)
	}

	id := find[protocol.SessionStarted](r.events)[0].Session
	s, err := session.NewStore(filepath.Join(ws, ".openseek")).Load(id)
	if err != nil {
		t.Fatal(err)
	}
	kinds := []string{}
	for _, e := range s.Events {
		kinds = append(kinds, e.Item.ItemKind())
	}
	// The turn's workspace snapshot, taken before the first tool that
	// can change files (the write, not the read before it), is recorded
	// before that tool's result (a runtime notice naming the prompt).
	want := "user assistant tool_result assistant runtime_notice tool_result tool_result assistant terminal"
	if strings.Join(kinds, " ") != want {
		t.Errorf("session items %v, want %s", kinds, want)
	}

	show := openseek(t, ws, "", nil, "sessions", "show", id)
	if show.code != 0 || !strings.HasPrefix(show.stdout, `{"version":1,"id":"`+id+`"`) {
		t.Errorf("sessions show: %d %s %s", show.code, show.stdout, show.stderr)
	}
	list := openseek(t, ws, "", nil, "sessions", "list", "--format=json")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(list.stdout), &rows); err != nil || len(rows) != 1 || rows[0]["id"] != id || rows[0]["title"] != "write a note" {
		t.Errorf("sessions list --format=json: %v %q", err, list.stdout)
	}
}

func TestRunResumesASessionWithAStablePrefix(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Text("first answer"), llmtest.Text("second answer"))
	args := append(modelArgs(srv), "run", "--session", "s1")
	if r := openseek(t, ws, "", nil, append(args, "one")...); r.code != 0 {
		t.Fatalf("first run: %d %s", r.code, r.stderr)
	}
	if r := openseek(t, ws, "", nil, append(args, "two")...); r.code != 0 {
		t.Fatalf("second run: %d %s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || len(reqs[1].Messages) != 4 {
		t.Fatalf("second request should carry system, one, answer, two: %d requests", len(reqs))
	}
	for i, m := range reqs[0].Messages {
		if !bytes.Equal(m, reqs[1].Messages[i]) {
			t.Errorf("message %d differs between requests:\n%s\n%s", i, m, reqs[1].Messages[i])
		}
	}
}

func TestRunCommandLineErrors(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	for _, tc := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"missing key", []string{"run", "hi"}, "error: an API key is required for deepseek-v4-flash: pass --api-key or set DEEPSEEK"},
		{"unknown flag", []string{"run", "--xxy", "he"}, "error: unexpected argument '--xxy' found"},
		{"mistyped flag", []string{"--modle", "x", "run", "hi"}, "error: unexpected argument '--modle' found; did you mean '--model'?"},
		{"mistyped subcommand flag", []string{"sessions", "list", "--al"}, "error: unexpected argument '--al' found; did you mean '--all'?"},
		{"approval ask", []string{"run", "--approval", "ask", "hi"}, "error: --approval ask needs a controller to ask: this command reads no commands, so use never (refuse escalation) or always (grant it unasked)"},
		{"no-session and session", []string{"run", "--session", "x", "--no-session", "hi"}, "error: --no-session contradicts --session; pick one behavior"},
		{"bare", nil, "error: the following required argument was not provided: 'subcommand'"},
		{"unknown command", []string{"serv"}, "error: unexpected value 'serv' found; no more were expected"},
		{"serve positional", []string{"serve", "do something"}, "error: unexpected value 'do something' found; no more were expected"},
		{"unknown model", []string{"--model", "gpt-9", "run", "hi"}, "error: unknown model \"gpt-9\""},
		{"missing parent", []string{"--dir", "no/such/dir", "--api-key", "k", "run", "hi"}, "error: --dir no/such/dir: parent directory"},
		{"missing value", []string{"run", "--session"}, "error: a value is required for '--session' but none was supplied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := openseek(t, ws, "", nil, tc.args...)
			if r.code != 1 {
				t.Errorf("exit %d, want 1", r.code)
			}
			if !strings.HasPrefix(r.stderr, tc.stderr) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("stderr %q, want one line starting %q", r.stderr, tc.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q, want nothing", r.stdout)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(ws, ".openseek")); err == nil {
		t.Errorf("a failed start created .openseek")
	}
}

func TestRunReportsARefusedKey(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Fail{Status: 401, Body: `{"error":{"message":"Authentication Fails"}}`})
	r := openseek(t, t.TempDir(), "", nil, append(modelArgs(srv), "--api-key", "sk-secret-value", "run", "hi")...)
	if r.code != exitModel {
		t.Fatalf("exit %d, want %d (the provider failed)", r.code, exitModel)
	}
	fails := find[protocol.TurnFailed](r.events)
	if len(fails) != 1 || !strings.Contains(strings.ToLower(fails[0].Error), "key") {
		t.Fatalf("turn_failed %+v", fails)
	}
	if strings.Contains(r.stdout+r.stderr, "sk-secret-value") {
		t.Errorf("the key leaked into the output")
	}
}

func TestRunNoSessionWritesNothing(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Text("ok"))
	r := openseek(t, ws, "", nil, append(modelArgs(srv), "run", "--no-session", "hi")...)
	if r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	if len(find[protocol.SessionStarted](r.events)) != 0 {
		t.Errorf("session_started without a session")
	}
	if _, err := os.Stat(filepath.Join(ws, ".openseek")); err == nil {
		t.Errorf(".openseek created with --no-session")
	}
}

func TestRunMaxSteps(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t,
		llmtest.Reply{Calls: []llmtest.Call{{ID: "a", Name: "shell", Args: `{"cmd":"true"}`}}},
		llmtest.Reply{Calls: []llmtest.Call{{ID: "b", Name: "shell", Args: `{"cmd":"true"}`}}},
	)
	r := openseek(t, t.TempDir(), "", nil, append(modelArgs(srv), "--max-steps", "2", "run", "loop")...)
	if r.code != exitLimit {
		t.Errorf("exit %d, want %d (a limit was hit)", r.code, exitLimit)
	}
	if got := names(r.events); got[len(got)-2] != "max_steps_exhausted" {
		t.Errorf("terminal event %q", got[len(got)-2])
	}
}

func TestRunBadToolArgumentsLetTheTurnContinue(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t,
		llmtest.Reply{Calls: []llmtest.Call{
			{ID: "a", Name: "edit", Args: `{"path": "x.txt"`},
			{ID: "b", Name: "write", Args: `{"path":"x.txt"}`},
			{ID: "c", Name: "nope", Args: `{}`},
		}},
		llmtest.Text("gave up"),
	)
	r := openseek(t, t.TempDir(), "", nil, append(modelArgs(srv), "run", "edit")...)
	if r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	decode := find[protocol.ToolCallDecodeError](r.events)
	if len(decode) != 3 {
		t.Fatalf("%d decode errors, want 3: %+v", len(decode), decode)
	}
	if decode[1].Error != "error: write requires arguments.content" {
		t.Errorf("missing field error %q", decode[1].Error)
	}
	results := find[protocol.ToolResult](r.events)
	if len(results) != 3 || !results[0].IsError || !results[1].IsError || !results[2].IsError {
		t.Errorf("results %+v", results)
	}
}

func TestRunRetriesA429WithoutRunningAToolTwice(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	srv := llmtest.NewServer(t,
		llmtest.Fail{Status: 429, Body: `{"error":{"message":"slow down"}}`},
		llmtest.Reply{Calls: []llmtest.Call{{ID: "a", Name: "shell", Args: `{"cmd":"echo x >> count.txt"}`}}},
		llmtest.Fail{Status: 500, Body: "<html>oops</html>"},
		llmtest.Cut{Reply: llmtest.Text("partial answer that will be cut off"), After: 2},
		llmtest.Text("done"),
	)
	r := openseek(t, ws, "", nil, append(modelArgs(srv), "run", "count")...)
	if r.code != 0 {
		t.Fatalf("exit %d %s\n%s", r.code, r.stderr, r.stdout)
	}
	if n := len(find[protocol.StreamRetry](r.events)); n < 3 {
		t.Errorf("%d stream_retry events, want at least 3", n)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "count.txt")); string(data) != "x\n" {
		t.Errorf("the tool ran %d times", strings.Count(string(data), "x"))
	}
}

func TestServeSpeaksTheProtocol(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Text("hello there"),
		llmtest.Calls(llmtest.Call{ID: "g", Name: "goal", Args: `{"status":"continuing","remaining":"more to do"}`}),
		llmtest.Text("hello there"))
	in := strings.Join([]string{
		`not json`,
		`{"command":"reboot"}`,
		`{"command":"steer","content":"too early"}`,
		`{"command":"cancel"}`,
		`{"command":"goal","action":"set","text":"  "}`,
		`{"command":"goal","action":"set","text":"ship it"}`,
		`{"command":"jobs_snapshot","request_id":"r1"}`,
		`{"command":"job_stop","request_id":"r2","generation":"g1","job_id":"bg-9"}`,
		`{"command":"approval","id":"ap-1","allow":true}`,
		`{"command":"prompt","content":"say hello","submission_id":"sub-1"}`,
	}, "\n") + "\n"
	r := openseek(t, ws, in, nil, append(modelArgs(srv), "--session", "srv", "serve")...)
	if r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	errs := find[protocol.CommandError](r.events)
	wantErrs := []string{`expected a {"command": ...} object`, "unknown command: reboot", "goal text must not be blank"}
	for i, w := range wantErrs {
		if i >= len(errs) || errs[i].Error != w {
			t.Errorf("command_error %d = %+v, want %q", i, errs, w)
		}
	}
	if len(find[protocol.SteerDropped](r.events)) != 1 {
		t.Errorf("no steer_dropped for an idle steer")
	}
	if g := find[protocol.GoalUpdated](r.events); len(g) != 1 || *g[0].Goal != "ship it" {
		t.Errorf("goal_updated %+v", g)
	}
	if s := find[protocol.JobsSnapshot](r.events); len(s) != 1 || s[0].RequestID != "r1" || len(s[0].Jobs) != 0 {
		t.Errorf("jobs_snapshot %+v", s)
	}
	if s := find[protocol.JobStopResult](r.events); len(s) != 1 || s[0].Outcome != "not_found" && s[0].Outcome != "wrong_runtime" {
		t.Errorf("job_stop_result %+v", s)
	}
	if len(find[protocol.GoalCheck](r.events)) != 1 {
		t.Errorf("no goal_check while a goal stands")
	}
	if f := find[protocol.AgentFinished](r.events); len(f) != 1 || f[0].Answer != "hello there" {
		t.Errorf("agent_finished %+v", f)
	}
	s, err := session.NewStore(filepath.Join(ws, ".openseek")).Load("srv")
	if err != nil {
		t.Fatal(err)
	}
	if g, ok := s.Goal(); !ok || g.Text != "ship it" {
		t.Errorf("goal not recorded: %+v %v", g, ok)
	}
	var u *session.User // the first user item, after the goal and snapshot notices
	for i := 0; u == nil && i < len(s.Events); i++ {
		u, _ = s.Events[i].Item.(*session.User)
	}
	if u == nil || u.SubmissionID == nil || *u.SubmissionID != "sub-1" {
		t.Errorf("submission id not recorded: %+v", u)
	}
}

// A run killed with SIGKILL in the middle of a tool leaves a session that
// loads and resumes; the dangling call gets a synthetic error result.
func TestKilledRunResumes(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	srv := llmtest.NewServer(t,
		llmtest.Reply{Calls: []llmtest.Call{{ID: "slow", Name: "shell", Args: `{"cmd":"touch started; sleep 5","timeout_ms":60000}`}}},
		llmtest.Text("resumed fine"),
	)
	home := t.TempDir()
	cmd := startUntilStarted(t, ws, home, nil, append(modelArgs(srv), "run", "--session", "k", "slow task")...)
	cmd.Process.Kill()
	cmd.Wait()

	r := openseek(t, ws, "", []string{"HOME=" + home}, append(modelArgs(srv), "run", "--session", "k", "go on")...)
	if r.code != 0 {
		t.Fatalf("resume exit %d: %s", r.code, r.stderr)
	}
	// The killed turn and the resumed one are two turns: the killed one
	// (with its snapshot) recorded no end; the resumed prompt's marker —
	// here that it changed nothing, as it ran no tool — names it.
	r = openseek(t, ws, "", []string{"HOME=" + home}, "rewind", "k", "--list", "--format", "json")
	var turns []struct {
		Number    int    `json:"number"`
		Snapshot  string `json:"snapshot"`
		Unchanged bool   `json:"unchanged"`
		Prompt    string `json:"prompt"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &turns); err != nil || len(turns) != 2 || turns[0].Snapshot == "" || turns[1].Prompt != "go on" || !turns[1].Unchanged {
		t.Errorf("rewind --list after a crash and a resume: %v %s %s", err, r.stdout, r.stderr)
	}
	if r = openseek(t, ws, "", []string{"HOME=" + home}, "rewind", "k", "--turn", "2"); r.code != 0 {
		t.Errorf("rewind --turn 2 after a crash and a resume: %d %s %s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	var all []byte
	for _, m := range reqs[len(reqs)-1].Messages {
		all = append(append(all, m...), '\n')
	}
	last := string(all)
	if !strings.Contains(last, "previous agent process exited before recording a result for tool shell") {
		t.Errorf("the dangling call was not answered:\n%s", last)
	}
}

func TestSessionsCompactAndTextTranscript(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "a", Name: "shell", Args: `{"cmd":"echo hi"}`}),
		llmtest.Text("said hi"),
		llmtest.Reply{Summary: true, Text: "The user asked to say hi; echo printed hi. Nothing remains."},
	)
	args := modelArgs(srv)
	// Without a snapshot marker the prompt is event 1, as the ranges below assume.
	if r := openseek(t, ws, "", []string{"OPENSEEK_SNAPSHOTS=off"}, append(args, "run", "--session", "c1", "say hi")...); r.code != 0 {
		t.Fatalf("run: %s", r.stderr)
	}
	// From a file, for a range.
	note := filepath.Join(ws, "note.txt")
	os.WriteFile(note, []byte("greeted the user"), 0o644)
	r := openseek(t, ws, "", nil, "sessions", "compact", "c1", "--file", note, "--from", "1", "--to", "3")
	if r.code != 0 || r.stdout != "compacted session c1 events 1..3; last_sequence=6\n" {
		t.Errorf("compact --file: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = openseek(t, ws, "", nil, "sessions", "compact", "c1", "--file", note, "--from", "2", "--to", "99")
	if r.code != 1 || !strings.Contains(r.stderr, "summary range 2..99 exceeds last sequence 6") {
		t.Errorf("bad range: %d %q", r.code, r.stderr)
	}
	// By the model, for the whole session.
	r = openseek(t, ws, "", nil, append(args, "sessions", "compact", "c1")...)
	if r.code != 0 || r.stdout != "compacted session c1 events 1..6; last_sequence=8\n" {
		t.Errorf("compact by the model: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = openseek(t, ws, "", nil, append(args, "sessions", "compact", "nope")...)
	if r.code != 1 || !strings.Contains(r.stderr, "session nope does not exist") {
		t.Errorf("unknown session: %d %q", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, ".openseek", "sessions", "nope")); err == nil {
		t.Error("compacting an unknown session created it")
	}

	r = openseek(t, ws, "", nil, "sessions", "show", "c1", "--format", "text")
	for _, want := range []string{"▶ user: say hi", "→ shell", "← shell: hi", "◆ said hi", "■ finished", "≡ summary of events 1..6", "tokens:"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("transcript lacks %q:\n%s", want, r.stdout)
		}
	}
}

func TestCompactRefusesALockedSession(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Calls(llmtest.Call{ID: "s", Name: "shell", Args: `{"cmd":"touch started; sleep 60"}`}), llmtest.Text("ok"))
	cmd := exec.Command(os.Args[0], append(modelArgs(srv), "run", "--session", "busy", "wait")...)
	cmd.Dir = ws
	cmd.Env = []string{"OPENSEEK_TEST_MAIN=1", "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	waitFor(t, "the command to start", func() bool {
		_, err := os.Stat(filepath.Join(ws, "started"))
		return err == nil
	})
	note := filepath.Join(t.TempDir(), "n.txt")
	os.WriteFile(note, []byte("summary"), 0o644)
	path := filepath.Join(ws, ".openseek", "sessions", "busy", "openseek_session-busy.jsonl")
	before, _ := os.ReadFile(path)
	r := openseek(t, ws, "", nil, "sessions", "compact", "busy", "--file", note, "--from", "1", "--to", "1")
	if r.code != 1 || !strings.Contains(r.stderr, "is open for writing by pid") {
		t.Errorf("locked session: %d %q", r.code, r.stderr)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("the locked session was written")
	}
}

func TestRunContinueResumesTheLatestSession(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Text("a"), llmtest.Text("b"), llmtest.Text("c"))
	args := modelArgs(srv)
	openseek(t, ws, "", nil, append(args, "run", "--session", "old", "first")...)
	time.Sleep(20 * time.Millisecond)
	srv.ExpectPrefixBreak() // a different session
	openseek(t, ws, "", nil, append(args, "run", "--session", "new", "second")...)
	r := openseek(t, ws, "", nil, append(args, "run", "--continue", "third")...)
	if r.code != 0 {
		t.Fatalf("%d %s", r.code, r.stderr)
	}
	if s := find[protocol.SessionStarted](r.events); len(s) != 1 || s[0].Session != "new" {
		t.Errorf("--continue picked %+v, want new", s)
	}
	r = openseek(t, t.TempDir(), "", nil, append(args, "run", "--continue", "x")...)
	if r.code != 1 || !strings.Contains(r.stderr, "--continue: no session to continue") {
		t.Errorf("--continue in an empty workspace: %d %q", r.code, r.stderr)
	}
}

// TestAPIKeyFlagWarns checks the one-line warning that a key on the
// command line is visible to other processes, and its absence otherwise.
func TestAPIKeyFlagWarns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		warn bool
	}{
		{"flag", []string{"--api-key", "sk-visible-0123456789", "run", "--no-session", "hi"}, true},
		{"no flag", []string{"run", "--no-session", "hi"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Text("ok"))
			r := openseek(t, t.TempDir(), "", nil, append(modelArgs(srv), tt.args...)...)
			if got := strings.Count(r.stderr, "--api-key is readable by every process"); got != map[bool]int{true: 1, false: 0}[tt.warn] {
				t.Fatalf("warnings %d, want warn=%v; stderr:\n%s", got, tt.warn, r.stderr)
			}
			if strings.Contains(r.stderr+r.stdout, "sk-visible-0123456789") {
				t.Errorf("the key was printed")
			}
		})
	}
}
