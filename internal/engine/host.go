// Package engine is the host: the composition root every frontend (run,
// serve, the TUI, HTTP, ACP, MCP, the fleet, review, replay) stands on.
// NewHost loads one workspace's configuration, command rules, MCP servers
// and telemetry once and builds the sessions' dependencies from them
// (runtime.Deps); Host.Open opens each session (package runtime) from
// those plus the session's own choices, and is the only way in. Workspace
// questions (sessions, models, doctor, rules check, MCP status,
// compaction, import, rewind) are answered here. Each session's event
// stream is a hub (package hub); frontends reach both through the names
// this package re-exports.
package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/openseek/openseek/internal/config"
	"github.com/openseek/openseek/internal/doctor"
	"github.com/openseek/openseek/internal/engine/hub"
	"github.com/openseek/openseek/internal/engine/runtime"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/mcp"
	"github.com/openseek/openseek/internal/policy"
	"github.com/openseek/openseek/internal/sandbox"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/internal/telemetry"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/internal/trust"
	"github.com/openseek/openseek/protocol"
)

// Host is one workspace's agent runtime, built once from the config: the
// resolved default model and the model catalogue, the command rules (with
// the trust filter), the MCP servers and the session store. Workspace
// questions (sessions, models, doctor, rules check, MCP status, cost) are
// answered here and nowhere else, so every frontend answers them alike.
//
// The host opens session engines (*Session) whose whole API is the
// protocol: Apply a protocol.Command, Subscribe to the event stream. Any
// number of clients may drive and watch one session.
type Host struct {
	opts     Options       // as the frontend gave them, defaults filled in
	deps     *runtime.Deps // built once by NewHost; every session opens from it
	cfg      *config.Config
	res      *config.Resolved
	thinking string
	rules    []policy.Rule
	// startup are workspace-level notices (ignored allow rules, MCP
	// servers that failed, skipped failover candidates): every session
	// shows them at its start, so every client sees them.
	startup   []protocol.Event // guarded by smu
	smu       sync.Mutex
	mcpMu     sync.Mutex // held while the MCP servers start
	mcp       *mcp.Manager
	mcpLoaded bool // the MCP config was read (guarded by mcpMu)

	// tel exports traces and metrics; nil when no endpoint is set, and
	// then no part of the SDK runs.
	tel *telemetry.Exporter

	mu     sync.Mutex
	open   map[string]*Session
	closed bool
}

