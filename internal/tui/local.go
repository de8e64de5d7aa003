package tui

import (
	"context"
	"errors"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// Local is the in-process backend: sessions engines of a host.
type Local struct {
	Host   *engine.Host
	Holder string // shown to a second writer of the session log
	Home   string // the user's home, which holds the snapshots ("" = $HOME)
}

// Open opens a session engine on the host and subscribes to its events.
func (l *Local) Open(ctx context.Context, req OpenRequest) (Conn, error) {
	s, err := l.Host.Open(ctx, engine.OpenOptions{ID: req.ID, Continue: req.Continue, Model: req.Model,
		Approval: req.Approval, Holder: l.Holder})
	if err != nil {
		return nil, err
	}
	// The log as it stands, then every event from the opening on: the hub
	// window of a session this client just opened holds no turn yet.
	hist := s.Snapshot()
	return &localConn{s: s, sub: s.Subscribe(0), hist: hist}, nil
}

// Sessions lists the host's sessions.
func (l *Local) Sessions(context.Context) ([]engine.SessionInfo, error) { return l.Host.SessionInfos() }

// SetsApproval: the in-process host opens sessions in any mode.
func (l *Local) SetsApproval() bool { return true }

// Models lists the host's configured models (the /model picker).
func (l *Local) Models() []engine.ModelInfo { return l.Host.Models() }

// Turns lists the turns of a session, with their snapshots (/rewind).
func (l *Local) Turns(id string) ([]session.Turn, error) {
	turns, _, err := engine.Turns(l.Host.Workspace(), l.Host.SessionRoot(), id)
	return turns, err
}

// Rewind puts the files back as they were before a turn of a session and
// hides the turn and what followed from the model. The session must not
// be open: the rewind holds its log.
func (l *Local) Rewind(ctx context.Context, id string, turn int) (engine.Rewound, error) {
	return engine.Rewind(ctx, engine.RewindOptions{Dir: l.Host.Workspace(), SessionRoot: l.Host.SessionRoot(),
		Home: l.Home, SessionID: id, Turn: turn, Conversation: true})
}

// Changes is what the session changed in the files, from its snapshots
// (/diff).
func (l *Local) Changes(ctx context.Context, id string) (string, int, error) {
	return engine.Changes(ctx, l.Home, l.Host.Workspace(), l.Host.SessionRoot(), id)
}

// Close closes the host (and every session still open on it).
func (l *Local) Close() error { return l.Host.Close() }

type localConn struct {
	s    *engine.Session
	sub  *engine.Subscription
	hist *session.Session
}

func (c *localConn) ID() string { return c.s.ID() }

func (c *localConn) Model() string {
	if r := c.s.Model(); r != nil {
		return r.Spec
	}
	return ""
}

func (c *localConn) Window() int {
	if r := c.s.Model(); r != nil {
		return r.Window
	}
	return 0
}

func (c *localConn) History() *session.Session { return c.hist }

func (c *localConn) Next(ctx context.Context) ([]protocol.Event, error) {
	batch, err := c.sub.Next(ctx, 0)
	var lag *engine.Lag
	if errors.As(err, &lag) {
		return []protocol.Event{lag.Reset()}, nil
	}
	if err != nil {
		return nil, err
	}
	evs := make([]protocol.Event, len(batch))
	for i, e := range batch {
		evs[i] = e.Event
	}
	return evs, nil
}

func (c *localConn) Apply(_ context.Context, cmd protocol.Command) error { return c.s.Apply(cmd) }

func (c *localConn) Close() error {
	c.sub.Close()
	err := c.s.Close()
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// JobOutput reads the tail of a background job's output.
func (c *localConn) JobOutput(id string) (string, error) { return c.s.Engine().JobOutput(id) }
