package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/policy"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/internal/snapshot"
	"github.com/openseek/openseek/protocol"
)

// snapshotTurn prepares the snapshot of the workspace for a turn that
// may change files, so that `openseek rewind` can put the files back. It
// returns the turn's context and a finish function to call once the turn
// returned. The snapshot is taken at the turn's gate (Agent.SetGate), the
// first time the turn is about to run a tool that can change files (see
// cannotWrite), or just before its check runs a command; its id is recorded after the turn's prompt,
// naming it (session.SnapshotMarkerFor). A turn that ends without running
// such a tool takes none and records that it changed nothing
// (session.UnchangedMarkerFor): the files before it are those before the
// next snapshot. Where something else may change the files meanwhile — a
// background job still running, or hooks, which run commands around
// every tool — the snapshot is started beside the turn's first model
// request instead, and the gate waits for it. Plan mode (read-only),
// sessions that are not recorded and OPENSEEK_SNAPSHOTS=off take none. A
// failed snapshot never stops the turn: it is reported as a notice.
//
// Cancel reaches a snapshot in progress, and the turn: both run under the
// context returned, which Cancel cancels until the turn returned.
func (e *Engine) snapshotTurn(ctx context.Context) (context.Context, func()) {
	if e.writer == nil || e.agent.Active() || getenvOr(e.opts.Getenv, "OPENSEEK_SNAPSHOTS") == "off" {
		return ctx, e.setGate(nil)
	}
	if mode, _ := policy.ParseMode(e.opts.Approval); mode == policy.ModePlan {
		return ctx, e.setGate(nil)
	}
	sctx, cancel := context.WithCancel(ctx)
	e.starting.set(cancel)
	before := e.log.Session().LastSequence()
	done := make(chan struct{})
	var id string
	var err error
	take := func() {
		defer close(done)
		id, err = takeSnapshot(sctx, e.opts.Home, e.opts.Dir, e.root)
	}
	eager := e.hooks != nil || e.jobsRunning()
	if eager {
		go take()
	}
	var once sync.Once
	write := func() {
		once.Do(func() {
			if !eager {
				take()
			}
			<-done
			if err != nil {
				if sctx.Err() == nil {
					e.opts.Emit(protocol.BackgroundNotice{Content: "[snapshot] this turn cannot be rewound: " + err.Error()})
				}
				return
			}
			prompt := turnPrompt(e.log.Session(), before)
			if prompt == 0 {
				return // the turn recorded no prompt: there is no turn to rewind
			}
			if _, err := e.log.Append(&session.Notice{Content: session.SnapshotMarkerFor(id, prompt)}); err != nil {
				e.opts.Emit(protocol.SessionError{Error: err.Error()})
			}
		})
	}
	// The turn's check takes the snapshot itself, once it knows it runs
	// (the workspace changed): see verifier.
	e.beforeCheck.Store(&write)
	snap := func(calls []chat.ToolCall, end bool) (bool, []session.Item) {
		switch {
		case eager || (calls != nil && !e.cannotWrite(calls)):
			write()
			return true, nil
		case end:
			// Recorded with the turn's terminal item, in one append.
			var marker []session.Item
			once.Do(func() { marker = unchangedMarker(e.log.Session(), before) })
			return true, marker
		}
		return false, nil
	}
	finish := e.setGate(snap)
	return sctx, func() {
		finish()
		e.beforeCheck.Store(nil)
		e.starting.set(nil)
		cancel()
	}
}

// unchangedMarker is the record that the turn which began after sequence
// before ran nothing that could change the workspace's files, and so took
// no snapshot (none when the turn recorded no prompt).
func unchangedMarker(s *session.Session, before int) []session.Item {
	prompt := turnPrompt(s, before)
	if prompt == 0 {
		return nil
	}
	return []session.Item{&session.Notice{Content: session.UnchangedMarkerFor(prompt)}}
}

