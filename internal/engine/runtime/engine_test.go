package runtime

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/config"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/internal/telemetry"
	"github.com/openseek/openseek/internal/trust"
	"github.com/openseek/openseek/protocol"
)

func TestMain(m *testing.M) {
	sandbox.Main() // the tests run shell commands inside the sandbox
	os.Exit(m.Run())
}

// recorder collects emitted events.
type recorder struct {
	mu  sync.Mutex
	evs []protocol.Event
}

func (r *recorder) emit(e protocol.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, e)
}

func (r *recorder) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var n []string
	for _, e := range r.evs {
		n = append(n, e.EventName())
	}
	return n
}

func (r *recorder) has(name string) bool {
	for _, n := range r.names() {
		if n == name {
			return true
		}
	}
	return false
}

func newEngine(t testing.TB, srv *llmtest.Server, mod func(*testOptions)) (*Engine, *recorder, string) {
	t.Helper()
	ws := t.TempDir()
	rec := &recorder{}
	o := testOptions{
		Dir:    ws,
		Home:   t.TempDir(),
		Model:  "test-model",
		APIURL: srv.URL(),
		Retry:  llm.RetryPolicy{Attempts: 2, Base: time.Millisecond, Max: time.Millisecond},
		Getenv: func(string) string { return "" },
		Emit:   rec.emit,
	}
	if mod != nil {
		mod(&o)
	}
	e, err := openRuntime(t, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, rec, ws
}

// waitFor polls until path exists.
func waitFor(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCancelStopsARunningToolPromptly(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Calls(
		llmtest.Call{ID: "a", Name: "shell", Args: `{"cmd":"touch started; sleep 30","timeout_ms":60000}`},
		llmtest.Call{ID: "b", Name: "shell", Args: `{"cmd":"touch second"}`},
	))
	e, rec, ws := newEngine(t, srv, nil)
	done := make(chan time.Time)
	go func() {
		out, err := e.Prompt(context.Background(), protocol.Text("slow"), nil)
		if err != nil || out.Kind != session.Interrupted {
			t.Errorf("outcome %+v %v, want interrupted", out, err)
		}
		done <- time.Now()
	}()
	waitFor(t, filepath.Join(ws, "started"))
	start := time.Now()
	e.Cancel()
	select {
	case end := <-done:
		if d := end.Sub(start); d > 5*time.Second {
			t.Errorf("cancel took %v", d)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("cancel did not stop the turn")
	}
	if _, err := os.Stat(filepath.Join(ws, "second")); err == nil {
		t.Error("a call after the cancelled one still ran")
	}
	if !rec.has("agent_aborted") {
		t.Errorf("no agent_aborted: %v", rec.names())
	}
	// Both calls have a recorded result and the turn a terminal, so the
	// session resumes cleanly.
	s := e.Session()
	var results int
	for _, ev := range s.Events {
		if _, ok := ev.Item.(*session.ToolResult); ok {
			results++
		}
	}
	if results != 2 {
		t.Errorf("%d tool results recorded, want 2", results)
	}
	if term, ok := s.LastTerminal(); !ok || term.Kind != session.Interrupted {
		t.Errorf("last terminal %+v", term)
	}
	srv.Push(llmtest.Text("after the cancel"))
	if out, err := e.Prompt(context.Background(), protocol.Text("go on"), nil); err != nil || !out.OK() {
		t.Errorf("turn after cancel: %+v %v", out, err)
	}
}

func TestCancelStopsAStalledStream(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Stall{After: 2})
	e, _, _ := newEngine(t, srv, nil)
	go func() {
		// Once the request reached the model the turn is streaming: a
		// cancel before it would find no turn and leave this one stalled.
		for len(srv.Requests()) == 0 {
			runtimeGosched()
		}
		e.Cancel()
	}()
	out, err := e.Prompt(context.Background(), protocol.Text("hang"), nil)
	if err != nil || out.Kind != session.Interrupted {
		t.Errorf("outcome %+v %v", out, err)
	}
}

func TestSteerIsFoldedInAtTheNextStep(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "a", Name: "shell", Args: `{"cmd":"touch started; sleep 0.5"}`}),
		llmtest.Text("done with both"),
	)
	e, rec, ws := newEngine(t, srv, nil)
	go func() {
		waitFor(t, filepath.Join(ws, "started"))
		sid := "s-9"
		if !e.Steer("prompt", protocol.Text("also update the docs"), &sid) {
			t.Error("steer refused during a turn")
		}
	}()
	out, err := e.Prompt(context.Background(), protocol.Text("work"), nil)
	if err != nil || !out.OK() {
		t.Fatalf("%+v %v", out, err)
	}
	if !rec.has("steer_applied") {
		t.Errorf("no steer_applied: %v", rec.names())
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if !strings.Contains(string(last[len(last)-1]), "also update the docs") {
		t.Errorf("the steer is not the last message of the next request: %s", last[len(last)-1])
	}
	if e.Steer("prompt", protocol.Text("late"), nil) {
		t.Error("steer accepted while idle")
	}
}

