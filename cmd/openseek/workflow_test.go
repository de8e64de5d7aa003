package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/internal/trust"
	"github.com/openseek/openseek/protocol"
)

// writeAndFinish is an agent's whole turn in one model answer: write
// path, then finish, so that agents running at once each take exactly
// one scripted answer, whatever order they ask in.
func writeAndFinish(path, content, answer string) llmtest.Turn {
	w, _ := json.Marshal(map[string]string{"path": path, "content": content})
	f, _ := json.Marshal(map[string]string{"answer": answer})
	return llmtest.Calls(llmtest.Call{Name: "write", Args: string(w)}, llmtest.Call{Name: "finish", Args: string(f)})
}

// writeWorkflow writes a workflow file outside the workspace.
func writeWorkflow(t *testing.T, code string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "flow.star")
	if err := os.WriteFile(p, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// runSessionIDs are the sessions of ws, the run's first.
func sessionIDs(t *testing.T, ws string) []string {
	t.Helper()
	ls, err := session.NewStore(filepath.Join(ws, ".openseek")).List()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range ls {
		ids = append(ids, l.ID)
	}
	return ids
}

// onlySession loads the one session of ws.
func onlySession(t *testing.T, ws string) *session.Session {
	t.Helper()
	ids := sessionIDs(t, ws)
	if len(ids) != 1 {
		t.Fatalf("sessions %v, want one", ids)
	}
	s, err := session.NewStore(filepath.Join(ws, ".openseek")).Load(ids[0])
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// startUntilStarted starts openseek with args in ws (HOME=home, its
// stderr to stderr when not nil) and waits until the file ws/started
// exists (the run got that far), killing it and failing when it does not
// within 30 seconds.
func startUntilStarted(t *testing.T, ws, home string, stderr io.Writer, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = ws
	cmd.Env = []string{"OPENSEEK_TEST_MAIN=1", "HOME=" + home, "PATH=" + os.Getenv("PATH")}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(ws, "started")); err == nil {
			return cmd
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("the run never started its command")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A workflow file calls tools (through the sandboxed dispatch, recorded
// as children of the run's call), runs an agent as the sub-run
// <run>-sr-1 and prints JSON; the run is a session of its own.
func TestWorkflowRunsToolsAndAnAgent(t *testing.T) {
	t.Parallel()
	ws := fleetRepo(t, map[string]string{"a.txt": "alpha\n"})
	outside := t.TempDir()
	flow := writeWorkflow(t, `text = read(path = "a.txt")
blocked = shell(cmd = "touch `+filepath.Join(outside, "escaped")+`", check = False)
r = agent(task = "write b.txt")
print(json.encode({"read": "alpha" in text, "ok": r.ok, "answer": r.answer, "session": r.session, "diff": "+beta" in r.diff, "args": args}))
`)
	srv := llmtest.NewServer(t, writeAndFinish("b.txt", "beta\n", "wrote b"))
	r := openseek(t, ws, "", nil, append(modelArgs(srv), "workflow", "run", flow, "x", "--y")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	var got struct {
		Read, OK, Diff  bool
		Answer, Session string
		Args            []string
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("stdout is not the workflow's JSON: %v: %q", err, r.stdout)
	}
	if !got.Read || !got.OK || !got.Diff || got.Answer != "wrote b" || strings.Join(got.Args, " ") != "x --y" {
		t.Errorf("workflow output: %+v", got)
	}
	if _, err := os.Stat(filepath.Join(outside, "escaped")); err == nil {
		t.Error("a command the workflow ran wrote outside the workspace")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "b.txt")); string(b) != "beta\n" {
		t.Errorf("the agent did not write b.txt in the workspace: %q", b)
	}
	ids := sessionIDs(t, ws)
	var run string
	for _, id := range ids {
		if !strings.Contains(id, "-sr-") {
			run = id
		}
	}
	if got.Session != run+"-sr-1" || len(ids) != 2 {
		t.Fatalf("sessions %v; the agent's is %q, want <run>-sr-1", ids, got.Session)
	}
	s, err := session.NewStore(filepath.Join(ws, ".openseek")).Load(run)
	if err != nil {
		t.Fatal(err)
	}
	var kids []string
	var term *session.Terminal
	for _, e := range s.Events {
		switch it := e.Item.(type) {
		case *session.ToolResult:
			if it.Parent == "wf1" {
				kids = append(kids, it.ToolName)
			}
		case *session.Terminal:
			term = it
		}
	}
	if strings.Join(kids, ",") != "read,shell" {
		t.Errorf("the run's session records %v as the workflow's calls", kids)
	}
	if term == nil || term.Kind != session.Finished {
		t.Errorf("the run's session ends with %+v", term)
	}
}

// Two agents in parallel() each write in a git worktree of their own;
// both results come back in order, with their diffs, and the workspace
// is left as it was.
func TestWorkflowParallelWritersGetWorktrees(t *testing.T) {
	t.Parallel()
	ws := fleetRepo(t, map[string]string{"note.txt": "base\n"})
	flow := writeWorkflow(t, `rs = parallel([lambda: agent(task = "first"), lambda: agent(task = "second")])
for r in rs:
    print(json.encode({"ok": r.ok, "worktree": r.worktree, "diff": r.diff, "session": r.session}))
`)
	// The agents write with a command, in the sandbox, each in its own
	// worktree.
	shellAndFinish := func(cmd, answer string) llmtest.Turn {
		c, _ := json.Marshal(map[string]string{"cmd": cmd})
		f, _ := json.Marshal(map[string]string{"answer": answer})
		return llmtest.Calls(llmtest.Call{Name: "shell", Args: string(c)}, llmtest.Call{Name: "finish", Args: string(f)})
	}
	srv := llmtest.NewServer(t, shellAndFinish("echo one > note.txt", "did one"), shellAndFinish("echo two > note.txt", "did two"))
	srv.MultiConversation()
	r := openseek(t, ws, "", nil, append(modelArgs(srv), "workflow", "run", flow)...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 2 {
		t.Fatalf("want two results, got %q", r.stdout)
	}
	seen := map[string]bool{}
	for i, line := range lines {
		var res struct {
			OK                      bool
			Worktree, Diff, Session string
		}
		if err := json.Unmarshal([]byte(line), &res); err != nil {
			t.Fatal(err)
		}
		if !res.OK || res.Worktree == "" || !strings.Contains(res.Session, "-sr-") || seen[res.Session] {
			t.Errorf("result %d: %+v", i, res)
		}
		seen[res.Session] = true
		body, err := os.ReadFile(filepath.Join(res.Worktree, "note.txt"))
		if err != nil {
			t.Fatal(err)
		}
		seen[string(body)] = true
		if !strings.Contains(res.Diff, "+"+strings.TrimSpace(string(body))) {
			t.Errorf("result %d: diff %q does not show %q", i, res.Diff, body)
		}
	}
	if !seen["one\n"] || !seen["two\n"] {
		t.Errorf("the worktrees hold %v, want one and two", seen)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "note.txt")); string(b) != "base\n" {
		t.Errorf("parallel writers changed the workspace: %q", b)
	}
}

// A workflow that raises, loops without end or calls a tool that does
// not exist fails with an error naming its line, exit 1, and its run
// session records the failure.
func TestWorkflowBadInputNamesTheLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, code, want string }{
		{"raise", "x = 1\nfail('boom')\n", "line 2: fail: boom"},
		{"loop", "x = 0\nwhile True:\n    x += 1\n", "line 3: "},
		{"unknown tool", "print('hi')\n\nnope(a = 1)\n", "line 3: undefined: nope"},
		{"syntax", "x = (\n", "syntax error at line 2"},
		{"agent kind", "agent(task = 'x', kind = 'wizard')\n", "line 1: agent: unknown kind"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := fleetRepo(t, nil)
			srv := llmtest.NewServer(t)
			r := openseek(t, ws, "", nil, append(modelArgs(srv), "workflow", "run", writeWorkflow(t, tc.code))...)
			if r.code != 1 || !strings.Contains(r.stderr, tc.want) || !strings.Contains(r.stderr, "workflow flow") {
				t.Fatalf("exit %d, stderr %q; want 1 and %q", r.code, r.stderr, tc.want)
			}
			s := onlySession(t, ws)
			last := s.Events[len(s.Events)-1].Item
			if term, ok := last.(*session.Terminal); !ok || term.Kind != session.Failed || !strings.Contains(term.Message, tc.want) {
				t.Errorf("the run's session ends with %#v", last)
			}
		})
	}
}

// workflow list shows the bundled workflows, the user's and the
// project's; a project workflow runs only once trusted.
func TestWorkflowListAndTrust(t *testing.T) {
	t.Parallel()
	ws, home := fleetRepo(t, nil), t.TempDir()
	for dir, name := range map[string]string{filepath.Join(ws, ".openseek", "workflows"): "mine", filepath.Join(home, ".openseek", "workflows"): "users"} {
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, name+".star"), []byte("# The "+name+" workflow.\nprint('"+name+" ran')\n"), 0o644)
	}
	env := []string{"HOME=" + home}
	r := openseek(t, ws, "", env, "workflow", "list")
	for _, want := range []string{"check\tbundled\t", "fix-tests\tbundled\t", "users\tuser\tThe users workflow.", "mine\tproject\t(not trusted: openseek trust "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("workflow list lacks %q:\n%s", want, r.stdout)
		}
	}
	srv := llmtest.NewServer(t)
	r = openseek(t, ws, "", env, append(modelArgs(srv), "workflow", "run", "mine")...)
	if r.code == 0 || !strings.Contains(r.stderr, "is not trusted") {
		t.Fatalf("an untrusted workflow ran: exit %d, %s %s", r.code, r.stdout, r.stderr)
	}
	if err := trust.Open(home).Trust(filepath.Join(ws, ".openseek", "workflows", "mine.star")); err != nil {
		t.Fatal(err)
	}
	r = openseek(t, ws, "", env, append(modelArgs(srv), "workflow", "run", "mine")...)
	if r.code != 0 || r.stdout != "mine ran\n" {
		t.Fatalf("trusted workflow: exit %d, %q %s", r.code, r.stdout, r.stderr)
	}
	r = openseek(t, ws, "", env, append(modelArgs(srv), "workflow", "run", "users")...)
	if r.code != 0 || r.stdout != "users ran\n" {
		t.Fatalf("user workflow: exit %d, %q %s", r.code, r.stdout, r.stderr)
	}
}

