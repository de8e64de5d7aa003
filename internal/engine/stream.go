package engine

import (
	"context"

	"github.com/openseek/openseek/internal/engine/hub"
	"github.com/openseek/openseek/internal/engine/runtime"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/internal/snapshot"
)

// The session's event stream is package hub's and the session engine is
// package runtime's; these names let the frontends keep reaching both
// through the host's package.
type (
	Hub          = hub.Hub
	Entry        = hub.Entry
	Subscription = hub.Subscription
	Follower     = hub.Follower
	Lag          = hub.Lag

	Session       = runtime.Session
	RewindOptions = runtime.RewindOptions
	Rewound       = runtime.Rewound
)

// ErrUnknownCommand is wrapped by Session.Apply for commands a session
// does not take.
var ErrUnknownCommand = runtime.ErrUnknownCommand

// UserShellID starts the tool call id a user's shell command's events
// carry (runtime.UserShellID).
const UserShellID = runtime.UserShellID

// ParseUserShell reads a user shell command's notice (runtime.ParseUserShell).
func ParseUserShell(notice string) (command, output string, failed, ok bool) {
	return runtime.ParseUserShell(notice)
}

// Rewind puts a session's workspace files (and, if asked, its
// conversation) back to a turn's snapshot (runtime.Rewind).
func Rewind(ctx context.Context, o RewindOptions) (Rewound, error) { return runtime.Rewind(ctx, o) }

// Turns lists the turns of a session (the most recent one for id "")
// with their snapshots, and its id (runtime.Turns).
func Turns(dir, sessionRoot, id string) ([]session.Turn, string, error) {
	return runtime.Turns(dir, sessionRoot, id)
}

// RestoreSnapshot puts the workspace files back to snapshot id
// (runtime.RestoreSnapshot).
func RestoreSnapshot(ctx context.Context, home, dir, sessionRoot, id string) (snapshot.Restored, error) {
	return runtime.RestoreSnapshot(ctx, home, dir, sessionRoot, id)
}

// Changes is what a session changed in the workspace's files, as a
// unified diff from before its first snapshotted turn (runtime.Changes).
func Changes(ctx context.Context, home, dir, sessionRoot, id string) (diff string, turn int, err error) {
	return runtime.Changes(ctx, home, dir, sessionRoot, id)
}