// NewHost loads the configuration and the command rules. It needs no key
// and touches no network, so workspace questions (models, doctor, rules
// check) work without one; ResolveModel and Open resolve the model. A
// malformed config or rules file is an error naming the file, and nothing
// is created on disk.
func NewHost(ctx context.Context, o Options) (*Host, error) {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Home == "" {
		o.Home = o.Getenv("HOME")
	}
	if o.Dir == "" {
		o.Dir = "."
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	o.Dir = dir
	if o.SessionRoot == "" {
		o.SessionRoot = ".openseek"
	}
	if _, err := policy.ParseMode(o.Approval); err != nil {
		return nil, err
	}
	h := &Host{opts: o, open: map[string]*Session{}}
	if o.MCPConfig != "" {
		// A file the user named must work: a typo in its path or JSON
		// is an error, not a warning scrolled past.
		if _, err := mcp.LoadFile(o.MCPConfig); err != nil {
			return nil, fmt.Errorf("--mcp-config %s: %w", o.MCPConfig, err)
		}
	}
	if o.APIURL != "" {
		if err := config.CheckAPIURL(o.APIURL); err != nil {
			return nil, err
		}
		if chat, changed := config.ChatURL(o.APIURL); changed {
			h.notice(protocol.BackgroundNotice{Content: fmt.Sprintf("[api-url] %s is a base URL; requests go to %s", o.APIURL, chat)})
		}
	}
	if h.cfg, err = loadConfig(o); err != nil {
		return nil, err
	}
	for _, n := range heldNotices(h.cfg) {
		h.notice(n)
	}
	if h.opts.MaxCost == 0 {
		if h.opts.MaxCost, err = h.cfg.MaxCost(); err != nil {
			return nil, err
		}
	}
	rules, dropped, err := runtime.LoadRules(o.Home, dir, o.TrustWorkspace)
	if err != nil {
		return nil, err
	}
	h.rules = rules
	if dropped > 0 {
		h.notice(droppedRulesNotice(dropped, dir))
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if h.tel, err = h.startTelemetry(ctx); err != nil {
		return nil, err
	}
	h.deps = h.buildDeps()
	return h, nil
}

// buildDeps is what every session of the host shares.
func (h *Host) buildDeps() *runtime.Deps {
	o := h.opts
	return &runtime.Deps{
		Dir: o.Dir, Cwd: o.Cwd, Home: o.Home,
		SessionRoot: o.SessionRoot, Root: h.SessionRoot(), IDPrefix: cmp.Or(o.IDPrefix, "cli"),
		Config: h.cfg, Rules: h.rules, MCP: h.mcpManager, Telemetry: h.tel,
		Resolve: h.resolveOther, Getenv: o.Getenv,
		ModelChoice: o.Model, APIKey: o.APIKey, APIURL: o.APIURL,
		MaxSteps: o.MaxSteps, MaxCost: o.MaxCost, Window: o.Window,
		SystemPrompt: o.SystemPrompt, SystemPromptAddendum: o.SystemPromptAddendum,
		GlobalSkillsDir: o.GlobalSkillsDir, TrustWorkspace: o.TrustWorkspace,
		NoSandbox: o.NoSandbox, Network: o.Network, NoVerify: o.NoVerify, VerifyTimeout: o.VerifyTimeout,
		Tools: o.Tools,
	}
}

// startTelemetry starts the exporter when [telemetry] otlp_endpoint or
// $OTEL_EXPORTER_OTLP_ENDPOINT names a receiver; nil = off.
func (h *Host) startTelemetry(ctx context.Context) (*telemetry.Exporter, error) {
	tc, err := h.cfg.Telemetry()
	if err != nil {
		return nil, err
	}
	endpoint := telemetry.Endpoint(tc.Endpoint, h.opts.Getenv)
	if endpoint == "" {
		return nil, nil
	}
	if tc.Endpoint == "" {
		// The variable may be set for other programs (a gRPC
		// collector's host:port): it turns ours off with a warning
		// rather than stopping every command.
		if err := config.CheckOTLPEndpoint(endpoint); err != nil {
			h.notice(protocol.BackgroundNotice{Content: fmt.Sprintf("[telemetry] off: %s: %v", telemetry.EnvEndpoint, err)})
			return nil, nil
		}
	}
	x, err := telemetry.Start(ctx, telemetry.Options{Endpoint: endpoint, LogPrompts: tc.LogPrompts, Warn: h.warn})
	if err != nil && tc.Endpoint == "" {
		// Only the variable asked for it (the headless build has no
		// exporter): say so, and go on without.
		h.notice(protocol.BackgroundNotice{Content: "[telemetry] off: " + err.Error()})
		return nil, nil
	}
	return x, err
}

// warn tells every open session's clients; with none open (the exit's
// flush) it goes to standard error.
func (h *Host) warn(text string) {
	h.mu.Lock()
	open := make([]*Session, 0, len(h.open))
	for _, s := range h.open {
		open = append(open, s)
	}
	h.mu.Unlock()
	if len(open) == 0 {
		fmt.Fprintln(os.Stderr, text)
		return
	}
	for _, s := range open {
		s.Publish(protocol.BackgroundNotice{Content: text})
	}
}

// ResolveModel resolves the default model (the options' Model, else the
// config's, else the built-in default) once: an unknown model (with the
// known ones) or a missing key (with the variables to set) is an error a
// user can act on. ctx bounds a key command.
func (h *Host) ResolveModel(ctx context.Context) (*config.Resolved, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.res != nil {
		return h.res, nil
	}
	res, err := h.resolve(ctx, h.opts.Model)
	if err != nil {
		return nil, err
	}
	h.res, h.thinking = res, h.thinkingFor(res)
	for _, skipped := range res.Skipped {
		h.notice(protocol.BackgroundNotice{Content: "[models] skipped " + skipped})
	}
	return res, nil
}

func loadConfig(o Options) (*config.Config, error) {
	cfg, err := LoadConfig(o.Home, o.Dir, o.Getenv, o.TrustWorkspace)
	if err != nil {
		return nil, err
	}
	cfg.HTTPClient = o.HTTPClient
	return cfg, nil
}

// resolve turns a model spec ("" = the configured default) into a client.
func (h *Host) resolve(ctx context.Context, spec string) (*config.Resolved, error) {
	return h.cfg.ResolveContext(ctx, spec, h.opts.APIKey, h.opts.APIURL, retryPolicy(h.opts))
}

// resolveOther resolves a model other than the sessions' (a custom
// sub-agent's): the host's key and retries, not its --api-url.
func (h *Host) resolveOther(ctx context.Context, spec string) (*config.Resolved, error) {
	return h.cfg.ResolveContext(ctx, spec, h.opts.APIKey, "", retryPolicy(h.opts))
}

// thinkingFor decides the reasoning knob once the model is known: what
// the user chose, else high for catalogue models, else none (a model of an
// arbitrary server may reject reasoning knobs).
func (h *Host) thinkingFor(res *config.Resolved) string {
	if h.opts.Thinking != "" {
		return h.opts.Thinking
	}
	if _, known := llm.LookupModel(res.Model); known {
		return "high"
	}
	return ""
}

// Workspace is the absolute workspace root.
func (h *Host) Workspace() string { return h.opts.Dir }

// Home is the user's home the host was built with (it holds the
// workspace snapshots that Changes and Rewind read).
func (h *Host) Home() string { return h.opts.Home }

// Thinking is the reasoning knob sessions of the default model use ("" =
// none is sent), once ResolveModel succeeded.
func (h *Host) Thinking() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.thinking
}

// Config is the loaded configuration.
func (h *Host) Config() *config.Config { return h.cfg }

// SessionRoot is the absolute directory holding the workspace's sessions.
func (h *Host) SessionRoot() string {
	if filepath.IsAbs(h.opts.SessionRoot) {
		return h.opts.SessionRoot
	}
	return filepath.Join(h.opts.Dir, h.opts.SessionRoot)
}

// Store is the workspace's session store.
func (h *Host) Store() *session.Store { return session.NewStore(h.SessionRoot()) }

// Sessions lists the workspace's sessions, most recently active first.
func (h *Host) Sessions() ([]session.Listing, error) { return h.Store().List() }

// LoadSession reads a session from disk (read-only; no lease taken).
func (h *Host) LoadSession(id string) (*session.Session, error) {
	if err := session.ValidateID(id); err != nil {
		return nil, err
	}
	return h.Store().Load(id)
}

// CheckCommand explains which command rules match a command line and the
// decision, with the same rules (and trust filter) a session applies.
func (h *Host) CheckCommand(command string) policy.Verdict {
	mode, _ := policy.ParseMode(h.opts.Approval)
	p := &policy.Policy{Mode: mode, Rules: h.rules, Workspace: h.opts.Dir, Protected: runtime.ConfigFiles(h.opts.Home, h.opts.Dir)}
	return p.CheckCommand(command)
}

// ModelInfo is one configured model and whether it can be used now.
type ModelInfo struct {
	config.Model
	Ready bool // its provider has a key, or needs none
}

// Columns are the model as every list shows it: its context window
// ("128k", "-" when unknown), its price per million tokens (cached
// in/in/out, llm.Price.String) and its state ("ready", "no key").
func (m ModelInfo) Columns() (window, price, state string) {
	window, price, state = "-", m.Price.String(), "no key"
	if m.Window > 0 {
		window = fmt.Sprintf("%dk", m.Window/1000)
	}
	if m.Ready {
		state = "ready"
	}
	return window, price, state
}

// ModelInUse is the model spec sessions open with by default: the
// options' Model (--model), else the config's model key, else
// config.DefaultSpec. It may be a bare catalogue name or a profile.
func (h *Host) ModelInUse() string {
	return cmp.Or(h.opts.Model, h.cfg.Model, config.DefaultSpec)
}

// Models lists the configured models without touching the network.
func (h *Host) Models() []ModelInfo {
	var out []ModelInfo
	for _, m := range h.cfg.List() {
		out = append(out, ModelInfo{Model: m, Ready: h.cfg.Ready(m.Provider)})
	}
	return out
}

// Doctor checks the config, each provider's key and endpoint (one cheap
// request each), the OS sandbox and the rules, in plain words.
func (h *Host) Doctor(ctx context.Context) []doctor.Check {
	var checks []doctor.Check
	if h.opts.APIURL != "" {
		checks = doctor.RunURL(ctx, h.cfg, h.opts.APIURL, h.opts.APIKey, h.opts.HTTPClient)
	} else {
		checks = doctor.Run(ctx, h.cfg, h.opts.Getenv, h.opts.HTTPClient)
	}
	// The sandbox is checked by building one and running a command in it.
	return append(checks, doctor.Sandbox(ctx, h.opts.Dir))
}

// Diagnose answers doctor for the host newHost builds (Host.Doctor), or,
// when it cannot be built because a config or rules file does not parse,
// reports that as the one failed check, named "config" or "rules".
func Diagnose(ctx context.Context, newHost func() (*Host, error)) []doctor.Check {
	h, err := newHost()
	if err != nil {
		name := "config"
		if strings.Contains(err.Error(), "rule") {
			name = "rules"
		}
		return []doctor.Check{{Name: name, Status: "fail", Detail: err.Error() + "\nfix the file above; OpenSeek will not start until it parses"}}
	}
	defer h.Close()
	return h.Doctor(ctx)
}

// MCPStatus connects the configured MCP servers (once per host) and
// reports each one's state and tools.
func (h *Host) MCPStatus(ctx context.Context) []mcp.ServerStatus {
	m := h.mcpManager(ctx)
	if m == nil {
		return nil
	}
	return m.Status()
}

// mcpManager starts the workspace's MCP servers the first time a session
// (or a status query) needs them; their tools are shared by every session
// of the host. Configuration problems and failed servers become startup
// notices.
func (h *Host) mcpManager(ctx context.Context) *mcp.Manager {
	h.mcpMu.Lock()
	defer h.mcpMu.Unlock()
	h.mu.Lock()
	m, closed := h.mcp, h.closed
	h.mu.Unlock()
	if m != nil || closed || h.mcpLoaded {
		return m
	}
	h.mcpLoaded = true
	wsFile := filepath.Join(h.opts.Dir, ".mcp.json")
	trusted := h.opts.TrustWorkspace || trust.Open(h.opts.Home).Trusted(wsFile)
	servers := mcp.Load(mcp.ConfigFiles(h.opts.Home, h.opts.Dir, h.opts.MCPConfig, trusted), h.notice)
	if len(servers) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	m = mcp.Start(ctx, servers, mcp.Options{Emit: h.notice, Dir: h.opts.Dir, ConnectTimeout: 15 * time.Second, ListTimeout: 15 * time.Second})
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		m.Close()
		return nil
	}
	h.mcp = m
	return m
}