func TestBackgroundJobNoticeReachesTheModel(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "a", Name: "shell", Args: `{"cmd":"sleep 0.2; echo built","background":true}`}),
		llmtest.Calls(llmtest.Call{ID: "b", Name: "shell", Args: `{"cmd":"sleep 1"}`}),
		llmtest.Text("the build finished"),
	)
	e, rec, _ := newEngine(t, srv, nil)
	out, err := e.Prompt(context.Background(), protocol.Text("build in the background"), nil)
	if err != nil || !out.OK() {
		t.Fatalf("%+v %v", out, err)
	}
	if !rec.has("job_changed") {
		t.Errorf("no job_changed: %v", rec.names())
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if !strings.Contains(string(last[len(last)-1]), "[job bg-1 exited 0]") {
		t.Errorf("the job notice is not in the last request: %s", last[len(last)-1])
	}
}

// A job's output is spooled where docs/sessions.md says:
// sessions/<id>/jobs/<generation>/bg-N.log, beside the session's file.
func TestJobOutputBesideTheSession(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "a", Name: "shell", Args: `{"cmd":"echo spooled","background":true}`}),
		llmtest.Text("started"),
	)
	e, _, ws := newEngine(t, srv, nil)
	if out, err := e.Prompt(context.Background(), protocol.Text("start a job"), nil); err != nil || !out.OK() {
		t.Fatalf("%+v %v", out, err)
	}
	logs, err := filepath.Glob(filepath.Join(ws, ".openseek", "sessions", e.id, "jobs", "g-*", "bg-1.log"))
	if err != nil || len(logs) != 1 {
		all, _ := filepath.Glob(filepath.Join(ws, ".openseek", "sessions", e.id, "jobs", "*", "*"))
		t.Fatalf("the job's output is not at sessions/<id>/jobs/<generation>/bg-1.log: %v (under jobs: %v)", logs, all)
	}
}

