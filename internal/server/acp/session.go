package acp

import (
	"context"
	"errors"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// acpSession is one session engine as this connection sees it: a
// follower that turns the engine's events into session/update
// notifications, and the permission questions in flight.
type acpSession struct {
	a         *agent
	id        string
	s         *engine.Session
	workspace string
	tr        *translator // used by the follower's goroutine alone

	stop context.CancelFunc // ends the updates and the permission requests
	ctx  context.Context

	// loading is held by a session/load while it swaps the follower, and
	// by catchUp while it picks the follower to wait for.
	loading sync.Mutex

	mu sync.Mutex
	f  *engine.Follower // nil before follow and while a load replays
	// last is where a load replays from: the session's opening, then
	// the end of each turn of this connection after which it was idle.
	last cut
	// asking cancels the permission questions in flight, by approval id.
	asking map[string]context.CancelFunc
	// warnings are the host's start-up warnings, not shown yet.
	warnings []string
	wg       sync.WaitGroup
}

func newSession(a *agent, es *engine.Session, workspace string) *acpSession {
	ctx, stop := context.WithCancel(context.Background())
	s := &acpSession{a: a, id: es.ID(), s: es, workspace: workspace, tr: newTranslator(workspace), ctx: ctx, stop: stop,
		asking: map[string]context.CancelFunc{}}
	// Nothing runs in a session just opened: its log and its hub's head
	// agree.
	s.last = s.cutNow()
	return s
}

// cut is the session's log as it was when the hub's head was seq: the
// log shows every event up to seq, and the hub every one after it.
type cut struct {
	log *session.Session
	seq int64
}

// cutNow reads the head before the log: an event published in between
// would show twice, never be lost. It is exact while no turn runs.
func (s *acpSession) cutNow() cut {
	seq := s.s.Hub().Head()
	return cut{log: s.s.Snapshot(), seq: seq}
}

// load shows the session to the client again, seamlessly: it stops the
// updates of the current view, replays the log as of the last cut (a
// moment no turn ran) and follows the hub from the cut's sequence on, so
// every event reaches the client exactly once and in order, also while a
// turn streams: the part of it the log does not hold yet comes from the
// hub. The hub has no event for a user message: the prompt of the turn
// running since the cut comes from the log, before the turn's events.
func (s *acpSession) load(ctx context.Context) error {
	s.loading.Lock()
	defer s.loading.Unlock()
	s.mu.Lock()
	old := s.f
	s.f = nil
	c := s.last
	s.mu.Unlock()
	if old != nil {
		_ = old.Stop() // the view it fed is replaced from here on
	}
	tr := newTranslator(s.workspace)
	ups := replay(tr, c.log)
	for _, ev := range s.s.Snapshot().Events {
		if u, ok := ev.Item.(*session.User); ok && ev.Sequence > c.log.LastSequence() {
			ups = append(ups, userMessage(u)...)
		}
	}
	for _, u := range ups {
		if err := s.a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: sdk.SessionId(s.id), Update: u}); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tr = tr // no follower runs: deliver is not using it
	s.f = s.s.Follow(c.seq, s.deliver)
	return nil
}

// follow starts sending the session's new events to the client.
func (s *acpSession) follow() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		s.f = s.s.Follow(s.s.Hub().Head(), s.deliver)
	}
}

// deliver sends one event's updates (and asks the client for an approval
// on a goroutine of its own, so the stream goes on meanwhile).
func (s *acpSession) deliver(e engine.Entry) error {
	switch ev := e.Event.(type) {
	case protocol.ApprovalRequested:
		s.mu.Lock()
		_, asked := s.asking[ev.ID]
		s.mu.Unlock()
		if asked {
			return nil // a replay of a question the editor has already
		}
		req := s.tr.permission(ev)
		ctx, cancel := context.WithCancel(s.ctx)
		s.mu.Lock()
		s.asking[ev.ID] = cancel
		s.mu.Unlock()
		s.wg.Add(1)
		go s.askPermission(ctx, ev.ID, req)
	case protocol.ApprovalResolved:
		// Answered here, by another client, or cancelled with the turn:
		// the question in the editor is withdrawn ($/cancel_request).
		s.mu.Lock()
		cancel := s.asking[ev.ID]
		delete(s.asking, ev.ID)
		s.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	}
	for _, u := range s.tr.translate(e.Event) {
		if err := s.a.conn.SessionUpdate(s.ctx, sdk.SessionNotification{SessionId: sdk.SessionId(s.id), Update: u}); err != nil {
			return err
		}
	}
	return nil
}

