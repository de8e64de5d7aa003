package tui

import (
	"context"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// Backend is where the UI's sessions come from: the in-process host
// (Local) or a running `openseek serve --http` (package remote). The UI
// only opens sessions, lists them, applies protocol commands and reads
// protocol events; it never reaches into the loop.
type Backend interface {
	// Open opens (or resumes) one session.
	Open(ctx context.Context, req OpenRequest) (Conn, error)
	// Sessions lists the workspace's sessions, newest first.
	Sessions(ctx context.Context) ([]engine.SessionInfo, error)
	// SetsApproval reports whether OpenRequest.Approval is honoured (an
	// attached server keeps its own permission mode).
	SetsApproval() bool
	// Close releases the backend.
	Close() error
}

// OpenRequest chooses the session to open.
type OpenRequest struct {
	ID       string // resume (or create) this id; "" = a new session
	Continue bool   // resume the workspace's most recent session
	Model    string // "" = the backend's default model
	Approval string // "" = the backend's default permission mode
}

// Conn is one open session as the UI sees it.
type Conn interface {
	ID() string
	// Model names the session's model; Window is its context window in
	// tokens (0 = unknown).
	Model() string
	Window() int
	// History is the session log when it was opened (nil = none).
	History() *session.Session
	// Next blocks for the next batch of events; an error ends the stream
	// (the session closed, the server is gone).
	Next(ctx context.Context) ([]protocol.Event, error)
	// Apply sends a command; an error is its refusal.
	Apply(ctx context.Context, cmd protocol.Command) error
	// Close lets go of the session.
	Close() error
}

// JobOutputs is offered by connections that can read a background job's
// output (the in-process one); /jobs output shows it.
type JobOutputs interface {
	JobOutput(id string) (string, error)
}