func TestGoalToolOnlyWhileAGoalStands(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("one"), llmtest.Text("two"),
		llmtest.Calls(llmtest.Call{ID: "g", Name: "goal", Args: `{"status":"met"}`}),
		llmtest.Text("the goal is met"))
	e, rec, _ := newEngine(t, srv, nil)
	hasGoal := func(r llmtest.Request) bool {
		for _, n := range r.Tools {
			if n == "goal" {
				return true
			}
		}
		return false
	}
	if _, err := e.Prompt(context.Background(), protocol.Text("a"), nil); err != nil {
		t.Fatal(err)
	}
	goal := "ship it"
	if err := e.SetGoal(&goal, false); err != nil {
		t.Fatal(err)
	}
	blank := " "
	if err := e.SetGoal(&blank, false); err != ErrBlankGoal {
		t.Errorf("blank goal: %v", err)
	}
	srv.ExpectPrefixBreak() // the tool list changed
	if _, err := e.Prompt(context.Background(), protocol.Text("b"), nil); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if hasGoal(reqs[0]) || !hasGoal(reqs[1]) {
		t.Errorf("goal tool offered: before %v, after %v", hasGoal(reqs[0]), hasGoal(reqs[1]))
	}
	// A plain answer while the goal stands gets one goal check; the model
	// then records the goal as met and it is cleared.
	if !rec.has("goal_check") {
		t.Errorf("no goal_check: %v", rec.names())
	}
	if _, ok := e.Session().Goal(); ok {
		t.Errorf("goal still set after goal(met)")
	}
	var cleared bool
	for _, ev := range rec.evs {
		if g, ok := ev.(protocol.GoalUpdated); ok && g.Goal == nil {
			cleared = true
		}
	}
	if !cleared {
		t.Errorf("no goal_updated null event")
	}
}

func TestSecondWriterIsRefused(t *testing.T) {
	srv := llmtest.NewServer(t)
	e, _, ws := newEngine(t, srv, func(o *testOptions) { o.SessionID = "shared" })
	_, err := openRuntime(t, testOptions{Dir: ws, SessionID: "shared", Model: "m", APIURL: srv.URL(), Getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), "shared") {
		t.Fatalf("second writer: %v", err)
	}
	_ = e
}

func TestGoalAutoContinuesUntilMetAndStopsAtTheBudget(t *testing.T) {
	srv := llmtest.NewServer(t,
		// Turn 1: a plain answer, the goal check, then "continuing".
		llmtest.Text("started"),
		llmtest.Calls(llmtest.Call{ID: "c1", Name: "goal", Args: `{"status":"continuing","remaining":"half left"}`}),
		llmtest.Text("half done"),
		// Turn 2 (auto): met.
		llmtest.Calls(llmtest.Call{ID: "c2", Name: "goal", Args: `{"status":"met"}`}),
		llmtest.Text("all done"),
	)
	e, rec, _ := newEngine(t, srv, nil)
	goal := "finish the work"
	if err := e.SetGoal(&goal, true); err != nil {
		t.Fatal(err)
	}
	srv.ExpectPrefixBreak()
	out, err := e.Prompt(context.Background(), protocol.Text("go"), nil)
	if err != nil || !out.OK() || out.Answer != "all done" {
		t.Fatalf("%+v %v", out, err)
	}
	var cont []int
	for _, ev := range rec.evs {
		if g, ok := ev.(protocol.GoalContinue); ok {
			cont = append(cont, g.Remaining)
		}
	}
	if len(cont) != 1 || cont[0] != DefaultGoalBudget-1 {
		t.Errorf("goal_continue %v", cont)
	}
	reqs := srv.Requests()
	if !strings.Contains(string(reqs[3].Prompt), "Continue working toward the standing goal") {
		t.Errorf("the auto turn did not send the continuation prompt")
	}
	if _, ok := e.Session().Goal(); ok {
		t.Error("goal still standing after met")
	}
}

func TestGoalBlockedStopsAutoContinuation(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "b", Name: "goal", Args: `{"status":"blocked","reason":"needs a key"}`}),
		llmtest.Text("blocked on a key"),
	)
	e, rec, _ := newEngine(t, srv, nil)
	goal := "deploy"
	if err := e.SetGoal(&goal, true); err != nil {
		t.Fatal(err)
	}
	out, err := e.Prompt(context.Background(), protocol.Text("go"), nil)
	if err != nil || !out.OK() {
		t.Fatalf("%+v %v", out, err)
	}
	if !rec.has("goal_blocked") || rec.has("goal_continue") {
		t.Errorf("events %v", rec.names())
	}
	if g, ok := e.Session().Goal(); !ok || !g.Blocked {
		t.Errorf("goal %+v %v, want blocked", g, ok)
	}
}