// Permission options offered for an approval.
const (
	optAllowOnce   = "allow_once"
	optAllowAlways = "allow_always"
	optReject      = "reject_once"
)

// askPermission asks the client and applies its answer. A cancelled
// question (the turn was cancelled, the client went away) rejects.
func (s *acpSession) askPermission(ctx context.Context, id string, req sdk.RequestPermissionRequest) {
	defer s.wg.Done()
	req.SessionId = sdk.SessionId(s.id)
	resp, err := s.a.conn.RequestPermission(ctx, req)
	if ctx.Err() != nil {
		return // resolved meanwhile
	}
	allow, remember := false, false
	if err == nil && resp.Outcome.Selected != nil {
		switch string(resp.Outcome.Selected.OptionId) {
		case optAllowOnce:
			allow = true
		case optAllowAlways:
			allow, remember = true, true
		}
	}
	// An approval already resolved (cancelled turn) is refused: nothing to do.
	_ = s.s.Apply(protocol.ApprovalCmd{ID: id, Allow: allow, Remember: remember})
}

// prompt runs one turn and answers once every update it caused was sent.
func (s *acpSession) prompt(ctx context.Context, content protocol.Content) (sdk.PromptResponse, error) {
	s.mu.Lock()
	warnings := s.warnings
	s.warnings = nil
	s.mu.Unlock()
	// Workspace warnings (rules ignored until trusted, MCP servers that
	// failed) came before the client could see the session: shown once.
	for _, w := range warnings {
		if s.a.warnOnce(w) {
			_ = s.a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: sdk.SessionId(s.id), Update: notice(w)})
		}
	}
	out, err := s.s.Prompt(ctx, content, nil)
	s.catchUp()
	if !s.s.Busy() {
		c := s.cutNow()
		s.mu.Lock()
		s.last = c
		s.mu.Unlock()
	}
	if err != nil {
		if ctx.Err() != nil {
			return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
		}
		return sdk.PromptResponse{}, internalError(err.Error())
	}
	if ctx.Err() != nil {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	reason, failure := StopReason(out.Kind)
	if failure {
		return sdk.PromptResponse{}, internalError("the turn failed: " + out.Answer)
	}
	return sdk.PromptResponse{StopReason: reason}, nil
}

// StopReason maps how a turn ended to ACP's stop reason; failed is true
// for a failed turn, which is answered with an error instead.
func StopReason(k session.TerminalKind) (reason sdk.StopReason, failed bool) {
	switch k {
	case session.Finished:
		return sdk.StopReasonEndTurn, false
	case session.Aborted, session.Interrupted:
		return sdk.StopReasonCancelled, false
	case session.MaxStepsExhausted:
		// The step ceiling bounds model requests per turn.
		return sdk.StopReasonMaxTurnRequests, false
	case session.ContextYield:
		// Still at the context ceiling after the host's continuations.
		return sdk.StopReasonMaxTokens, false
	case session.Failed:
		return "", true
	}
	return sdk.StopReasonEndTurn, false
}

// catchUp blocks until every event so far was sent (or sending stopped).
// A load meanwhile replaces the follower: the new one is waited for.
func (s *acpSession) catchUp() {
	for {
		s.loading.Lock()
		s.mu.Lock()
		f := s.f
		s.mu.Unlock()
		s.loading.Unlock()
		if f == nil || f.CatchUp(context.Background()) == nil || s.ctx.Err() != nil {
			return
		}
		s.mu.Lock()
		same := s.f == f
		s.mu.Unlock()
		if same {
			return // it ended for good (its client went away)
		}
	}
}

// close cancels the session's turn, closes its engine and stops sending.
// The session's log stays on disk for session/load.
func (s *acpSession) close() {
	s.stop() // nobody waits for the rest of the stream
	s.s.CancelAll()
	err := s.s.Close()
	s.mu.Lock()
	f := s.f
	s.mu.Unlock()
	if f != nil {
		_ = f.Stop()
	}
	s.wg.Wait()
	if err != nil && !errors.Is(err, context.Canceled) {
		s.a.opts.Log.Warn("closing session", "session", s.id, "error", err)
	}
}