// notice records a workspace-level event every session shows at its start.
func (h *Host) notice(e protocol.Event) {
	h.smu.Lock()
	defer h.smu.Unlock()
	h.startup = append(h.startup, e)
}

// startupEvents are the workspace-level events so far.
func (h *Host) startupEvents() []protocol.Event {
	h.smu.Lock()
	defer h.smu.Unlock()
	return slices.Clone(h.startup)
}

// OpenOptions choose the session a host opens.
type OpenOptions struct {
	ID string // create or resume this id; "" = a new generated id
	// Existing: ID must name a session that exists (open here or on
	// disk); resuming never creates one (MCP's continue).
	Existing  bool
	Continue  bool   // resume the workspace's most recent session
	NoSession bool   // record nothing on disk
	Model     string // another model than the host's default; "" = the default
	Holder    string // who writes the session, shown to a second writer
	// Editor reads files through the client's editor (ACP); nil = disk.
	Editor   tool.EditorRead
	Approval string // another permission mode than the host's; "" = the host's
	// Client talks for the model named Model instead of a client
	// resolved from the configuration (a replay's recorded responses);
	// nil = resolve Model.
	Client llm.Provider
	// Window and Bytes bound the replay window of the session's event
	// stream (0 = hub.DefaultWindowEvents, hub.DefaultWindowBytes).
	Window, Bytes int
}

