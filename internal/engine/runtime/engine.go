// Package runtime is one session's runtime, opened by the host (package
// engine) from the dependencies it built once for the workspace (Deps)
// and the session's own options: the model's client, the tools and their
// safety (policy, sandbox, approvals, secrets), the session log, the
// background jobs, snapshots, hooks, sub-agents and the turn loop. Session
// runs its prompts one at a time on a goroutine of its own and publishes
// its events on the session's hub; its API is the protocol. Nothing here
// loads configuration or decides for the workspace: that is the host's.
package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openseek/openseek/internal/agent"
	"github.com/openseek/openseek/internal/agents"
	"github.com/openseek/openseek/internal/config"
	"github.com/openseek/openseek/internal/hooks"
	"github.com/openseek/openseek/internal/jobs"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/mcp"
	"github.com/openseek/openseek/internal/netproxy"
	"github.com/openseek/openseek/internal/policy"
	"github.com/openseek/openseek/internal/prompt"
	"github.com/openseek/openseek/internal/sandbox"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/internal/skills"
	"github.com/openseek/openseek/internal/telemetry"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

// Deps are what a host built once for its workspace, shared by every
// session it opens: the loaded configuration, the command rules (with the
// trust filter), the MCP servers, telemetry, and the run's settings. A
// session never changes them.
type Deps struct {
	Dir  string // the workspace root: absolute, symlinks resolved
	Cwd  string // where the user started, inside Dir; "" = Dir
	Home string // the user's home: ~/.openseek lives there
	// SessionRoot is the session root as configured (session_started
	// names it); Root is its absolute path.
	SessionRoot, Root string
	IDPrefix          string // generated ids: <prefix>-YYYYMMDD-HHMMSS-mmm

	Config *config.Config
	Rules  []policy.Rule
	// MCP gives the host's MCP servers, started the first time a
	// session asks (nil, or a nil manager: none); sessions use their
	// tools and never close them.
	MCP       func(ctx context.Context) *mcp.Manager
	Telemetry *telemetry.Exporter // nil = off
	// Resolve resolves another model than the session's (a custom
	// sub-agent's), with the host's key and retries.
	Resolve func(ctx context.Context, spec string) (*config.Resolved, error)
	Getenv  func(string) string

	// The run's settings, as engine.Options describes them. ModelChoice is
	// the model the user named (engine.Options.Model): process sub-agents are
	// started with it.
	ModelChoice, APIKey, APIURL        string
	MaxSteps                           int
	MaxCost                            float64
	Window                             int
	SystemPrompt, SystemPromptAddendum string
	GlobalSkillsDir                    string
	TrustWorkspace                     bool
	NoSandbox, Network, NoVerify       bool
	VerifyTimeout                      time.Duration
	Tools                              string
}

// SessionOptions are one session's own choices, beside the host's Deps.
type SessionOptions struct {
	ID        string // create or resume this id; "" = a new generated id
	NoSession bool   // record nothing on disk
	Holder    string // who writes the session, shown to a second writer
	Model     *config.Resolved
	Thinking  string // the reasoning knob: no, high, max; "" sends none
	Approval  string // the permission mode (see package policy)
	// Editor reads files through the user's editor (an ACP client's
	// buffers); nil reads the disk. See tool.EditorRead.
	Editor tool.EditorRead
	Emit   func(protocol.Event)
}

// settings are what an engine was opened with: the host's shared part
// and the session's own.
type settings struct {
	*Deps
	SessionOptions
}

