package main

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openseek/openseek/internal/e2etest"
	"github.com/openseek/openseek/internal/fleet"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/render"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/internal/server/web/browsertest"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// The faces suite: every way people run OpenSeek, one row each, doing the
// same task against the same scripted model with the default flags (the
// sandbox on), and the same checks for every row — the file the shell
// wrote, the session log (prompt, tool call, answer, a finished turn),
// the answer the face reported, and the cost it showed (an unpriced
// scripted model: "cost unknown", as the log's cost rule says).
// TestFacesAsOrdinaryUser runs it again as the ordinary test user.
const (
	facePrompt  = "create hello.txt with the shell tool, then answer done"
	faceAnswer  = "done: hello.txt holds hello"
	faceCommand = "echo hello > hello.txt"
)

// faceScript is the scripted model's side of the task.
func faceScript() []llmtest.Turn {
	return []llmtest.Turn{
		llmtest.Calls(llmtest.Call{ID: "hello", Name: "shell", Args: `{"cmd":` + quoteJSON(faceCommand) + `}`}),
		llmtest.Text(faceAnswer),
	}
}

// faceEnv is what a row's driver gets: a git repository with one commit
// to work in, a home directory, and the scripted model.
type faceEnv struct {
	ws, home string
	srv      *llmtest.Server
}

func (e *faceEnv) env() []string { return []string{"HOME=" + e.home} }

// faceSeen is what a face showed.
type faceSeen struct {
	answer string   // the final answer, as the face reported it
	cost   string   // the cost it showed ("cost unknown", "cost $…"); "" where it shows none
	dir    string   // where the agent worked (default the env's ws)
	logs   []string // the session logs (default every log under dir/.openseek)
}

type faceRow struct {
	name      string
	showsCost bool // the face shows a cost: it must be the log's
	// readOnly: the face never writes (review): hello.txt must not appear.
	readOnly bool
	script   func() []llmtest.Turn // default faceScript
	prompt   string                // what the log's user item holds (default facePrompt)
	answer   string                // the model's final text (default faceAnswer)
	drive    func(t *testing.T, e *faceEnv) faceSeen
}

// reviewReport is the review row's final model text, a report with no
// findings, which review prints as it is.
const reviewReport = `{"findings":[],"verdict":"approve"}`

// faceRows are the faces. acp, mcp serve and review show no cost (their
// protocols and report have no place for it); the others must show the
// log's.
func faceRows() []faceRow {
	return []faceRow{
		{name: "run", showsCost: true, drive: driveRun},
		{name: "serve", showsCost: true, drive: driveServe},
		{name: "serve --http with the web page", showsCost: true, drive: driveWeb},
		{name: "tui in tmux", showsCost: true, drive: driveTUI},
		{name: "acp", drive: driveACP},
		{name: "mcp serve", drive: driveMCPServe},
		{name: "tasks and worker", showsCost: true, drive: driveFleet},
		{name: "run --runs", showsCost: true, drive: driveRuns},
		{name: "subrun", showsCost: true, drive: driveSubrun},
		{name: "review", readOnly: true, prompt: "+    return eval(x)", answer: reviewReport,
			script: func() []llmtest.Turn {
				return []llmtest.Turn{faceScript()[0], llmtest.Text(reviewReport)}
			}, drive: driveReview},
		// workflows: their row goes here once `openseek workflow` exists.
	}
}

func TestFaces(t *testing.T) {
	t.Parallel()
	for _, row := range faceRows() {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			script := faceScript
			if row.script != nil {
				script = row.script
			}
			e := &faceEnv{ws: fleetRepo(t, map[string]string{"README.md": "# faces\n"}), home: t.TempDir(), srv: llmtest.NewServer(t, script()...)}
			seen := row.drive(t, e)
			checkFace(t, row, e, seen)
		})
	}
}