// ErrHostClosed is returned by Open after Close.
var ErrHostClosed = errors.New("the workspace host is shutting down")

// Open opens a session engine: a new session, or an existing one resumed
// from its log. Opening a session that is already open returns the same
// engine, so several clients can share it. ctx reaches the start-up steps
// (MCP connects, SessionStart hooks).
func (h *Host) Open(ctx context.Context, oo OpenOptions) (*Session, error) {
	if oo.NoSession && (oo.ID != "" || oo.Continue) {
		return nil, errors.New("--no-session contradicts --session; pick one behavior")
	}
	if oo.Continue && oo.ID != "" {
		return nil, errors.New("--continue contradicts --session; pick one session")
	}
	if oo.Continue {
		latest, err := h.Store().Latest()
		if err != nil {
			return nil, fmt.Errorf("--continue: no session to continue in %s: %w", h.SessionRoot(), err)
		}
		oo.ID = latest
	}
	if oo.ID != "" {
		if err := session.ValidateID(oo.ID); err != nil {
			return nil, err
		}
		if s, ok := h.Get(oo.ID); ok {
			return s, nil
		}
		if oo.Existing && !h.Store().Exists(oo.ID) {
			return nil, fmt.Errorf("session %s does not exist in %s; `openseek sessions list` shows the workspace's sessions", oo.ID, h.SessionRoot())
		}
	}
	so, err := h.sessionOptions(ctx, oo)
	if err != nil {
		return nil, err
	}
	// The MCP servers start (once per host) before the stream does, so
	// that their notices are among the ones it starts with.
	h.mcpManager(ctx)
	stream := hub.NewHub(oo.Window, oo.Bytes)
	for _, e := range h.startupEvents() {
		stream.Publish(e)
	}
	s, err := runtime.Open(ctx, h.deps, so, stream, h.forget)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	if h.closed {
		// Unlocked first: Close calls forget, which takes h.mu.
		h.mu.Unlock()
		s.Close()
		return nil, ErrHostClosed
	}
	if !oo.NoSession {
		h.open[s.ID()] = s
	}
	h.mu.Unlock()
	return s, nil
}