func runtimeGosched() { time.Sleep(5 * time.Millisecond) }

// The first request — system prompt plus tool schemas — is what every
// request of a session starts with; it is kept lean (the leanest
// published agent sends about 31 KB).
func TestFirstRequestIsLean(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("ok"))
	e, _, _ := newEngine(t, srv, nil)
	if _, err := e.Prompt(context.Background(), protocol.Text("hi"), nil); err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[0]
	t.Logf("first request: %d bytes of prompt (tools + messages), %d bytes of body, %d tools", len(req.Prompt), len(req.Body), len(req.Tools))
	if len(req.Prompt) > 16<<10 {
		t.Errorf("the first request grew to %d bytes; keep the system prompt and tool schemas lean", len(req.Prompt))
	}
}

// Commands run in the sandbox by default; only the user's own config may
// switch it off — a repository's config cannot.
func TestSandboxIsOnAndOnlyTheUserCanTurnItOff(t *testing.T) {
	srv := llmtest.NewServer(t)
	home, ws := t.TempDir(), t.TempDir()
	newE := func() *Engine {
		e, err := openRuntime(t, testOptions{Dir: ws, Home: home, Model: "m", APIURL: srv.URL(), Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	if e := newE(); e.sandboxPolicy == nil || e.sandboxPolicy.Network {
		t.Fatalf("default sandbox %+v", e.sandboxPolicy)
	}
	os.MkdirAll(filepath.Join(ws, ".openseek"), 0o755)
	os.WriteFile(filepath.Join(ws, ".openseek", "config.toml"), []byte("[sandbox]\nenabled = false\n"), 0o644)
	if e := newE(); e.sandboxPolicy == nil {
		t.Fatal("a repository's config switched the sandbox off")
	}
	os.MkdirAll(filepath.Join(home, ".openseek"), 0o755)
	os.WriteFile(filepath.Join(home, ".openseek", "config.toml"), []byte("[sandbox]\nnetwork = true\nwritable_roots = [\"~/.gradle\"]\n"), 0o644)
	if e := newE(); e.sandboxPolicy == nil || !e.sandboxPolicy.Network || !contains(e.sandboxPolicy.WritableRoots, filepath.Join(home, ".gradle")) {
		t.Fatalf("user sandbox settings not applied: %+v", e.sandboxPolicy)
	}
	os.WriteFile(filepath.Join(home, ".openseek", "config.toml"), []byte("[sandbox]\nenabled = false\n"), 0o644)
	if e := newE(); e.sandboxPolicy != nil {
		t.Fatal("the user's enabled = false was not honoured")
	}
	os.WriteFile(filepath.Join(home, ".openseek", "config.toml"), []byte("[sandbox]\nnetwrk = true\n"), 0o644)
	if _, err := openRuntime(t, testOptions{Dir: ws, Home: home, Model: "m", APIURL: srv.URL(), Getenv: func(string) string { return "" }}); err == nil || !strings.Contains(err.Error(), "sandbox.netwrk") {
		t.Errorf("a misspelt sandbox key: %v", err)
	}
}

// A repository's allow rules count only once the workspace is trusted;
// its deny rules always count.
func TestProjectAllowRulesNeedTrust(t *testing.T) {
	srv := llmtest.NewServer(t)
	home, ws := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".openseek"), 0o755)
	cfg := filepath.Join(ws, ".openseek", "config.toml")
	os.WriteFile(cfg, []byte("[[rules]]\npattern = [\"make\"]\ndecision = \"allow\"\n\n[[rules]]\npattern = [\"git\", \"push\"]\ndecision = \"deny\"\n"), 0o644)
	build := func(trusted bool) *Engine {
		e, err := openRuntime(t, testOptions{Dir: ws, Home: home, Model: "m", APIURL: srv.URL(), Approval: "ask", TrustWorkspace: trusted, Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	untrusted := build(false).guard.Policy
	if v := untrusted.CheckCommand("make install"); v.Decision.String() != "ask" {
		t.Errorf("untrusted allow rule applied: %s", v.Decision)
	}
	if v := untrusted.CheckCommand("git push"); v.Decision.String() != "deny" {
		t.Errorf("untrusted deny rule ignored: %s", v.Decision)
	}
	if v := build(true).guard.Policy.CheckCommand("make install"); v.Decision.String() != "allow" {
		t.Errorf("trusted allow rule not applied: %s", v.Decision)
	}
}

// testOptions are a host's options and a session's, flattened, as the
// tests write them.
type testOptions struct {
	Dir, Cwd, Home, SessionRoot, SessionID string
	NoSession                              bool
	Model, APIKey, APIURL, Thinking        string
	MaxSteps                               int
	Window                                 int
	SystemPrompt, SystemPromptAddendum     string
	TrustWorkspace                         bool
	Approval                               string
	NoSandbox, Network, NoVerify           bool
	VerifyTimeout                          time.Duration
	Tools                                  string
	Retry                                  llm.RetryPolicy
	Getenv                                 func(string) string
	Emit                                   func(protocol.Event)
	Telemetry                              *telemetry.Exporter
}

// openRuntime opens a session runtime from o as the host (package
// engine, which this package cannot import) would: the workspace's
// config with the trust filter, its command rules, the model resolved,
// the held keys' notices first on the stream.
func openRuntime(t testing.TB, o testOptions) (*Engine, error) {
	t.Helper()
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	home := cmp.Or(o.Home, getenv("HOME"))
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	emit := o.Emit
	if emit == nil {
		emit = func(protocol.Event) {}
	}
	trusted := config.Trust(trust.Open(home).TrustedData)
	if o.TrustWorkspace {
		trusted = config.TrustAll
	}
	cfg, err := config.LoadTrusting(home, dir, getenv, trusted)
	if err != nil {
		return nil, err
	}
	for _, h := range cfg.Held {
		emit(protocol.BackgroundNotice{Content: h.String()})
	}
	rules, _, err := LoadRules(home, dir, o.TrustWorkspace)
	if err != nil {
		return nil, err
	}
	retry := o.Retry
	if retry.Attempts == 0 {
		retry = llm.DefaultRetry()
	}
	res, err := cfg.Resolve(o.Model, o.APIKey, o.APIURL, retry)
	if err != nil {
		return nil, err
	}
	thinking := o.Thinking
	if _, known := llm.LookupModel(res.Model); known && thinking == "" {
		thinking = "high"
	}
	sessionRoot := cmp.Or(o.SessionRoot, ".openseek")
	root := sessionRoot
	if !filepath.IsAbs(root) {
		root = filepath.Join(dir, root)
	}
	d := &Deps{
		Dir: dir, Cwd: o.Cwd, Home: home, SessionRoot: sessionRoot, Root: root, IDPrefix: "cli",
		Config: cfg, Rules: rules, Telemetry: o.Telemetry, Getenv: getenv,
		Resolve: func(ctx context.Context, spec string) (*config.Resolved, error) {
			return cfg.ResolveContext(ctx, spec, o.APIKey, "", retry)
		},
		ModelChoice: o.Model, APIKey: o.APIKey, APIURL: o.APIURL,
		MaxSteps: o.MaxSteps, Window: o.Window,
		SystemPrompt: o.SystemPrompt, SystemPromptAddendum: o.SystemPromptAddendum,
		TrustWorkspace: o.TrustWorkspace, NoSandbox: o.NoSandbox, Network: o.Network,
		NoVerify: o.NoVerify, VerifyTimeout: o.VerifyTimeout, Tools: o.Tools,
	}
	return New(context.Background(), d, SessionOptions{ID: o.SessionID, NoSession: o.NoSession,
		Model: res, Thinking: thinking, Approval: o.Approval, Emit: emit})
}
