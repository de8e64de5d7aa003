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

func (SessionStarted) EventName() string   { return "session_started" }
func (SessionError) EventName() string     { return "session_error" }
func (WorkspaceCreated) EventName() string { return "workspace_created" }
func (CommandError) EventName() string     { return "command_error" }

func (e SessionStarted) appendFields(b []byte) []byte {
	b = appendStrField(b, "session", e.Session)
	b = appendStrField(b, "session_root", e.SessionRoot)
	return appendOptStrField(b, "workspace_root", e.WorkspaceRoot)
}
func (e SessionError) appendFields(b []byte) []byte     { return appendStrField(b, "error", e.Error) }
func (e WorkspaceCreated) appendFields(b []byte) []byte { return appendStrField(b, "dir", e.Dir) }
func (e CommandError) appendFields(b []byte) []byte     { return appendStrField(b, "error", e.Error) }

func parseSessionEvent(name string, f *fields) Event {
	switch name {
	case "session_started":
		return SessionStarted{Session: f.str("session"), SessionRoot: f.str("session_root"), WorkspaceRoot: f.optStr("workspace_root")}
	case "session_error":
		return SessionError{Error: f.str("error")}
	case "workspace_created":
		return WorkspaceCreated{Dir: f.str("dir")}
	case "command_error":
		return CommandError{Error: f.str("error")}
	}
	return nil
}