// sessionOptions are the choices of the session oo opens, beside the
// host's deps: its model (the host's default, resolved once, or oo's),
// the reasoning knob for that model, its holder and permission mode.
func (h *Host) sessionOptions(ctx context.Context, oo OpenOptions) (runtime.SessionOptions, error) {
	so := runtime.SessionOptions{ID: oo.ID, NoSession: oo.NoSession,
		Holder: cmp.Or(oo.Holder, h.opts.Holder), Approval: cmp.Or(oo.Approval, h.opts.Approval), Editor: oo.Editor}
	if oo.Client != nil {
		so.Model = &config.Resolved{Spec: oo.Model, Model: oo.Model, Client: oo.Client}
		so.Thinking = h.thinkingFor(so.Model)
		return so, nil
	}
	res, err := h.ResolveModel(ctx)
	if err != nil && oo.Model == "" {
		return runtime.SessionOptions{}, err
	}
	thinking := h.Thinking()
	if oo.Model != "" && (res == nil || oo.Model != res.Spec) {
		r, err := h.resolve(ctx, oo.Model)
		if err != nil {
			return runtime.SessionOptions{}, err
		}
		res, thinking = r, h.thinkingFor(r)
	}
	so.Model, so.Thinking = res, thinking
	return so, nil
}

// Get returns an open session engine by id.
func (h *Host) Get(id string) (*Session, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.open[id]
	return s, ok
}