// TestWorkflowAsOrdinaryUser runs the workflow tests again as an
// ordinary user, as most people run them.
func TestWorkflowAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^(TestWorkflowRunsToolsAndAnAgent|TestWorkflowParallelWritersGetWorktrees|TestWorkflowBadInputNamesTheLine|TestBundledWorkflows|TestBundledReviewWorkflow|TestBundledReviewAuditsTheGoal|TestWorkflowBestOf|TestWorkflowInterruptedEndsCleanly|TestKilledWorkflowRunResumes)$")
}

// The bundled workflows run against a project whose Makefile has build
// and test targets: check reports each step in one JSON line and fails
// when one fails; fix-tests hands the failing tests to an agent until
// they pass, or gives up after its rounds.
func TestBundledWorkflows(t *testing.T) {
	t.Parallel()
	makefile := "build:\n\t@echo built\ntest:\n\t@grep -qx fixed value.txt || (echo 'value.txt is not fixed'; exit 1)\n"
	t.Run("check", func(t *testing.T) {
		ws := fleetRepo(t, map[string]string{"Makefile": makefile, "value.txt": "fixed\n"})
		srv := llmtest.NewServer(t)
		r := openseek(t, ws, "", nil, append(modelArgs(srv), "workflow", "run", "check")...)
		var rep struct {
			OK          bool
			Build, Test *struct {
				Command string
				OK      bool
				Output  string
			}
			Format any
		}
		if r.code != 0 || strings.Count(r.stdout, "\n") != 1 || json.Unmarshal([]byte(r.stdout), &rep) != nil {
			t.Fatalf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
		}
		if !rep.OK || rep.Build == nil || rep.Build.Command != "make build" || !strings.Contains(rep.Build.Output, "built") || rep.Test == nil || !rep.Test.OK || rep.Format != nil {
			t.Errorf("check report: %s", r.stdout)
		}
		os.WriteFile(filepath.Join(ws, "value.txt"), []byte("broken\n"), 0o644)
		r = openseek(t, ws, "", nil, append(modelArgs(srv), "workflow", "run", "check")...)
		if r.code != 1 || !strings.Contains(r.stdout, `"ok":false`) || !strings.Contains(r.stdout, "value.txt is not fixed") || !strings.Contains(r.stderr, "check failed: test") {
			t.Errorf("a failing test: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("fix-tests", func(t *testing.T) {
		ws := fleetRepo(t, map[string]string{"Makefile": makefile, "value.txt": "broken\n"})
		srv := llmtest.NewServer(t, writeAndFinish("value.txt", "fixed\n", "fixed it"))
		r := openseek(t, ws, "", nil, append(modelArgs(srv), "workflow", "run", "fix-tests", "2")...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, `{"agents":[{"cost":`) || !strings.Contains(r.stdout, `"ok":true,"rounds":1}`) {
			t.Fatalf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
		}
		if b, _ := os.ReadFile(filepath.Join(ws, "value.txt")); string(b) != "fixed\n" {
			t.Errorf("value.txt: %q", b)
		}
	})
	t.Run("fix-tests gives up", func(t *testing.T) {
		ws := fleetRepo(t, map[string]string{"Makefile": makefile, "value.txt": "broken\n"})
		srv := llmtest.NewServer(t, writeAndFinish("other.txt", "x\n", "tried"))
		r := openseek(t, ws, "", nil, append(modelArgs(srv), "workflow", "run", "fix-tests", "1")...)
		if r.code != 1 || !strings.Contains(r.stdout, `"ok":false,"rounds":1`) || !strings.Contains(r.stderr, "the tests still fail after 1 rounds") {
			t.Fatalf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
		}
	})
}

// A workflow run stopped by a signal in the middle of a tool ends
// cleanly: exit non-zero, and its session records the interrupted call's
// result and the turn's end — nothing is left half-recorded.
func TestWorkflowInterruptedEndsCleanly(t *testing.T) {
	t.Parallel()
	ws := fleetRepo(t, nil)
	flow := writeWorkflow(t, "shell(cmd = 'touch started; sleep 60', timeout_ms = 120000)\nprint('not reached')\n")
	srv := llmtest.NewServer(t)
	var stderr strings.Builder
	cmd := startUntilStarted(t, ws, t.TempDir(), &stderr, append(modelArgs(srv), "workflow", "run", flow)...)
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	if err == nil || !strings.Contains(stderr.String(), "interrupted") {
		t.Fatalf("an interrupted run: %v, stderr %q", err, stderr.String())
	}
	s := onlySession(t, ws)
	var results []string
	for _, e := range s.Events {
		if r, ok := e.Item.(*session.ToolResult); ok {
			results = append(results, r.ToolCallID)
		}
	}
	last := s.Events[len(s.Events)-1].Item
	if term, ok := last.(*session.Terminal); !ok || term.Kind != session.Interrupted || strings.Join(results, ",") != "wf1.1,wf1" {
		t.Errorf("the run's session ends with %#v; results %v", last, results)
	}
}

// The bundled review has a read-only agent review the uncommitted
// changes; a high-severity finding is a blocker that fails the run, a
// clean report passes it.
func TestBundledReviewWorkflow(t *testing.T) {
	t.Parallel()
	report := func(severity string) llmtest.Turn {
		rep := `{"findings":[{"file":"a.go","line_start":1,"line_end":1,"severity":"` + severity + `","title":"bad sum","body":"it subtracts"}],"verdict":"request_changes","summary":"one problem"}`
		return llmtest.Text(rep)
	}
	for _, tc := range []struct {
		severity string
		code     int
	}{{"high", 1}, {"low", 0}} {
		t.Run(tc.severity, func(t *testing.T) {
			ws := fleetRepo(t, map[string]string{"a.go": "package a\n"})
			os.WriteFile(filepath.Join(ws, "a.go"), []byte("package a\n\nfunc Sum(a, b int) int { return a - b }\n"), 0o644)
			srv := llmtest.NewServer(t, report(tc.severity))
			r := openseek(t, ws, "", nil, append(modelArgs(srv), "workflow", "run", "review")...)
			if r.code != tc.code || !strings.Contains(r.stdout, `"verdict":"request_changes"`) || !strings.Contains(r.stdout, `"title":"bad sum"`) {
				t.Fatalf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
			}
			if tc.code == 1 && !strings.Contains(r.stderr, "1 blocker(s) in the changes: a.go:1 bad sum") {
				t.Errorf("stderr %q does not name the blocker", r.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 || !strings.Contains(string(reqs[0].Messages[len(reqs[0].Messages)-1]), "return a - b") {
				t.Errorf("the reviewer was not shown the diff")
			}
		})
	}
}

// best_of runs n agents at once in worktrees of their own and returns
// the first whose result verify accepts, or None.
func TestWorkflowBestOf(t *testing.T) {
	t.Parallel()
	ws := fleetRepo(t, map[string]string{"value.txt": "0\n"})
	flow := writeWorkflow(t, `best = best_of(2, "set the value", verify = lambda r: "+2" in r.diff)
print(best.answer if best else "none")
print(best_of(2, "again", verify = lambda r: False))
`)
	srv := llmtest.NewServer(t, writeAndFinish("value.txt", "1\n", "one"), writeAndFinish("value.txt", "2\n", "two"),
		writeAndFinish("value.txt", "3\n", "three"), writeAndFinish("value.txt", "4\n", "four"))
	srv.MultiConversation()
	r := openseek(t, ws, "", nil, append(modelArgs(srv), "workflow", "run", flow)...)
	if r.code != 0 || r.stdout != "two\nNone\n" {
		t.Fatalf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	if len(sessionIDs(t, ws)) != 5 {
		t.Errorf("want the run and four agents' sessions: %v", sessionIDs(t, ws))
	}
}

// A workflow run killed outright (SIGKILL) leaves a session that loads
// and that a new run resumes with --session: the killed run's call is
// answered and its turn ended as interrupted first, then the new run
// finishes in the same session.
func TestKilledWorkflowRunResumes(t *testing.T) {
	t.Parallel()
	ws, home := fleetRepo(t, nil), t.TempDir()
	flow := writeWorkflow(t, "shell(cmd = 'touch started; sleep 60', timeout_ms = 120000)\n")
	srv := llmtest.NewServer(t)
	cmd := startUntilStarted(t, ws, home, nil, append(modelArgs(srv), "--session", "wfk", "workflow", "run", flow)...)
	cmd.Process.Kill()
	cmd.Wait()
	// What the killed run left loads, whole lines only, and shows.
	if _, err := session.NewStore(filepath.Join(ws, ".openseek")).Load("wfk"); err != nil {
		t.Fatalf("the killed run's session does not load: %v", err)
	}
	if show := openseek(t, ws, "", []string{"HOME=" + home}, "sessions", "show", "wfk", "--format", "text"); show.code != 0 || !strings.Contains(show.stdout, "→ workflow") {
		t.Fatalf("sessions show of the killed run: exit %d\n%s%s", show.code, show.stdout, show.stderr)
	}

	r := openseek(t, ws, "", []string{"HOME=" + home}, append(modelArgs(srv), "--session", "wfk", "workflow", "run", writeWorkflow(t, "print('again')\n"))...)
	if r.code != 0 || r.stdout != "again\n" {
		t.Fatalf("resume: exit %d, %q %s", r.code, r.stdout, r.stderr)
	}
	s := onlySession(t, ws)
	var got []string
	for _, e := range s.Events {
		switch it := e.Item.(type) {
		case *session.Terminal:
			got = append(got, string(it.Kind))
		case *session.ToolResult:
			got = append(got, it.ToolCallID)
		}
	}
	if strings.Join(got, ",") != "wf1,interrupted,wf4,finished" {
		t.Errorf("the session records %v; want the killed call answered and its turn ended before the new run", got)
	}
}

// With --format jsonl the run's event stream shows its agents live
// (subrun_started / subrun_finished naming <run>-sr-N), and the turn's
// summary counts their tokens.
func TestWorkflowEventStreamShowsAgents(t *testing.T) {
	t.Parallel()
	ws := fleetRepo(t, nil)
	srv := llmtest.NewServer(t, writeAndFinish("x.txt", "x\n", "done"))
	r := openseek(t, ws, "", nil, append(modelArgs(srv), "workflow", "run", "--format", "jsonl", writeWorkflow(t, "agent(task = 'write x')\n"))...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	run := find[protocol.SessionStarted](r.events)
	started, finished := find[protocol.SubrunStarted](r.events), find[protocol.SubrunFinished](r.events)
	sums := find[protocol.TurnSummary](r.events)
	if len(run) == 0 || len(started) != 1 || len(finished) != 1 || len(sums) != 1 || len(find[protocol.WorkflowFinished](r.events)) != 1 {
		t.Fatalf("events: %v", names(r.events))
	}
	if started[0].ID != run[0].Session+"-sr-1" || started[0].Label != "write x" || finished[0].Status != protocol.SubrunCaptured || finished[0].PromptTokens == 0 {
		t.Errorf("sub-run events %+v %+v", started[0], finished[0])
	}
	if sums[0].Usage.PromptTokens < finished[0].PromptTokens {
		t.Errorf("the turn's summary %+v leaves out the agent's %d prompt tokens", sums[0].Usage, finished[0].PromptTokens)
	}
}

// The bundled review also audits the standing goal: the goal set in a
// session (through `serve`, as a face sets it) records the commit it was
// set at; a later `workflow run review` has a second read-only agent
// judge the work since that commit (committed and not) against the goal.
// A goal not met (a high finding) fails the run, naming the session and
// the finding; a met goal passes it, and the report carries the audit.
func TestBundledReviewAuditsTheGoal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		audit string
		code  int
	}{
		{"not met", `{"findings":[{"file":"sum.go","line_start":1,"line_end":1,"severity":"high","title":"Sub is missing","body":"the goal asks for Sub too"}],"verdict":"request_changes","summary":"half done"}`, 1},
		{"met", `{"findings":[],"verdict":"approve","summary":"the goal is met"}`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, home := fleetRepo(t, map[string]string{"a.go": "package a\n"}), t.TempDir()
			env := []string{"HOME=" + home}
			base := strings.TrimSpace(gitRun(t, ws, "rev-parse", "HEAD"))
			srv := llmtest.NewServer(t,
				llmtest.Text(`{"findings":[],"verdict":"approve","summary":"the uncommitted changes are fine"}`),
				llmtest.Text(tc.audit))
			srv.MultiConversation() // the reviewer and the auditor are two agents
			set := openseek(t, ws, `{"command":"goal","action":"set","text":"add Sum and Sub to package a"}`+"\n", env,
				append(modelArgs(srv), "--session", "worked", "serve")...)
			if set.code != 0 {
				t.Fatalf("serve: exit %d: %s", set.code, set.stderr)
			}
			// The work since: one commit, and a change not committed.
			os.WriteFile(filepath.Join(ws, "sum.go"), []byte("package a\n\nfunc Sum(a, b int) int { return a + b }\n"), 0o644)
			gitRun(t, ws, "add", "sum.go")
			gitRun(t, ws, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "-m", "sum")
			os.WriteFile(filepath.Join(ws, "a.go"), []byte("package a\n\n// Package a adds.\n"), 0o644)

			r := openseek(t, ws, "", env, append(modelArgs(srv), "workflow", "run", "review")...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", r.code, tc.code, r.stdout, r.stderr)
			}
			var rep struct {
				Verdict string
				Goal    *struct {
					Text, Of, Baseline, Verdict string
				}
			}
			if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.Goal == nil {
				t.Fatalf("the report has no goal audit: %v: %s", err, r.stdout)
			}
			if rep.Goal.Text != "add Sum and Sub to package a" || rep.Goal.Of != "worked" || rep.Goal.Baseline != base {
				t.Errorf("goal audit %+v, want the goal of session worked since %s", rep.Goal, base)
			}
			if tc.code == 1 && !strings.Contains(r.stderr, "the goal of session worked is not met (1 blocker(s)): sum.go:1 Sub is missing") {
				t.Errorf("stderr %q does not say the goal is not met", r.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests, want the review's and the audit's", len(reqs))
			}
			audit := string(reqs[1].Messages[len(reqs[1].Messages)-1])
			for _, want := range []string{"add Sum and Sub to package a", base, "return a + b", "Package a adds"} {
				if !strings.Contains(audit, want) {
					t.Errorf("the audit's task lacks %q (the goal, its baseline, the committed and the uncommitted work)", want)
				}
			}
		})
	}
}
