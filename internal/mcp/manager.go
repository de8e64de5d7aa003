package mcp

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

// Defaults for the zero fields of Options.
const (
	DefaultConnectTimeout    = 30 * time.Second
	DefaultListTimeout       = 30 * time.Second
	DefaultCallTimeout       = 120 * time.Second
	DefaultMaxResultBytes    = 32 * 1024
	DefaultMaxToolsPerServer = 64
	DefaultMaxTools          = 256
	DefaultMaxImageBytes     = 1024 * 1024
)

// Options tune Start. Zero fields take the defaults above.
type Options struct {
	// Emit receives the mcp_* events (protocol §5.9), from Start only, in
	// server name order. Nil drops them.
	Emit func(protocol.Event)
	// ConnectTimeout bounds starting a server and the initialize
	// handshake; ListTimeout bounds listing its tools; CallTimeout bounds
	// one tool call.
	ConnectTimeout, ListTimeout, CallTimeout time.Duration
	// MaxResultBytes caps the text of one tool result.
	MaxResultBytes int
	// MaxToolsPerServer caps the tools taken from one server
	// (mcp_tools_capped); MaxTools caps them across servers, a server
	// finding the cap reached is skipped (mcp_server_skipped_over_cap).
	MaxToolsPerServer int
	MaxTools          int
	// MaxImageBytes is the largest image passed on as an image part;
	// larger ones become a note.
	MaxImageBytes int
	// Dir is the working directory of stdio servers ("" = the engine's).
	Dir string
}

func (o Options) withDefaults() Options {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	defInt := func(n *int, v int) {
		if *n <= 0 {
			*n = v
		}
	}
	def(&o.ConnectTimeout, DefaultConnectTimeout)
	def(&o.ListTimeout, DefaultListTimeout)
	def(&o.CallTimeout, DefaultCallTimeout)
	defInt(&o.MaxResultBytes, DefaultMaxResultBytes)
	defInt(&o.MaxToolsPerServer, DefaultMaxToolsPerServer)
	defInt(&o.MaxTools, DefaultMaxTools)
	defInt(&o.MaxImageBytes, DefaultMaxImageBytes)
	o.MaxImageBytes = min(o.MaxImageBytes, protocol.MaxImageBytes)
	if o.Emit == nil {
		o.Emit = func(protocol.Event) {}
	}
	return o
}

// State is a server's condition as `openseek mcp` shows it.
type State string

const (
	Connected State = "connected"
	Failed    State = "failed"
)

// ToolInfo is one registered tool: its model-facing Name, the server's
// own name for it (Remote), and its description.
type ToolInfo struct {
	Name, Remote, Description string
}

// ServerStatus is what `openseek mcp` lists for one server.
type ServerStatus struct {
	Name, Source string
	Transport    string // "stdio" or "http"
	State        State
	Error        string // why it failed; "" when connected
	Tools        []ToolInfo
}

// Manager owns the sessions to the configured servers and their tools.
// Its methods are safe for concurrent use.
type Manager struct {
	opts  Options
	conns []*conn // sorted by server name
	tools []tool.Tool

	closeOnce sync.Once
	closeErr  error
}

// conn is one server: its endpoint, its session (nil when it failed) and
// what it offers.
type conn struct {
	server  Server
	ep      *endpoint
	session *sdk.ClientSession
	remote  []*sdk.Tool
	events  []protocol.Event // from connecting, emitted in order by Start

	mu     sync.Mutex
	status ServerStatus
}

// fail records e for Start to emit and marks the server failed.
func (c *conn) fail(e protocol.Event, msg string) {
	c.events = append(c.events, e)
	c.setFailed(msg)
}

func (c *conn) setFailed(msg string) {
	c.mu.Lock()
	c.status.State, c.status.Error = Failed, msg
	c.mu.Unlock()
}

// Start connects to servers in parallel, lists their tools and builds the
// tools the registry takes. It returns once every server has answered or
// hit its timeouts, and never fails: each problem becomes an mcp_* event,
// then mcp_tools_registered closes the report. The Manager must be Closed.
func Start(ctx context.Context, servers []Server, o Options) *Manager {
	o = o.withDefaults()
	sorted := slices.Clone(servers)
	slices.SortStableFunc(sorted, func(a, b Server) int { return strings.Compare(a.Name, b.Name) })
	client := sdk.NewClient(&sdk.Implementation{Name: "openseek", Version: "1"}, nil)
	m := &Manager{opts: o, conns: make([]*conn, len(sorted))}
	var wg sync.WaitGroup
	for i, s := range sorted {
		wg.Go(func() { m.conns[i] = connect(ctx, client, s, o) })
	}
	wg.Wait()
	m.register()
	return m
}