// TestFacesAsOrdinaryUser runs the faces suite again as the ordinary test
// user. The ACP client library installed in root's cache is copied where
// that user can read it.
func TestFacesAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	var env []string
	if os.Getenv("OPENSEEK_TEST_ORDINARY_USER") == "" && os.Geteuid() == 0 {
		if _, err := exec.LookPath("node"); err == nil {
			entry := acpSDK(t)
			// entry is node_modules/@scope/pkg/dist/v1/stable/acp.js.
			pkgs := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(entry))))))
			dst, err := os.MkdirTemp("", "openseek-faces-acp-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dst) })
			os.Chmod(dst, 0o755)
			if out, err := exec.Command("cp", "-a", pkgs, dst).CombinedOutput(); err != nil {
				t.Fatalf("copy the ACP SDK: %v %s", err, out)
			}
			rel, _ := filepath.Rel(filepath.Dir(pkgs), entry)
			env = append(env, "OPENSEEK_TEST_ACP_SDK="+filepath.Join(dst, rel))
		}
	}
	sandboxtest.AsOrdinaryUser(t, "^TestFaces$", env...)
}

// checkFace is every row's assertions.
func checkFace(t *testing.T, row faceRow, e *faceEnv, seen faceSeen) {
	t.Helper()
	prompt, answer := row.prompt, row.answer
	if prompt == "" {
		prompt = facePrompt
	}
	if answer == "" {
		answer = faceAnswer
	}
	if seen.dir == "" {
		seen.dir = e.ws
	}
	data, err := os.ReadFile(filepath.Join(seen.dir, "hello.txt"))
	switch {
	case row.readOnly && !errors.Is(err, os.ErrNotExist):
		t.Errorf("a read-only face wrote hello.txt (%q, %v)", data, err)
	case !row.readOnly && string(data) != "hello\n":
		t.Errorf("hello.txt in %s = %q (%v), want \"hello\\n\"", seen.dir, data, err)
	}
	if seen.answer != answer {
		t.Errorf("the face reported the answer %q, want %q", seen.answer, answer)
	}
	if seen.logs == nil {
		seen.logs, _ = filepath.Glob(filepath.Join(seen.dir, ".openseek", "sessions", "*", "openseek_session-*.jsonl"))
	}
	if len(seen.logs) == 0 {
		t.Fatalf("no session log under %s", seen.dir)
	}
	for _, log := range seen.logs {
		cost := checkFaceLog(t, log, prompt, answer, row.readOnly)
		if cost != "cost unknown" {
			t.Errorf("%s: the log's cost is %q with an unpriced model", log, cost)
		}
		if row.showsCost && seen.cost != cost {
			t.Errorf("the face showed %q, the session log says %q", seen.cost, cost)
		}
	}
}

// checkFaceLog reads one session log: the prompt, the shell call that
// wrote hello.txt and its result, the final answer and a finished turn.
// It returns the log's cost as every face words it.
func checkFaceLog(t *testing.T, path, prompt, answer string, readOnly bool) string {
	t.Helper()
	dir := filepath.Dir(path)
	s, err := session.NewStore(filepath.Dir(filepath.Dir(dir))).Load(filepath.Base(dir))
	if err != nil {
		t.Fatalf("load the session log %s: %v", path, err)
	}
	var user, final bool
	var call, result string
	for _, ev := range s.Events {
		switch it := ev.Item.(type) {
		case *session.User:
			user = user || strings.Contains(it.Content.Text(), prompt)
		case *session.Assistant:
			for _, tc := range it.ToolCalls {
				if tc.Name == "shell" && strings.Contains(tc.Arguments, "hello.txt") {
					call = tc.ID
				}
			}
			final = final || it.Content == answer
		case *session.ToolResult:
			if call != "" && it.ToolCallID == call {
				result = it.Content.Text()
				if !readOnly && (it.IsError || !strings.Contains(result, "<system>exit=0</system>")) {
					t.Errorf("%s: the shell call failed: %s", path, result)
				}
			}
		}
	}
	if !user || call == "" || result == "" || !final {
		t.Errorf("%s: prompt %v, shell call %q, its result %q, answer %v", path, user, call, result, final)
	}
	if last, ok := s.LastTerminal(); !ok || last.Kind != session.Finished {
		t.Errorf("%s: the turn did not finish: %+v", path, last)
	}
	return render.CostText(s.Cost())
}

// costShown finds the cost a face printed — "cost unknown", "cost $…",
// or a "cost" row of a table — and words it as render.CostText does.
var costShown = regexp.MustCompile(`cost:?\s+(unknown|\$[0-9.]+)`)