// jobsRunning reports whether a background job is still running: it may
// change the files while a turn runs only tools that cannot.
func (e *Engine) jobsRunning() bool {
	for _, j := range e.jobs.Snapshot() {
		if j.State.Kind == protocol.JobStateRunning || j.State.Kind == protocol.JobStateStopping {
			return true
		}
	}
	return false
}

// readOnlyTools are the built-in tools that cannot change the workspace's
// files: a turn runs them before its snapshot is taken.
var readOnlyTools = map[string]bool{
	"read": true, "grep": true, "glob": true, "list": true, "job_output": true,
	"plan": true, "goal": true, "finish": true,
}

// cannotWrite reports whether none of calls can change the workspace's
// files: built-in read-only tools, and shell commands that the policy
// knows to be read-only (the list plan mode allows, no output written to
// a file) run in the foreground. MCP tools, sub-agents, scripts and
// everything else can.
func (e *Engine) cannotWrite(calls []chat.ToolCall) bool {
	for _, c := range calls {
		if readOnlyTools[c.Name] {
			continue
		}
		if c.Name != "shell" || e.guard == nil || e.guard.Policy == nil {
			return false
		}
		var a struct {
			Cmd string `json:"cmd"`
		}
		if json.Unmarshal([]byte(c.Arguments), &a) != nil || !e.guard.Policy.CheckCommand(a.Cmd).ReadOnly {
			return false
		}
	}
	return true
}

// commandSnapshot snapshots the workspace just before a destructive
// command runs (policy.Guard.Snapshot), records its id in the session log
// (session.CommandSnapshotPrefix, a marker the model never sees) and tells
// the user how to undo the command.
func (e *Engine) commandSnapshot(ctx context.Context, what string) error {
	id, err := takeSnapshot(ctx, e.opts.Home, e.opts.Dir, e.root)
	if err != nil {
		return err
	}
	if e.writer != nil {
		if _, err := e.log.Append(&session.Notice{Content: session.CommandSnapshotMarker(id, what)}); err != nil {
			return err
		}
	}
	e.opts.Emit(protocol.BackgroundNotice{Content: fmt.Sprintf("[snapshot] before %s: `openseek rewind --snapshot %s` puts the files back", what, id)})
	return nil
}

// setGate gives the next turn its gate (Agent.SetGate): the sandbox's
// first build, if New did not wait for it, then snap, if any, which
// reports whether it is done (see Agent.Gate). It returns the function to
// call once the turn returned, which passes the gate as the turn's end if
// the turn did not.
func (e *Engine) setGate(snap func(calls []chat.ToolCall, end bool) (bool, []session.Item)) func() {
	deferred := e.sandboxBuild != nil
	if snap == nil && !deferred {
		return func() {}
	}
	gate := func(calls []chat.ToolCall, end bool) (bool, []session.Item, error) {
		var err error
		if deferred {
			err = e.waitSandbox()
		}
		if snap != nil {
			done, record := snap(calls, end)
			return done, record, err
		}
		return true, nil, err
	}
	e.agent.SetGate(gate)
	return func() {
		e.agent.SetGate(nil)
		// The turn returned without recording its end (an error): what
		// the gate records at the end is appended here.
		if _, record, _ := gate(nil, true); len(record) > 0 {
			if _, err := e.log.AppendAll(record...); err != nil {
				e.opts.Emit(protocol.SessionError{Error: err.Error()})
			}
		}
	}
}

// turnPrompt is the sequence of the first user item after sequence
// before: the prompt of the turn that began there (0 when none).
func turnPrompt(s *session.Session, before int) int {
	first := 0
	for i := len(s.Events) - 1; i >= 0 && s.Events[i].Sequence > before; i-- {
		if _, ok := s.Events[i].Item.(*session.User); ok {
			first = s.Events[i].Sequence
		}
	}
	return first
}

// turnStart holds the cancel function of a snapshot in progress, so that
// Engine.Cancel reaches a turn that has not started its loop yet.
type turnStart struct {
	mu     sync.Mutex
	cancel context.CancelFunc
}

func (t *turnStart) set(cancel context.CancelFunc) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cancel = cancel
}

