package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/protocol"
)

// An untrusted repository's allow rule must not make `rules check` say
// allow: it answers with the rules a session applies (the trust filter).
func TestRulesCheckAppliesTheTrustFilter(t *testing.T) {
	t.Parallel()
	ws, home := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".openseek"), 0o755)
	os.WriteFile(filepath.Join(ws, ".openseek", "config.toml"), []byte("[[rules]]\npattern = [\"git\", \"push\"]\ndecision = \"allow\"\n"), 0o644)
	env := []string{"HOME=" + home}
	r := openseek(t, ws, "", env, "rules", "check", "--", "git push origin main")
	if r.code != 0 || strings.Contains(r.stdout, "allow [") || !strings.Contains(r.stderr, "ignored until you trust") {
		t.Errorf("untrusted allow rule counted: %d\nstdout %q\nstderr %q", r.code, r.stdout, r.stderr)
	}
	if tr := openseek(t, ws, "", env, "trust"); tr.code != 0 {
		t.Fatalf("trust: %q", tr.stderr)
	}
	r = openseek(t, ws, "", env, "rules", "check", "--", "git push origin main")
	if r.code != 0 || !strings.Contains(r.stdout, "allow") || !strings.Contains(r.stdout, "config.toml:1") {
		t.Errorf("trusted allow rule not applied: %d %q %q", r.code, r.stdout, r.stderr)
	}
}

// Without --model the default model (a catalogue model) gets thinking
// "high", decided once the model is resolved, not from the raw flag.
func TestDefaultModelThinksHigh(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Text("ok"))
	r := openseek(t, t.TempDir(), "", []string{"DEEPSEEK_API_KEY=sk-test"}, "--api-url", srv.URL(), "run", "--no-session", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var body map[string]any
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if body["model"] != "deepseek-v4-flash" || body["reasoning_effort"] != "high" {
		t.Errorf("default model request: model %v, reasoning_effort %v; want deepseek-v4-flash, high", body["model"], body["reasoning_effort"])
	}
	// An unknown model of an arbitrary server gets no reasoning knob.
	srv2 := llmtest.NewServer(t, llmtest.Text("ok"))
	r = openseek(t, t.TempDir(), "", nil, append(modelArgs(srv2), "run", "--no-session", "hi")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.Contains(string(srv2.Requests()[0].Body), "reasoning_effort") {
		t.Errorf("an unknown model was sent a reasoning knob: %s", srv2.Requests()[0].Body)
	}
}

// A run ends with turn_summary: the session, steps, usage and cost.
func TestRunEndsWithTurnSummary(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Calls(llmtest.Call{ID: "a", Name: "shell", Args: `{"cmd":"true"}`}), llmtest.Text("done"))
	r := openseek(t, t.TempDir(), "", nil, append(modelArgs(srv), "--no-sandbox", "run", "go")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	sums := find[protocol.TurnSummary](r.events)
	started := find[protocol.ToolStarted](r.events)
	if len(sums) != 1 || sums[0].Outcome != "finished" || sums[0].Steps != 2 || sums[0].Usage.TotalTokens == 0 || sums[0].Session == "" {
		t.Errorf("turn_summary %+v", sums)
	}
	if len(started) != 1 || started[0].ToolName != "shell" || !strings.Contains(started[0].Arguments, `"cmd":"true"`) {
		t.Errorf("tool_started %+v", started)
	}
}

// Started in a subdirectory of a project, the session lives at the
// project root and shell commands start where the user is.
func TestSubdirectoryUsesTheProjectRoot(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	sub := filepath.Join(root, "pkg", "sub")
	os.MkdirAll(sub, 0o755)
	srv := llmtest.NewServer(t, llmtest.Calls(llmtest.Call{ID: "a", Name: "shell", Args: `{"cmd":"pwd"}`}), llmtest.Text("done"))
	r := openseek(t, sub, "", nil, append(modelArgs(srv), "--no-sandbox", "run", "where am I")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(sub, ".openseek")); err == nil {
		t.Error("a sub/.openseek was made")
	}
	started := find[protocol.SessionStarted](r.events)
	if len(started) != 1 || started[0].WorkspaceRoot == nil || *started[0].WorkspaceRoot != root {
		t.Fatalf("session_started %+v, want workspace %s", started, root)
	}
	if _, err := os.Stat(filepath.Join(root, ".openseek", "sessions", started[0].Session)); err != nil {
		t.Errorf("session not under the project root: %v", err)
	}
	res := find[protocol.ToolResult](r.events)
	if len(res) != 1 || !strings.Contains(res[0].Content, sub) {
		t.Errorf("the shell did not start in the user's directory: %+v", res)
	}
	if sys := string(srv.Requests()[0].Messages[0]); !strings.Contains(sys, "Working directory: pkg/sub") {
		t.Error("the system prompt does not name the working directory")
	}
}

// `openseek run … | head -1`: a closed stdout ends the run cleanly and
// the session records how the turn ended.
func TestClosedStdoutEndsTheRunRecorded(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Text("an answer nobody reads"))
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // the reader is gone before anything is written
	cmd := exec.Command(os.Args[0], append(modelArgs(srv), "--session", "piped", "run", "hi")...)
	cmd.Dir = ws
	cmd.Env = []string{"OPENSEEK_TEST_MAIN=1", "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	cmd.Stdout = w
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	w.Close()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
		t.Fatalf("exit: %v (want status %d, interrupted, not a signal)\n%s", err, exitInterrupted, stderr.String())
	}
	show := openseek(t, ws, "", nil, "sessions", "show", "piped", "--format", "text")
	if !strings.Contains(show.stdout, "■ interrupted") && !strings.Contains(show.stdout, "■ aborted") {
		t.Errorf("the session records no end of the turn:\n%s", show.stdout)
	}
}