func costIn(text string) string {
	if m := costShown.FindStringSubmatch(text); m != nil {
		return "cost " + m[1]
	}
	return ""
}

// fromEvents is what a face that prints the event stream reported.
func fromEvents(t *testing.T, evs []protocol.Event) faceSeen {
	t.Helper()
	var seen faceSeen
	if f := find[protocol.AgentFinished](evs); len(f) == 1 {
		seen.answer = f[0].Answer
	}
	if s := find[protocol.TurnSummary](evs); len(s) == 1 {
		seen.cost = render.CostText(0, false)
		if s[0].CostUSD != nil {
			seen.cost = render.CostText(*s[0].CostUSD, true)
		}
	} else {
		t.Errorf("%d turn summaries: %v", len(s), names(evs))
	}
	return seen
}

func driveRun(t *testing.T, e *faceEnv) faceSeen {
	r := openseek(t, e.ws, "", e.env(), append(modelArgs(e.srv), "run", facePrompt)...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	return fromEvents(t, r.events)
}

// driveServe speaks the wire protocol on stdin as a client does: the
// prompt, an answer to each approval asked, and stdin closed once the
// turn is summed up.
func driveServe(t *testing.T, e *faceEnv) faceSeen {
	cmd := exec.Command(os.Args[0], append(modelArgs(e.srv), "serve")...)
	cmd.Dir = e.ws
	cmd.Env = append([]string{"OPENSEEK_TEST_MAIN=1", "HOME=" + e.home, "PATH=" + os.Getenv("PATH"), "OPENSEEK_RETRY_BACKOFF_MS=1"}, startPathEnv()...)
	in, _ := cmd.StdinPipe()
	outp, _ := cmd.StdoutPipe()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(90*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	line, _ := json.Marshal(map[string]string{"command": "prompt", "content": facePrompt})
	in.Write(append(line, '\n'))
	var out bytes.Buffer
	sc := bufio.NewScanner(outp)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		out.Write(append(sc.Bytes(), '\n'))
		ev, _ := protocol.ParseEvent(sc.Bytes())
		switch ev := ev.(type) {
		case protocol.ApprovalRequested:
			line, _ := json.Marshal(map[string]any{"command": "approval", "id": ev.ID, "allow": true})
			in.Write(append(line, '\n'))
		case protocol.TurnSummary:
			in.Close()
		}
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve: %v\n%s", err, errb.String())
	}
	return fromEvents(t, parseEvents(t, out.Bytes()))
}

// driveWeb uses the page `serve --http` prints, in Chromium: a new
// session, the prompt typed, any approval approved.
func driveWeb(t *testing.T, e *faceEnv) faceSeen {
	var b browsertest.Browser
	defer b.Close()
	ctx := b.Tab(t)
	s := startHTTP(t, e.ws, e.home, append(modelArgs(e.srv), "serve", "--http", "127.0.0.1:0")...)
	browsertest.Do(t, ctx, "open the printed URL", chromedp.Navigate(s.url.String()), chromedp.WaitVisible("#new-session"))
	browsertest.Do(t, ctx, "start a session", chromedp.Click("#new-session"), chromedp.WaitVisible("#prompt"),
		chromedp.Poll[chromedp.Void](`document.querySelector("#chat").dataset.live === "true"`))
	browsertest.Do(t, ctx, "prompt", chromedp.SendKeys("#prompt", facePrompt), browsertest.Enter())
	for {
		state, err := chromedp.Run(ctx, chromedp.Poll[string](`document.querySelector(".msg.turn-summary") ? "done" :
			document.querySelector(".card.approval:not(.resolved) button.approve") ? "ask" : null`))
		if err != nil {
			t.Fatalf("the page never ended the turn: %v", err)
		}
		if state == "done" {
			break
		}
		// One click per approval: the card turns resolved when the server
		// has taken the answer.
		browsertest.Do(t, ctx, "approve", chromedp.Click(".card.approval:not(.resolved) button.approve"),
			chromedp.Poll[chromedp.Void](`!document.querySelector(".card.approval:not(.resolved)")`))
	}
	var seen faceSeen
	if chat := browsertest.Text(t, ctx, "#chat"); strings.Contains(chat, faceAnswer) {
		seen.answer = faceAnswer
	} else {
		t.Errorf("the page does not show the answer:\n%s", chat)
	}
	seen.cost = costIn(browsertest.Text(t, ctx, ".msg.turn-summary"))
	s.stop(t, syscall.SIGTERM)
	return seen
}

// driveTUI types the prompt into the terminal UI in tmux, answers y to
// any approval, and quits with Ctrl-C twice.
func driveTUI(t *testing.T, e *faceEnv) faceSeen {
	e2etest.Need(t, "apt-get install -y tmux", "tmux")
	p := startTmux(t, e.ws, e.env(), append(modelArgs(e.srv), "tui")...)
	p.waitFor("/help for commands")
	p.typeText(facePrompt)
	p.keys("Enter")
	var screen string
	waitFor(t, "the turn to finish on the screen", func() bool {
		screen = p.screen()
		if strings.Contains(screen, "wants to run") {
			// One y per dialog: a second would land in the input box.
			p.keys("y")
			waitFor(t, "the approval dialog to close", func() bool { return !strings.Contains(p.screen(), "wants to run") })
		}
		return strings.Contains(screen, "— finished")
	})
	var seen faceSeen
	if strings.Contains(screen, faceAnswer) {
		seen.answer = faceAnswer
	} else {
		t.Errorf("the screen does not show the answer:\n%s", screen)
	}
	seen.cost = costIn(screen)
	p.keys("C-c")
	p.waitFor("Press Ctrl-C again to quit")
	p.keys("C-c")
	if code := p.exitCode(e.ws); code != "0" {
		t.Errorf("the UI exited with %s", code)
	}
	return seen
}

//go:embed testdata/faces_acp.mjs
var facesACPClient string

// driveACP is an editor: the real ACP client library from npm opens a
// session in the workspace, prompts, and allows what it is asked.
func driveACP(t *testing.T, e *faceEnv) faceSeen {
	e2etest.Need(t, "apt-get install -y nodejs npm", "node")
	entry := os.Getenv("OPENSEEK_TEST_ACP_SDK")
	if entry == "" {
		entry = acpSDK(t)
	}
	script := filepath.Join(t.TempDir(), "faces_acp.mjs")
	if err := os.WriteFile(script, []byte(facesACPClient), 0o644); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(append(modelArgs(e.srv), "acp"))
	cmd := exec.Command("node", script)
	cmd.Dir = e.ws
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + e.home, "OPENSEEK_TEST_MAIN=1", "OPENSEEK_RETRY_BACKOFF_MS=1",
		"ACP_SDK=" + entry, "OPENSEEK_BIN=" + os.Args[0], "OPENSEEK_ARGS=" + string(args), "WORKSPACE=" + e.ws, "PROMPT=" + facePrompt}, startPathEnv()...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	timer := time.AfterFunc(90*time.Second, func() { cmd.Process.Kill() })
	err := cmd.Run()
	timer.Stop()
	var r struct {
		Answer, StopReason, Error string
		ExitCode                  *int
	}
	if err != nil || json.Unmarshal(stdout.Bytes(), &r) != nil || r.Error != "" {
		t.Fatalf("the ACP client: %v %s\nstdout %s\nstderr %s", err, r.Error, stdout.String(), stderr.String())
	}
	if r.StopReason != "end_turn" || r.ExitCode == nil || *r.ExitCode != 0 {
		t.Errorf("stop reason %q, exit %v; stderr %s", r.StopReason, r.ExitCode, stderr.String())
	}
	return faceSeen{answer: r.Answer}
}