// Engine is one session's runtime.
type Engine struct {
	opts settings
	keys []string // the credentials the model's client sends
	// sandboxPolicy is the sandbox commands run in (nil: none), and
	// sandboxReady delivers its build's outcome (see startSandbox), which
	// New waits for; or, where a sandbox was built before, the first
	// turn's gate does, and sandboxBuild starts the build once the first
	// request is on its way.
	sandboxPolicy  *sandbox.Policy
	netProxy       *netproxy.Proxy // the allowlist's proxy, nil without one
	sandboxReady   <-chan error
	sandboxBuild   func()
	sandboxStarted atomic.Bool
	sandboxOnce    sync.Once
	sandboxErr     error
	log            agent.Log
	writer         *session.Writer // nil with NoSession
	agent          *agent.Agent
	jobs           *jobs.Manager
	env            *tool.Env
	tools          *tool.Registry
	id             string
	root           string
	model          string
	provider       llm.Provider
	window         int
	searchBudget   int // tools.search_budget, for sub-agents too
	price          llm.Price
	spec           string // the model as the session log names it
	sys            string
	memory         string // project memory (AGENTS.md), read once, shared with sub-agents
	hooks          *hookAdapter
	base           *tool.Registry // the tools without the agent tool
	broker         *policy.Broker // pending approvals (--approval auto or ask)
	subagents      []agents.Agent
	children       childCounter
	cleanup        []func()

	guard    *policy.Guard    // the tools' permission check (env.Guard)
	withheld *sandbox.Secrets // the credentials commands never get (env.Secrets)

	starting turnStart // a turn's snapshot in progress (Cancel reaches it)
	// beforeCheck takes the running turn's snapshot, if it has not,
	// before its check runs a command (see snapshotTurn).
	beforeCheck atomic.Pointer[func()]
	mu          sync.Mutex // guards the goal's auto-continuation state
	autoGoal    bool
	goalTurns   int
}

