// Package acp serves the Agent Client Protocol (https://agentclientprotocol.com)
// over a pair of streams, so editors (Zed, JetBrains, Neovim) can drive
// OpenSeek: it is what `openseek acp` runs. It is a transport over the
// workspace host and its session engines (package engine) built on
// github.com/coder/acp-go-sdk, and it translates nothing but wire formats:
//
//   - initialize answers with loadSession, image and embedded-context prompt
//     support, and records the client's fs and terminal capabilities;
//   - session/new opens a session engine on the host of the request's cwd
//     (one host per workspace directory, made on first use); session/load
//     opens an existing one and replays its durable log as session/update
//     notifications (user messages, agent message and thought chunks, tool
//     calls with their results, plans) up to a moment no turn ran, then
//     follows the session's stream from that moment's sequence: a turn
//     streaming meanwhile shows exactly once;
//   - session/prompt runs a turn and streams its events as session/update:
//     assistant_delta → agent_message_chunk, reasoning_delta →
//     agent_thought_chunk, tool_started → tool_call, tool_result →
//     tool_call_update (diff content for edits), the plan tool → plan; it
//     answers with the stop reason once every update of the turn was sent;
//   - session/cancel cancels the running turn; approval_requested (approval
//     mode ask) becomes session/request_permission (allow once, allow for
//     the session, reject), and its answer the approval command;
//   - when the client offers fs/read_text_file, the read tool reads
//     through it (tool.Env.Editor), so the agent sees unsaved buffers. The
//     client's fs/write_text_file and terminals are recorded but not used:
//     edits are written by the tools (editors reload changed files), and
//     commands run in the OS sandbox under the command rules, which a
//     client's terminal would bypass.
//
// Key invariant: a request the agent cannot read (bad JSON, an unknown
// method, bad parameters) is answered with a JSON-RPC error and the
// connection stays up; every update of a turn reaches the client before
// the turn's response.
package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// Options configure Serve.
type Options struct {
	// NewHost builds the workspace host for an absolute, existing
	// directory (a session's cwd). Serve calls it once per directory and
	// closes the hosts when it returns.
	NewHost func(ctx context.Context, dir string) (*engine.Host, error)
	// Holder is who writes the sessions, shown to a second writer.
	Holder string
	// Version is reported to the client as the agent's version.
	Version string
	// Log receives connection diagnostics (nil = discarded).
	Log *slog.Logger
}

// Serve speaks ACP on in/out until the client closes in or ctx ends; the
// open sessions are then cancelled and closed. The sessions' logs stay on
// disk for session/load.
func Serve(ctx context.Context, in io.Reader, out io.Writer, o Options) error {
	if o.NewHost == nil {
		return errors.New("acp: Options.NewHost is required")
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	w := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	a := &agent{opts: o, hosts: map[string]*engine.Host{}, sessions: map[string]*acpSession{}}
	conn := sdk.NewAgentSideConnection(a, w, pr)
	conn.SetLogger(o.Log)
	a.conn = conn
	filtered := make(chan error, 1)
	go func() { filtered <- filter(in, pw, w) }()
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	a.close()
	// The filter ends with in (the process's stdin closes at exit).
	_ = pw.CloseWithError(io.EOF)
	select {
	case err := <-filtered:
		if err != nil && !errors.Is(err, io.ErrClosedPipe) {
			return err
		}
	case <-ctx.Done():
	}
	<-conn.Done()
	return nil
}

// agent implements the SDK's Agent (and AgentLoader) over engine hosts.
type agent struct {
	opts Options
	conn *sdk.AgentSideConnection

	mu       sync.Mutex
	caps     sdk.ClientCapabilities
	hosts    map[string]*engine.Host // by workspace directory
	sessions map[string]*acpSession  // by session id
	warned   map[string]bool         // workspace warnings shown: once a connection
	closed   bool
}

// warnOnce reports whether workspace warning w is not shown yet on this
// connection, and takes it as shown.
func (a *agent) warnOnce(w string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.warned[w] {
		return false
	}
	if a.warned == nil {
		a.warned = map[string]bool{}
	}
	a.warned[w] = true
	return true
}

var (
	_ sdk.Agent       = (*agent)(nil)
	_ sdk.AgentLoader = (*agent)(nil)
)

// ClientCapabilities is what the client offered at initialize.
func (a *agent) clientCaps() sdk.ClientCapabilities {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.caps
}

func (a *agent) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	a.mu.Lock()
	a.caps = p.ClientCapabilities
	a.mu.Unlock()
	version := a.opts.Version
	if version == "" {
		version = "dev"
	}
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentInfo:       &sdk.Implementation{Name: "openseek", Title: sdk.Ptr("OpenSeek"), Version: version},
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{Image: true, EmbeddedContext: true},
		},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

func (a *agent) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	// Keys come from the environment or the config; there is nothing to
	// authenticate over the wire.
	return sdk.AuthenticateResponse{}, nil
}

func (a *agent) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	s, err := a.open(ctx, p.Cwd, "")
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(s.id)}, nil
}