// Piped input with task words is added to the task as context.
func TestPipedInputJoinsTheTask(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Text("looks fine"))
	r := openseek(t, t.TempDir(), "diff --git a/x b/x\n+new line\n", nil, append(modelArgs(srv), "run", "--no-session", "review this")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	msgs := srv.Requests()[0].Messages
	user := string(msgs[len(msgs)-1])
	if !strings.Contains(user, "review this") || !strings.Contains(user, "+new line") || !strings.Contains(user, "<stdin>") {
		t.Errorf("the piped diff did not reach the model: %s", user)
	}
}

func TestVersionHelpCompletionAndSuggestions(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	for _, tc := range []struct {
		args      []string
		code      int
		out, errs string
		not       string
	}{
		{[]string{"version"}, 0, "openseek ", "", ""},
		{[]string{"--version"}, 0, "openseek version ", "", ""},
		{[]string{"help", "run"}, 0, "Run one task headlessly", "", ""},
		{[]string{"completion", "bash"}, 0, "bash completion", "", ""},
		{[]string{"sessions", "show", "--help"}, 0, "--session-root", "", "--api-key"},
		{[]string{"run", "--help"}, 0, "--api-key", "", ""},
		{[]string{"sesions"}, 1, "", "(did you mean sessions?)", ""},
	} {
		r := openseek(t, ws, "", nil, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stdout, tc.out) || !strings.Contains(r.stderr, tc.errs) || (tc.not != "" && strings.Contains(r.stdout, tc.not)) {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %q", tc.args, r.code, r.stdout, r.stderr)
		}
	}
}

func TestBadEnvironmentValuesAreErrors(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"OPENSEEK_MAX_STEPS=abc", "OPENSEEK_CONTEXT_WINDOW=xyz"} {
		r := openseek(t, t.TempDir(), "", []string{v}, "run", "hi")
		name := strings.SplitN(v, "=", 2)[0]
		if r.code != 1 || !strings.Contains(r.stderr, name) {
			t.Errorf("%s: exit %d, stderr %q", v, r.code, r.stderr)
		}
	}
}

func TestCorruptSessionIsMarkedAndRepaired(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Text("a"), llmtest.Text("b"))
	for _, task := range []string{"first", "second"} {
		if r := openseek(t, ws, "", nil, append(modelArgs(srv), "--session", "c", "run", task)...); r.code != 0 {
			t.Fatalf("run: %s", r.stderr)
		}
		srv.ExpectPrefixBreak()
	}
	path := filepath.Join(ws, ".openseek", "sessions", "c", "openseek_session-c.jsonl")
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	lines[3] = "garbage\n"
	os.WriteFile(path, []byte(strings.Join(lines, "")), 0o600)
	list := openseek(t, ws, "", nil, "sessions", "list")
	if !strings.Contains(list.stdout, "[corrupt: run `openseek sessions repair c`]") {
		t.Errorf("sessions list does not mark the corrupt session: %q", list.stdout)
	}
	js := openseek(t, ws, "", nil, "sessions", "list", "--format", "json")
	if !strings.Contains(js.stdout, `"problem":`) {
		t.Errorf("sessions list --format json has no problem: %s", js.stdout)
	}
	rep := openseek(t, ws, "", nil, "sessions", "repair", "c")
	if rep.code != 0 || !strings.Contains(rep.stdout, "events kept") {
		t.Fatalf("repair: %d %q %q", rep.code, rep.stdout, rep.stderr)
	}
	if show := openseek(t, ws, "", nil, "sessions", "show", "c"); show.code != 0 {
		t.Errorf("the repaired session does not load: %s", show.stderr)
	}
	aside, _ := filepath.Glob(path + ".corrupt-*")
	if len(aside) != 1 {
		t.Errorf("the original was not set aside: %v", aside)
	}
}

func TestNamedMCPConfigMustLoad(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	srv := llmtest.NewServer(t)
	bad := filepath.Join(ws, "bad.json")
	os.WriteFile(bad, []byte("{not json"), 0o644)
	for _, path := range []string{filepath.Join(ws, "missing.json"), bad} {
		r := openseek(t, ws, "", nil, append(modelArgs(srv), "--mcp-config", path, "run", "hi")...)
		if r.code != 1 || !strings.Contains(r.stderr, "--mcp-config "+path) {
			t.Errorf("%s: exit %d, stderr %q", path, r.code, r.stderr)
		}
	}
}