// Cancel cancels the snapshot in progress, if any.
func (t *turnStart) Cancel() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cancel != nil {
		t.cancel()
	}
}

// snapshotRepo is the side repository of a workspace whose sessions live
// under root, for the user whose home is home: snapshot.Dir, outside the
// workspace. A store an earlier version kept under root (<root>/snapshots,
// or <root>/snapshots/<hash> for a root outside the workspace) is moved
// into it on first use; a root inside the workspace is never snapshotted.
func snapshotRepo(home, dir, root string) (*snapshot.Repo, error) {
	if home == "" || !filepath.IsAbs(home) {
		var err error
		if home, err = os.UserHomeDir(); err != nil || !filepath.IsAbs(home) {
			return nil, errors.New("snapshots live in ~/.openseek/snapshots, but there is no home directory: set HOME, or OPENSEEK_SNAPSHOTS=off")
		}
	}
	o := snapshot.Options{Workspace: dir, Dir: snapshot.Dir(home, dir)}
	if rel, err := filepath.Rel(dir, root); err == nil && filepath.IsLocal(rel) {
		o.Exclude = []string{"/" + filepath.ToSlash(rel) + "/"}
		o.Legacy = filepath.Join(root, snapshot.DirName)
	} else {
		o.Legacy = filepath.Join(root, snapshot.DirName, filepath.Base(o.Dir))
	}
	return snapshot.Open(o)
}

func takeSnapshot(ctx context.Context, home, dir, root string) (string, error) {
	repo, err := snapshotRepo(home, dir, root)
	if err != nil {
		return "", err
	}
	return repo.Take(ctx)
}

// RewindOptions say which session to rewind and how far.
type RewindOptions struct {
	Dir         string // workspace root
	SessionRoot string // default ".openseek"; relative roots resolve under Dir
	Home        string // the user's home, which holds the snapshots (default $HOME)
	SessionID   string // "" = the workspace's most recent session
	// Turn is the turn (from 1, in log order) to rewind to the start of;
	// 0 means the last turn.
	Turn int
	// Conversation rewinds the conversation too: a marker appended to the
	// log hides the turn and everything after it from the model.
	Conversation bool
}

// Rewound is what Rewind did.
type Rewound struct {
	SessionID string            `json:"session"`
	Turn      session.Turn      `json:"-"`
	Turns     int               `json:"turns"`
	Files     snapshot.Restored `json:"files"`
	// HiddenFrom is the first sequence the conversation rewind hides; 0
	// when the conversation was not rewound.
	HiddenFrom int `json:"hidden_from,omitempty"`
}

// Rewind puts the workspace's files back as they were before a turn of a
// session (files changed since are restored, files created since removed,
// ignored files left alone) and, with Conversation, appends the marker
// that rewinds the conversation. The log is never rewritten. It holds the
// session's writer lease throughout, so a session in use is refused.
func Rewind(ctx context.Context, o RewindOptions) (Rewound, error) {
	dir, root := workspaceRoots(o.Dir, o.SessionRoot)
	store := session.NewStore(root)
	id, err := existingSession(store, o.SessionID)
	if err != nil {
		return Rewound{}, err
	}
	w, err := store.OpenWriter(id, "", "openseek rewind")
	if err != nil {
		return Rewound{}, fmt.Errorf("rewind session %s: %w", id, err)
	}
	defer w.Close()
	turns := w.Session().Turns()
	out := Rewound{SessionID: id, Turns: len(turns)}
	n := o.Turn
	switch {
	case len(turns) == 0:
		return out, fmt.Errorf("session %s has no turns to rewind", id)
	case n == 0:
		n = len(turns)
	case n < 0 || n > len(turns):
		return out, fmt.Errorf("session %s has no turn %d: its turns are 1 to %d; nothing was changed", id, n, len(turns))
	}
	t := turns[n-1]
	out.Turn = t
	target, later := session.SnapshotBefore(turns, n)
	if target == "" && !later {
		return out, fmt.Errorf("turn %d of session %s has no snapshot (it ran in plan mode, with OPENSEEK_SNAPSHOTS=off, or before snapshots were recorded); nothing was changed", n, id)
	}
	repo, err := snapshotRepo(o.Home, dir, root)
	if err != nil {
		return out, err
	}
	if target == "" {
		// This turn and every later one changed no files: they are as
		// the turn found them; the restore only records them (undo).
		if target, err = repo.Take(ctx); err != nil {
			return out, fmt.Errorf("rewind the files of session %s to before turn %d: %w", id, n, err)
		}
	}
	if out.Files, err = repo.Restore(ctx, target); err != nil {
		return out, fmt.Errorf("rewind the files of session %s to before turn %d: %w", id, n, err)
	}
	if o.Conversation {
		if _, err := w.Append(&session.Notice{Content: session.RewindMarker(t.Start)}); err != nil {
			return out, fmt.Errorf("the files were rewound, but the conversation was not: %w", err)
		}
		out.HiddenFrom = t.Start
	}
	return out, nil
}

