package protocol

// Session, workspace and command error events (reference §5.8).

// SessionStarted names the session; WorkspaceRoot (nil → null) is the
// working directory, always set by current engines.
type SessionStarted struct {
	Session, SessionRoot string
	WorkspaceRoot        *string
}

// SessionError: the session file could not be written or read.
type SessionError struct{ Error string }

// WorkspaceCreated: --dir's last component did not exist and was created.
type WorkspaceCreated struct{ Dir string }

// CommandError reports a malformed command (the ParseCommand error text)
// or a refused one; the engine keeps running.
type CommandError struct{ Error string }