// --max-cost: a request that could take the session past its budget is
// not sent; the turn ends with a clear reason, and a larger budget goes on.
func TestMaxCostStopsBeforeTheBudget(t *testing.T) {
	t.Parallel()
	ws, home := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(home, ".openseek"), 0o755)
	os.WriteFile(filepath.Join(home, ".openseek", "config.toml"), []byte("[models.\"local/priced\"]\nprice = { input_miss = 100.0, input_hit = 10.0, output = 100.0 }\nmax_output = 1000\n[providers.local]\napi = \"openai\"\nbase_url = \"http://127.0.0.1:1/v1\"\n"), 0o644)
	srv := llmtest.NewServer(t, llmtest.Text("fine"))
	env := []string{"HOME=" + home}
	r := openseek(t, ws, "", env, "--api-url", srv.URL(), "--model", "local/priced", "--max-cost", "0.01", "run", "--session", "b", "hi")
	if r.code != exitLimit || len(srv.Requests()) != 0 {
		t.Fatalf("exit %d, %d requests sent; stderr %q", r.code, len(srv.Requests()), r.stderr)
	}
	failed := find[protocol.TurnFailed](r.events)
	if len(failed) != 1 || !strings.Contains(failed[0].Error, "larger --max-cost") {
		t.Errorf("turn_failed %+v", failed)
	}
	// An unknown price cannot be held to a budget.
	r = openseek(t, ws, "", nil, append(modelArgs(srv), "--max-cost", "1", "run", "--no-session", "hi")...)
	if r.code != 1 || !strings.Contains(r.stderr, "--max-cost needs the model's prices") {
		t.Errorf("unknown price: %d %q", r.code, r.stderr)
	}
}

// An edit's tool_result carries the unified diff of the change for the
// clients that show it (web app, TUI, editors); the model never sees it.
func TestEditResultsCarryADiff(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("one\nhello\nthree\n"), 0o644)
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "r", Name: "read", Args: `{"path":"notes.txt"}`}),
		llmtest.Calls(llmtest.Call{ID: "e", Name: "edit", Args: `{"path":"notes.txt","old_string":"hello","new_string":"bye"}`}),
		llmtest.Calls(llmtest.Call{ID: "w", Name: "write", Args: `{"path":"new.txt","content":"fresh\n"}`}),
		llmtest.Text("done"))
	r := openseek(t, ws, "", nil, append(modelArgs(srv), "--no-sandbox", "run", "--no-session", "edit")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	diffs := map[string]string{}
	for _, res := range find[protocol.ToolResult](r.events) {
		if res.Diff != nil {
			diffs[res.ToolName] = *res.Diff
		}
	}
	if d := diffs["edit"]; !strings.Contains(d, "--- a/notes.txt") || !strings.Contains(d, "-hello") || !strings.Contains(d, "+bye") {
		t.Errorf("edit diff %q", d)
	}
	if d := diffs["write"]; !strings.Contains(d, "--- /dev/null") || !strings.Contains(d, "+fresh") {
		t.Errorf("write diff %q", d)
	}
	for _, req := range srv.Requests() {
		if strings.Contains(string(req.Body), "+bye") {
			t.Error("the diff reached the model")
		}
	}
}

// Closing the terminal (SIGHUP) while a command runs ends the run like
// SIGTERM: the turn is recorded as interrupted and the command is gone.
func TestSighupEndsTheRunAndItsCommand(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	// The command names the workspace, so that the check for it below
	// finds this test's command and no other test's running beside it.
	command := "touch started; sleep 30; echo " + ws + " >> late.txt"
	srv := llmtest.NewServer(t, llmtest.Calls(llmtest.Call{ID: "a", Name: "shell", Args: `{"cmd":` + quoteJSON(command) + `}`}), llmtest.Text("never"))
	cmd := exec.Command(os.Args[0], append(modelArgs(srv), "--session", "hup", "run", "wait")...)
	cmd.Dir = ws
	cmd.Env = []string{"OPENSEEK_TEST_MAIN=1", "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.Contains(sc.Text(), `"tool_started"`) {
				close(started)
				break
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	select {
	case <-started:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the command never started")
	}
	// tool_started comes before the shell runs: wait until it does.
	waitFor(t, "the shell to run", func() bool {
		_, err := os.Stat(filepath.Join(ws, "started"))
		return err == nil
	})
	cmd.Process.Signal(syscall.SIGHUP)
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
		t.Fatalf("exit after SIGHUP: %v, want status %d (interrupted, not killed by the signal)", err, exitInterrupted)
	}
	show := openseek(t, ws, "", nil, "sessions", "show", "hup", "--format", "text")
	if !strings.Contains(show.stdout, "■ interrupted") {
		t.Errorf("the session does not record the interrupted turn:\n%s", show.stdout)
	}
	if pids, _ := exec.Command("pgrep", "-f", "sleep 30; echo "+ws).Output(); len(strings.TrimSpace(string(pids))) > 0 {
		t.Errorf("the command outlived the run: pids %s", pids)
	}
}