// New opens one session's runtime from the host's deps and the
// session's options: tools, session log (created, resumed or in memory),
// jobs and the turn loop. It announces the session with session_started.
// ctx bounds the start-up steps that may block (SessionStart hooks).
func New(ctx context.Context, d *Deps, so SessionOptions) (*Engine, error) {
	if so.Emit == nil {
		so.Emit = func(protocol.Event) {}
	}
	if so.Model == nil {
		return nil, errors.New("a session needs a resolved model")
	}
	res := so.Model
	provider, model := res.Client, res.Model
	e := &Engine{opts: settings{Deps: d, SessionOptions: so}, keys: res.Keys, root: d.Root}
	o := e.opts
	dir := d.Dir
	for _, skipped := range res.Skipped {
		o.Emit(protocol.BackgroundNotice{Content: "[models] skipped " + skipped})
	}
	if err := e.startSandbox(); err != nil {
		return nil, err
	}
	ext := e.loadExtensions()
	cwd, relCwd := dir, ""
	if o.Cwd != "" {
		if rel, err := filepath.Rel(dir, o.Cwd); err == nil && filepath.IsLocal(rel) {
			cwd, relCwd = filepath.Join(dir, rel), rel
		}
	}
	memory, _ := prompt.Memory(e.opts.Home, dir, cwd, prompt.DefaultMemoryBytes)
	e.memory = memory
	sys := prompt.Build(prompt.Options{
		Workspace: dir, Cwd: relCwd, OS: goruntime.GOOS, Shell: "bash",
		Replace: o.SystemPrompt, Addendum: o.SystemPromptAddendum,
		Memory: memory, Skills: skills.Section(ext.skills),
	})
	if err := e.openLog(sys); err != nil {
		return nil, err
	}
	e.sys = sys
	e.bindHooks()

	spool, err := e.jobDir()
	if err != nil {
		e.Close()
		return nil, err
	}
	e.env = &tool.Env{Workspace: dir, Files: &tool.FileState{}, Editor: o.Editor}
	if relCwd != "" {
		e.env.Cwd = cwd
	}
	if err := e.setupSafety(); err != nil {
		e.Close()
		return nil, err
	}
	e.jobs = jobs.NewManager(jobs.Options{
		Dir:        spool,
		Generation: "g-" + strconv.FormatInt(time.Now().UnixMilli(), 10),
		OnChange: func(kind string, rec protocol.JobRecord) {
			o.Emit(protocol.JobChanged{Kind: kind, Job: rec})
		},
		OnNotice: e.notice,
	})
	e.env.Jobs = e.jobs
	e.startLSP()
	verifier, err := e.verifier()
	if err != nil {
		e.Close()
		return nil, err
	}

	// With telemetry on, every model request and tool call is a span.
	provider = e.tracedProvider(provider, model, res.Price)
	reg := tool.NewRegistry()
	builtin, err := e.builtinTools(model, o.Tools)
	if err != nil {
		e.Close()
		return nil, err
	}
	sets := [][]tool.Tool{builtin}
	if len(ext.skills) > 0 {
		sets = append(sets, []tool.Tool{skills.Tool(ext.skills)})
	}
	if o.MCP != nil {
		if m := o.MCP(ctx); m != nil {
			sets = append(sets, m.Tools())
		}
	}
	for _, set := range sets {
		for _, t := range set {
			if err := reg.Add(e.traced(t)); err != nil {
				e.Close()
				return nil, err
			}
		}
	}
	names := make([]string, 0, reg.Len()+1)
	for _, t := range reg.Tools() {
		names = append(names, t.Name)
	}
	defs, errs := agents.Load(dir, filepath.Join(e.opts.Home, ".openseek", "agents"), append(names, agentToolName))
	e.reportLoadErrors("agents", errs)
	e.subagents = defs
	e.base = reg
	reg = reg.Without()
	if depth := agentDepth(o.Getenv); depth <= MaxAgentDepth {
		if err := reg.Add(e.traced(e.agentTool(depth))); err != nil {
			e.Close()
			return nil, err
		}
	}
	e.tools = reg
	window := o.Window
	if window == 0 {
		window = res.Window
	}
	e.price, e.spec = res.Price, res.Spec
	e.model = model
	e.provider = provider
	if e.sandboxBuild != nil {
		// The sandbox is built once the first request is on its way
		// (startSandbox): the model's time hides the build.
		provider = &afterFirstRequest{Provider: provider, then: e.startSandboxBuild}
	}
	budget, err := e.budget(o.MaxCost, res)
	if err != nil {
		e.Close()
		return nil, err
	}
	searchBudget, err := e.toolSearchBudget()
	if err != nil {
		e.Close()
		return nil, err
	}
	e.agent = agent.New(agent.Config{
		ToolSearchBudget: searchBudget,
		Deferrable:       isMCPTool,
		Window:           window,
		Provider:         provider,
		Model:            model,
		Spec:             res.Spec,
		Price:            res.Price,
		Thinking:         o.Thinking,
		Tools:            reg,
		Env:              e.env,
		MaxSteps:         o.MaxSteps,
		Log:              e.log,
		Emit:             o.Emit,
		Hooks:            e.agentHooks(),
		Verify:           verifier,
		Budget:           budget,
	})
	e.window, e.searchBudget = window, searchBudget
	if e.sandboxBuild == nil {
		if err := e.waitSandbox(); err != nil {
			e.Close()
			return nil, err
		}
	}
	if !o.NoSession {
		ws := dir
		o.Emit(protocol.SessionStarted{Session: e.id, SessionRoot: o.SessionRoot, WorkspaceRoot: &ws})
	}
	if e.hooks != nil {
		trigger := "startup"
		if e.log.Session().LastSequence() > 0 {
			trigger = "resume"
		}
		if extra := e.hooks.session(ctx, hooks.SessionStart, trigger); extra != "" {
			e.agent.Notify(extra)
		}
	}
	return e, nil
}

func (e *Engine) openLog(sys string) error {
	o := e.opts
	if o.NoSession {
		e.id = "ephemeral"
		e.log = agent.NewMemoryLog(e.id, sys)
		return nil
	}
	store := session.NewStore(e.root)
	id := o.ID
	if id == "" {
		id = session.NewID(o.IDPrefix, time.Now())
	}
	if err := session.ValidateID(id); err != nil {
		return err
	}
	holder := o.Holder
	if holder == "" {
		holder = "openseek"
	}
	w, err := store.OpenWriter(id, sys, holder)
	if err != nil {
		return err
	}
	e.id, e.writer, e.log = id, w, w
	e.cleanup = append(e.cleanup, func() { w.Close() })
	return nil
}