// forget drops a closed session from the open set.
func (h *Host) forget(s *Session) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.open[s.ID()] == s {
		delete(h.open, s.ID())
	}
}

// Close closes every open session (cancelling their turns) and the MCP
// servers.
func (h *Host) Close() error {
	h.mu.Lock()
	h.closed = true
	open := make([]*Session, 0, len(h.open))
	for _, s := range h.open {
		open = append(open, s)
	}
	m := h.mcp
	h.mcp = nil
	h.mu.Unlock()
	for _, s := range open {
		s.Close()
	}
	if m != nil {
		m.Close()
	}
	if h.tel != nil {
		// The spans of a run that ends are exported, within a bound.
		ctx, cancel := context.WithTimeout(context.Background(), telemetry.ShutdownTimeout)
		_ = h.tel.Shutdown(ctx)
		cancel()
	}
	// The sandbox helpers its sessions' commands ran in end now rather
	// than with the process (a helper still running a command of another
	// host in this process is left alone).
	sandbox.Shutdown()
	return nil
}

// Warnings are the workspace-level warnings so far (rules ignored until
// trusted, MCP servers that failed, failover candidates skipped), as
// sentences for a person.
func (h *Host) Warnings() []string {
	var out []string
	for _, e := range h.startupEvents() {
		if w, ok := protocol.Warning(e); ok {
			out = append(out, w)
		}
	}
	return out
}

// SessionInfo is one row of the session list, as `sessions list --format
// json` and GET /v1/sessions give it. Open and Busy are for live clients
// (a turn runs or waits); both are false for a session not open here.
type SessionInfo struct {
	ID          string  `json:"id"`
	Title       *string `json:"title"`
	UpdatedAtMs *int64  `json:"updated_at_ms"`
	Open        bool    `json:"open,omitempty"`
	Busy        bool    `json:"busy,omitempty"`
	// Review marks a review run's session (session.IsReview): lists of
	// the user's sessions leave them out unless asked for all.
	Review bool `json:"review,omitempty"`
	// Problem says why a session does not load (a corrupt line, an
	// unknown format version): `openseek sessions repair` keeps what
	// loads and sets the rest aside.
	Problem string `json:"problem,omitempty"`
}

// SessionInfos lists the workspace's sessions, most recently active first.
func (h *Host) SessionInfos() ([]SessionInfo, error) {
	ls, err := h.Sessions()
	if err != nil {
		return nil, err
	}
	rows := make([]SessionInfo, 0, len(ls))
	for _, l := range ls {
		r := SessionInfo{ID: l.ID, Review: session.IsReview(l.ID)}
		if t := cmp.Or(l.Title, l.FirstPrompt); t != "" {
			r.Title = &t
		}
		if l.HasTime {
			ms := l.UpdatedAt.UnixMilli()
			r.UpdatedAtMs = &ms
		}
		if s, ok := h.Get(l.ID); ok {
			r.Open, r.Busy = true, s.Busy()
		} else if l.HasTime {
			if _, err := h.Store().Load(l.ID); err != nil {
				r.Problem = err.Error()
			}
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// At is a host for another directory (a git worktree of this workspace)
// with this host's options, whose sessions are kept in this host's
// session root, so they list beside their parent's. The caller closes it.
func (h *Host) At(ctx context.Context, dir string) (*Host, error) {
	o := h.opts
	o.SessionRoot = h.SessionRoot()
	o.Dir = dir
	return NewHost(ctx, o)
}

func droppedRulesNotice(dropped int, dir string) protocol.Event {
	return protocol.BackgroundNotice{Content: fmt.Sprintf("[rules] %d allow rule(s) in %s are ignored until you trust this workspace (openseek trust)",
		dropped, runtime.ConfigFiles("", dir)[1])}
}