// workspaceRoots resolves a workspace directory (symlinks too, as New
// does) and its session root.
func workspaceRoots(dir, sessionRoot string) (string, string) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	root := sessionRoot
	if root == "" {
		root = ".openseek"
	}
	if !filepath.IsAbs(root) {
		root = filepath.Join(dir, root)
	}
	return dir, root
}

// existingSession is id, or the store's most recent session for "", with
// an error a user can act on when there is none.
func existingSession(store *session.Store, id string) (string, error) {
	if id == "" {
		latest, err := store.Latest()
		if err != nil {
			return "", fmt.Errorf("no session in %s: %w", store.Root(), err)
		}
		return latest, nil
	}
	if err := session.ValidateID(id); err != nil {
		return "", err
	}
	if _, err := store.Load(id); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("session %s does not exist in %s; `openseek sessions list` shows the sessions", id, store.Root())
		}
		return "", err
	}
	return id, nil
}

// Turns lists the turns of a session (the most recent one for id "")
// with their snapshots, and returns the session's id.
func Turns(dir, sessionRoot, id string) ([]session.Turn, string, error) {
	_, root := workspaceRoots(dir, sessionRoot)
	store := session.NewStore(root)
	id, err := existingSession(store, id)
	if err != nil {
		return nil, "", err
	}
	s, err := store.Load(id)
	if err != nil {
		return nil, "", err
	}
	turns := s.Turns()
	if turns == nil {
		turns = []session.Turn{}
	}
	return turns, id, nil
}

// RestoreSnapshot puts the workspace's files back as they were in one
// snapshot, by id (Rewound.Files.Saved of a rewind undoes it). home holds
// the snapshots ("" = $HOME).
func RestoreSnapshot(ctx context.Context, home, dir, sessionRoot, id string) (snapshot.Restored, error) {
	dir, root := workspaceRoots(dir, sessionRoot)
	repo, err := snapshotRepo(home, dir, root)
	if err != nil {
		return snapshot.Restored{}, err
	}
	return repo.Restore(ctx, id)
}

// Changes is what a session changed in the workspace's files: the unified
// diff from the snapshot before its first snapshotted turn to a snapshot
// of the files now (taken for the purpose; ignored files are not
// compared). turn is the number of that first turn; 0 with an empty diff
// when no turn has a snapshot.
func Changes(ctx context.Context, home, dir, sessionRoot, id string) (diff string, turn int, err error) {
	turns, _, err := Turns(dir, sessionRoot, id)
	if err != nil {
		return "", 0, err
	}
	from := ""
	for _, t := range turns {
		if t.Snapshot != "" {
			from, turn = t.Snapshot, t.Number
			break
		}
	}
	if from == "" {
		return "", 0, nil
	}
	dir, root := workspaceRoots(dir, sessionRoot)
	repo, err := snapshotRepo(home, dir, root)
	if err != nil {
		return "", 0, err
	}
	now, err := repo.Take(ctx)
	if err != nil {
		return "", 0, err
	}
	diff, err = repo.Diff(ctx, from, now)
	return diff, turn, err
}