// driveMCPServe is another agent: the Go MCP SDK's client starts `mcp
// serve` over stdio and calls its run tool.
func driveMCPServe(t *testing.T, e *faceEnv) faceSeen {
	cmd := exec.Command(os.Args[0], append(modelArgs(e.srv), "--dir", e.ws, "mcp", "serve")...)
	cmd.Env = append([]string{"OPENSEEK_TEST_MAIN=1", "HOME=" + e.home, "PATH=" + os.Getenv("PATH"), "GORACE=atexit_sleep_ms=0"}, startPathEnv()...)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "faces", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "run", Arguments: map[string]any{"task": facePrompt}})
	if err != nil || res.IsError {
		t.Fatalf("run: %v %+v", err, res)
	}
	var out struct {
		Answer    string `json:"answer"`
		SessionID string `json:"session_id"`
	}
	data, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(data, &out)
	return faceSeen{answer: out.Answer}
}

// driveFleet queues the task with `tasks add` and lets a `worker` process
// (default flags: sandbox and verification on) run it; `tasks show`
// states the cost.
func driveFleet(t *testing.T, e *faceEnv) faceSeen {
	emb, err := fleet.StartEmbedded(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(emb.Close)
	r := openseek(t, e.ws, "", e.env(), "tasks", "add", "--nats", emb.URL, facePrompt)
	if r.code != 0 {
		t.Fatalf("tasks add: %d %s", r.code, r.stderr)
	}
	id := strings.TrimSpace(r.stdout)
	w := exec.Command(os.Args[0], append(modelArgs(e.srv), "worker", "--nats", emb.URL, "--name", "faces")...)
	w.Env = append([]string{"OPENSEEK_TEST_MAIN=1", "HOME=" + e.home, "PATH=" + os.Getenv("PATH"), "OPENSEEK_RETRY_BACKOFF_MS=1"}, startPathEnv()...)
	var werr bytes.Buffer
	w.Stderr = &werr
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		w.Process.Signal(os.Interrupt)
		w.Wait()
		if t.Failed() {
			t.Logf("worker stderr:\n%s", werr.String())
		}
	}()
	fc, err := fleet.Connect(context.Background(), fleet.Config{URL: emb.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer fc.Close()
	var task *fleet.Task
	waitFor(t, "the task to end", func() bool {
		task, _ = fc.Get(context.Background(), id)
		return task != nil && task.State.Terminal()
	})
	if task.State != fleet.Completed {
		t.Fatalf("task %s: %s %s", id, task.State, task.Error)
	}
	show := openseek(t, e.ws, "", e.env(), "tasks", "show", "--nats", emb.URL, id)
	return faceSeen{answer: task.Result, cost: costIn(show.stdout), dir: task.Workspace}
}

// driveRuns is best-of-two on one machine, the chosen run applied to the
// working tree.
func driveRuns(t *testing.T, e *faceEnv) faceSeen {
	e.srv.MultiConversation()
	e.srv.Push(faceScript()...)
	// One run at a time: the scripted turns are served in arrival order.
	r := openseek(t, e.ws, "", e.env(), append(modelArgs(e.srv), "run", "--runs", "2", "--concurrency", "1", "--apply", "--format", "json", facePrompt)...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stderr, r.stdout)
	}
	rep := bestOfReport(t, r)
	if rep.Chosen < 1 || !rep.Applied || len(rep.Runs) != 2 {
		t.Fatalf("report %+v", rep)
	}
	seen := faceSeen{answer: rep.Runs[rep.Chosen-1].Result, cost: render.CostText(rep.CostUSD, !rep.CostUnknown)}
	for _, a := range rep.Runs {
		seen.logs = append(seen.logs, a.SessionLog)
	}
	return seen
}

// driveSubrun is a parent agent's request on stdin, held open until the
// report line.
func driveSubrun(t *testing.T, e *faceEnv) faceSeen {
	req, _ := json.Marshal(map[string]string{"task": facePrompt})
	r := held(t, e.ws, string(req)+"\n", `{"subrun_report"`, e.env(), append(modelArgs(e.srv), "subrun", "general")...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stderr, r.stdout)
	}
	seen := fromEvents(t, r.events)
	var rep struct {
		Report string `json:"subrun_report"`
	}
	if err := json.Unmarshal([]byte(lastLine(r.stdout)), &rep); err != nil || rep.Report != seen.answer {
		t.Errorf("the report line %q does not carry the answer %q (%v)", lastLine(r.stdout), seen.answer, err)
	}
	return seen
}

// driveReview reviews a branch's change: read-only, so the scripted
// shell write must not land.
func driveReview(t *testing.T, e *faceEnv) faceSeen {
	dir := gitRepo(t)
	r := openseek(t, dir, "", e.env(), append(modelArgs(e.srv), "review")...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	return faceSeen{answer: strings.TrimSpace(r.stdout), dir: dir}
}