// connect starts s, runs the handshake and lists its tools, all within the
// timeouts. A server that fails is stopped at once (no graceful close: it
// is of no further use).
func connect(ctx context.Context, client *sdk.Client, s Server, o Options) *conn {
	c := &conn{server: s, ep: newEndpoint(s, o.Dir)}
	c.status = ServerStatus{Name: s.Name, Source: s.Source, Transport: s.Transport(), State: Connected}

	cctx, cancel := context.WithTimeout(ctx, o.ConnectTimeout)
	// A server that hangs in the handshake is killed when the time is up,
	// so the SDK's own close does not wait for it to exit.
	var connected atomic.Bool
	stopKill := context.AfterFunc(cctx, func() {
		if !connected.Load() {
			c.ep.stop()
		}
	})
	cs, err := client.Connect(cctx, c.ep.transport, nil)
	connected.Store(err == nil)
	stopKill()
	timedOut := errors.Is(cctx.Err(), context.DeadlineExceeded)
	cancel()
	if err != nil {
		c.ep.stop()
		msg := err.Error()
		if timedOut {
			msg = fmt.Sprintf("no answer to initialize within %s", o.ConnectTimeout)
		}
		if tail := c.ep.stderrText(); tail != "" {
			msg += "; stderr: " + lastLines(tail, 3)
		}
		c.fail(protocol.McpConnectFailed{Server: s.Name, Error: msg}, msg)
		return c
	}

	lctx, cancel := context.WithTimeout(ctx, o.ListTimeout)
	defer cancel()
	for t, err := range cs.Tools(lctx, nil) {
		if err == nil {
			c.remote = append(c.remote, t)
			continue
		}
		c.ep.stop()
		_ = cs.Close()
		if errors.Is(lctx.Err(), context.DeadlineExceeded) {
			c.fail(protocol.McpListToolsTimeout{Server: s.Name}, fmt.Sprintf("listing tools timed out after %s", o.ListTimeout))
		} else {
			c.fail(protocol.McpListToolsFailed{Server: s.Name, Error: err.Error()}, "list tools: "+err.Error())
		}
		c.remote = nil
		return c
	}
	c.session = cs
	return c
}

// register emits each server's events and builds the tools, applying the
// caps and the naming rules in server name order so the outcome is the
// same on every run.
func (m *Manager) register() {
	emit := m.opts.Emit
	taken := map[string]bool{}
	servers := 0
	for _, c := range m.conns {
		for _, e := range c.events {
			emit(e)
		}
		if c.session == nil {
			continue
		}
		if len(c.remote) == 0 {
			emit(protocol.McpNoTools{Server: c.server.Name})
			m.release(c)
			continue
		}
		limit := min(m.opts.MaxToolsPerServer, m.opts.MaxTools-len(m.tools))
		if limit <= 0 {
			emit(protocol.McpServerSkippedOverCap{Server: c.server.Name})
			c.setFailed(fmt.Sprintf("skipped: the cap of %d MCP tools was reached", m.opts.MaxTools))
			m.release(c)
			continue
		}
		seen := map[string]bool{}
		kept, capped := 0, false
		for _, rt := range c.remote {
			if seen[rt.Name] {
				emit(protocol.McpToolDuplicate{Server: c.server.Name, Tool: rt.Name})
				continue
			}
			seen[rt.Name] = true
			if kept == limit {
				capped = true
				continue
			}
			name := uniqueName(toolName(c.server.Name, rt.Name), taken)
			taken[name] = true
			if raw := rawName(c.server.Name, rt.Name); name != raw {
				emit(protocol.McpToolRenamed{From: raw, To: name})
			}
			m.tools = append(m.tools, m.newTool(c, rt, name))
			c.status.Tools = append(c.status.Tools, ToolInfo{Name: name, Remote: rt.Name, Description: rt.Description})
			kept++
		}
		if capped {
			emit(protocol.McpToolsCapped{Server: c.server.Name, Kept: kept})
		}
		servers++
	}
	slices.SortFunc(m.tools, func(a, b tool.Tool) int { return strings.Compare(a.Name, b.Name) })
	if len(m.conns) > 0 {
		names := make([]string, len(m.tools))
		for i, t := range m.tools {
			names[i] = t.Name
		}
		emit(protocol.McpToolsRegistered{Servers: servers, Tools: len(m.tools), Names: names})
	}
}

// release closes a session that contributes no tools.
func (m *Manager) release(c *conn) {
	_ = c.session.Close()
	c.ep.stop()
	c.session = nil
}

// Tools returns the tools of every connected server, sorted by name.
func (m *Manager) Tools() []tool.Tool { return slices.Clone(m.tools) }

// Status reports every configured server, sorted by name.
func (m *Manager) Status() []ServerStatus {
	out := make([]ServerStatus, len(m.conns))
	for i, c := range m.conns {
		c.mu.Lock()
		out[i] = c.status
		out[i].Tools = slices.Clone(c.status.Tools)
		c.mu.Unlock()
	}
	return out
}

// Close ends every session and stops the stdio server processes and their
// process groups. Calls still running get an error result. It is
// idempotent; the error joins what went wrong besides a server's own
// exit status.
func (m *Manager) Close() error {
	m.closeOnce.Do(func() {
		errs := make([]error, len(m.conns))
		var wg sync.WaitGroup
		for i, c := range m.conns {
			if c.session == nil {
				continue
			}
			wg.Go(func() {
				err := c.session.Close()
				c.ep.stop()
				var exit *exec.ExitError
				if err != nil && !errors.As(err, &exit) && !errors.Is(err, sdk.ErrConnectionClosed) {
					errs[i] = fmt.Errorf("close MCP server %s: %w", c.server.Name, err)
				}
			})
		}
		wg.Wait()
		m.closeErr = errors.Join(errs...)
	})
	return m.closeErr
}

// lastLines is the last n lines of s, joined by " | ".
func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