// jobDir is where background job output is spooled: beside the session
// (the jobs manager adds jobs/<generation>), or in a temporary directory
// for ephemeral runs.
func (e *Engine) jobDir() (string, error) {
	if e.writer != nil {
		return session.NewStore(e.root).Dir(e.id), nil
	}
	d, err := os.MkdirTemp("", "openseek-jobs-")
	if err != nil {
		return "", err
	}
	e.cleanup = append(e.cleanup, func() { os.RemoveAll(d) })
	return d, nil
}

// notice routes a background-job notice into the conversation: folded
// into the running turn at its next step, or into the next turn.
func (e *Engine) notice(text string) {
	if !e.agent.Notify(text) {
		e.opts.Emit(protocol.BackgroundNotice{Content: text})
	}
}

// SessionID is the id of the engine's session ("ephemeral" with NoSession).
func (e *Engine) SessionID() string { return e.id }

// Workspace is the absolute workspace root.
func (e *Engine) Workspace() string { return e.opts.Dir }

// Session returns a snapshot of the session log.
func (e *Engine) Session() *session.Session { return e.log.Session() }

// Prompt runs one turn for content and returns how it ended.
func (e *Engine) Prompt(ctx context.Context, content protocol.Content, submissionID *string) (agent.Outcome, error) {
	// The goal tool is offered only while a goal stands.
	tools := e.tools
	if _, ok := e.log.Session().Goal(); !ok {
		tools = tools.Without("goal")
	}
	e.agent.SetTools(tools)
	tctx, finish := e.snapshotTurn(ctx)
	out, err := e.agent.Turn(tctx, content, submissionID)
	stopped := tctx.Err() != nil // cancelled, not just finished
	finish()
	for err == nil && ctx.Err() == nil && !stopped && e.sandboxErr == nil && e.continueGoal(out) {
		e.agent.SetTools(e.tools)
		tctx, finish = e.snapshotTurn(ctx)
		out, err = e.agent.Turn(tctx, protocol.Text(session.GoalContinuePrompt), nil)
		stopped = tctx.Err() != nil
		finish()
	}
	if err == nil && e.sandboxErr != nil {
		// The turn ended at its gate: no sandbox (see startSandbox).
		err = e.sandboxErr
	}
	return out, err
}

// Compact summarises the whole session with the model and appends the
// summary (compaction_* events). It fails when a turn is running.
func (e *Engine) Compact(ctx context.Context) error { return e.agent.Compact(ctx) }

// Model is the name of the model the engine talks to.
func (e *Engine) Model() string { return e.model }

// Cost prices a usage with the model's price table (USD); ok is false
// when the price is unknown.
func (e *Engine) Cost(u protocol.Usage) (float64, bool) { return e.price.Of(u) }

// Active reports whether a turn is running.
func (e *Engine) Active() bool { return e.agent.Active() }

// Steer queues input for the running turn; false when no turn runs.
func (e *Engine) Steer(kind string, content protocol.Content, submissionID *string) bool {
	return e.agent.Steer(kind, content, submissionID)
}

// Cancel interrupts the running turn (and any approval it waits for); a
// no-op when idle.
func (e *Engine) Cancel() {
	e.starting.Cancel()
	if e.broker != nil {
		e.broker.CancelAll()
	}
	e.agent.Cancel()
}

// ErrBlankGoal is returned when a goal is set to blank text.
var ErrBlankGoal = errors.New("goal text must not be blank")

// DefaultGoalBudget is how many turns auto-continuation toward a goal
// may start before it stops and reports goal_budget_exhausted.
const DefaultGoalBudget = 20