func (a *agent) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	id := string(p.SessionId)
	if err := session.ValidateID(id); err != nil {
		return sdk.LoadSessionResponse{}, invalidParams(err.Error())
	}
	host, err := a.host(ctx, p.Cwd)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	if _, err := host.LoadSession(id); err != nil {
		return sdk.LoadSessionResponse{}, invalidParams(fmt.Sprintf("no session %s in %s: %v", id, host.SessionRoot(), err))
	}
	s, err := a.open(ctx, p.Cwd, id)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	// Also a session this connection has open (and may be streaming a
	// turn of) is shown again from its start.
	if err := s.load(ctx); err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	return sdk.LoadSessionResponse{}, nil
}

// open opens (id "" = creates) a session on the host of cwd. A new
// session starts following its events at once; a loaded one after the
// replay.
func (a *agent) open(ctx context.Context, cwd, id string) (*acpSession, error) {
	host, err := a.host(ctx, cwd)
	if err != nil {
		return nil, err
	}
	if id != "" {
		a.mu.Lock()
		s, ok := a.sessions[id]
		a.mu.Unlock()
		if ok {
			return s, nil
		}
	}
	ed := &editor{a: a}
	oo := engine.OpenOptions{ID: id, Holder: a.opts.Holder}
	if a.clientCaps().Fs.ReadTextFile {
		oo.Editor = ed.read
	}
	es, err := host.Open(ctx, oo)
	if err != nil {
		return nil, internalError(err.Error())
	}
	ed.id.Store(es.ID())
	s := newSession(a, es, host.Workspace())
	s.warnings = host.Warnings()
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		s.close()
		return nil, internalError("the agent is shutting down")
	}
	if old, ok := a.sessions[s.id]; ok {
		a.mu.Unlock()
		return old, nil
	}
	a.sessions[s.id] = s
	a.mu.Unlock()
	if id == "" {
		s.follow()
	}
	return s, nil
}

// host returns the workspace host of cwd, made on first use. cwd must be
// an absolute path of an existing directory (ACP requires absolute).
func (a *agent) host(ctx context.Context, cwd string) (*engine.Host, error) {
	if !filepath.IsAbs(cwd) {
		return nil, invalidParams(fmt.Sprintf("cwd %q is not an absolute path; send the workspace's absolute directory", cwd))
	}
	dir := filepath.Clean(cwd)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil, invalidParams(fmt.Sprintf("cwd %s is not an existing directory", cwd))
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, internalError("the agent is shutting down")
	}
	if h, ok := a.hosts[dir]; ok {
		return h, nil
	}
	h, err := a.opts.NewHost(ctx, dir)
	if err != nil {
		return nil, internalError(err.Error())
	}
	if _, err := h.ResolveModel(ctx); err != nil {
		h.Close()
		return nil, internalError(err.Error())
	}
	a.hosts[dir] = h
	return h, nil
}

func (a *agent) session(id sdk.SessionId) (*acpSession, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[string(id)]
	if !ok {
		return nil, invalidParams(fmt.Sprintf("unknown session %q: call session/new or session/load first", id))
	}
	return s, nil
}

func (a *agent) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	content, err := PromptContent(p.Prompt)
	if err != nil {
		return sdk.PromptResponse{}, invalidParams(err.Error())
	}
	return s.prompt(ctx, content)
}

func (a *agent) Cancel(_ context.Context, p sdk.CancelNotification) error {
	s, err := a.session(p.SessionId)
	if err != nil {
		return err
	}
	return s.s.Apply(protocol.CancelCmd{})
}

func (a *agent) CloseSession(_ context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.CloseSessionResponse{}, err
	}
	a.mu.Lock()
	delete(a.sessions, s.id)
	a.mu.Unlock()
	s.close()
	return sdk.CloseSessionResponse{}, nil
}

func (a *agent) ListSessions(context.Context, sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	return sdk.ListSessionsResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionList)
}

func (a *agent) ResumeSession(context.Context, sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionResume)
}

func (a *agent) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetConfigOption)
}

func (a *agent) SetSessionMode(context.Context, sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	return sdk.SetSessionModeResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetMode)
}

// close cancels and closes every session, then the hosts.
func (a *agent) close() {
	a.mu.Lock()
	a.closed = true
	sessions := make([]*acpSession, 0, len(a.sessions))
	for _, s := range a.sessions {
		sessions = append(sessions, s)
	}
	hosts := make([]*engine.Host, 0, len(a.hosts))
	for _, h := range a.hosts {
		hosts = append(hosts, h)
	}
	a.sessions, a.hosts = map[string]*acpSession{}, map[string]*engine.Host{}
	a.mu.Unlock()
	for _, s := range sessions {
		s.close()
	}
	for _, h := range hosts {
		h.Close()
	}
}

func invalidParams(msg string) *sdk.RequestError {
	return &sdk.RequestError{Code: -32602, Message: msg}
}

func internalError(msg string) *sdk.RequestError {
	return &sdk.RequestError{Code: -32603, Message: msg}
}