// SetGoal sets (text non-nil) or clears (nil) the standing goal. The goal
// lives in the session log as a runtime notice marker, so it survives
// restarts. auto arms autonomous continuation: after a turn ends with the
// goal still standing (not met, not blocked), the engine starts another
// turn toward it, at most DefaultGoalBudget times.
func (e *Engine) SetGoal(text *string, auto bool) error {
	marker := session.GoalCleared
	if text != nil {
		if isBlank(*text) {
			return ErrBlankGoal
		}
		marker = session.GoalSetPrefix + *text
		// Its baseline goes just before it (reference §6).
		if b := goalBaseline(e.opts.Dir); b != "" {
			e.agent.Notify(b)
		}
	}
	e.agent.Notify(marker)
	e.mu.Lock()
	e.autoGoal = text != nil && auto
	e.goalTurns = 0
	e.mu.Unlock()
	e.opts.Emit(protocol.GoalUpdated{Goal: text})
	return nil
}

// continueGoal reports whether another turn should start toward the
// standing goal, and emits goal_continue or goal_budget_exhausted.
func (e *Engine) continueGoal(out agent.Outcome) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.autoGoal || (out.Kind != session.Finished && out.Kind != session.ContextYield) {
		return false
	}
	g, ok := e.log.Session().Goal()
	if !ok || g.Blocked {
		return false
	}
	if e.goalTurns >= DefaultGoalBudget {
		e.autoGoal = false
		e.opts.Emit(protocol.GoalBudgetExhausted{Turns: e.goalTurns})
		return false
	}
	e.goalTurns++
	e.opts.Emit(protocol.GoalContinue{Remaining: DefaultGoalBudget - e.goalTurns})
	return true
}

func isBlank(s string) bool {
	for _, r := range s {
		if r != ' ' && r != '\t' && r != '\n' && r != '\r' {
			return false
		}
	}
	return true
}

// Jobs returns a snapshot of the background jobs.
func (e *Engine) Jobs() []protocol.JobRecord { return e.jobs.Snapshot() }

// StopJob stops one background job and returns the outcome word.
func (e *Engine) StopJob(generation, id string) string { return e.jobs.Stop(generation, id) }

// traced makes each call of t a span when telemetry is on.
func (e *Engine) traced(t tool.Tool) tool.Tool {
	if e.opts.Telemetry == nil {
		return t
	}
	return e.opts.Telemetry.Tool(t)
}

// tracedProvider makes each request of p a span when telemetry is on.
func (e *Engine) tracedProvider(p llm.Provider, model string, price llm.Price) llm.Provider {
	if e.opts.Telemetry == nil {
		return p
	}
	return e.opts.Telemetry.Provider(p, model, price)
}

// agentHooks is the loop's view of the hooks: nil (not a nil pointer in
// an interface) when there are none.
func (e *Engine) agentHooks() agent.Hooks {
	if e.hooks == nil {
		return nil
	}
	return e.hooks
}

// Close stops background jobs and releases the session.
func (e *Engine) Close() error {
	if e.hooks != nil && e.agent != nil {
		e.hooks.session(context.Background(), hooks.SessionEnd, "exit")
		e.hooks = nil
	}
	if e.broker != nil {
		e.broker.CancelAll()
	}
	if e.jobs != nil {
		e.jobs.Close()
	}
	// A sandbox still being built is waited for, so that its helper is
	// not left behind (Host.Close ends the idle ones after this); one
	// never started stays so.
	if e.sandboxBuild == nil || e.sandboxStarted.Load() {
		_ = e.waitSandbox()
	}
	// The session's helper, and its private /tmp, end with it.
	if e.sandboxPolicy != nil {
		e.sandboxPolicy.Release()
	}
	if e.netProxy != nil {
		e.netProxy.CloseIdle()
	}
	for i := len(e.cleanup) - 1; i >= 0; i-- {
		e.cleanup[i]()
	}
	e.cleanup = nil
	return nil
}

// JobOutput is the tail of a background job's output (the window the
// job_output tool shows), for clients that show jobs.
func (e *Engine) JobOutput(id string) (string, error) {
	v, err := e.jobs.Output(id, nil, jobs.DefaultWindow)
	if err != nil {
		return "", err
	}
	if v.Truncated {
		return fmt.Sprintf("… (%d of %d characters shown)\n%s", v.Shown, v.Total, v.Text), nil
	}
	return v.Text, nil
}
