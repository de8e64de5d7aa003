package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/openseek/openseek/internal/agent"
	"github.com/openseek/openseek/internal/config"
	"github.com/openseek/openseek/internal/engine/hub"
	"github.com/openseek/openseek/internal/evidence"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/internal/telemetry"
	"github.com/openseek/openseek/protocol"
)

// Session is a session engine: one session's runtime as the host's
// clients see it. Its API is the protocol: Apply takes a protocol.Command
// from any client, Subscribe reads the event stream. Prompts and
// compactions run one at a time, in the order they arrived, on the
// session's own goroutine, so a client that goes away loses nothing: the
// turn goes on and its events wait in the hub for the client's return.
type Session struct {
	eng     *Engine
	hub     *hub.Hub
	res     *config.Resolved
	onClose func(*Session) // the host forgets the session

	ctx    context.Context // ends when the session closes
	cancel context.CancelFunc
	work   chan job
	done   chan struct{} // closed when the worker has stopped

	mu      sync.Mutex
	gen     int // jobs of an older generation are dropped, not run
	queued  int // jobs accepted and not yet finished
	idle    *sync.Cond
	closed  bool
	subrun  protocol.Usage // sub-agent usage of the running turn
	started time.Time
	// goneShown: the session_error for a deleted session file was shown.
	goneShown bool
}

// job is one queued unit of work; reply (may be nil) gets its outcome.
type job struct {
	run   func(ctx context.Context) (agent.Outcome, error)
	reply chan<- result
	gen   int // the session's generation when queued; CancelAll moves it on
}

type result struct {
	out agent.Outcome
	err error
}

// MaxQueued is how many prompts and compactions may wait behind the
// running one; more are refused with a command error.
const MaxQueued = 64

// A turn that reached the context ceiling was checkpointed; the session
// carries on from the summary this many times at most, with this prompt.
const (
	MaxContextYields = 20
	ContinuePrompt   = "Continue the task from the checkpoint summary."
)

// Open opens a session: its runtime (New) from the host's deps and so,
// its events published on stream after what stream holds already, its
// worker started. onClose (may be nil) is told when the session closes.
func Open(ctx context.Context, d *Deps, so SessionOptions, stream *hub.Hub, onClose func(*Session)) (*Session, error) {
	sctx, cancel := context.WithCancel(context.Background())
	s := &Session{hub: stream, res: so.Model, onClose: onClose, ctx: sctx, cancel: cancel,
		work: make(chan job, MaxQueued), done: make(chan struct{})}
	s.idle = sync.NewCond(&s.mu)
	so.Emit = s.emit
	eng, err := New(ctx, d, so)
	if err != nil {
		cancel()
		return nil, err
	}
	s.eng = eng
	go s.worker()
	return s, nil
}

// emit is the engine's event sink.
func (s *Session) emit(e protocol.Event) {
	if _, ok := e.(protocol.SessionError); ok && !s.firstGone() {
		return
	}
	s.observe(e)
	s.hub.Publish(e)
}

// firstGone reports whether a session_error may be shown: always, unless
// the session's file was deleted (session.ErrGone) and that was already
// said — then the turn, its snapshot and any notice all fail the same way,
// and one error says it all.
func (s *Session) firstGone() bool {
	if s.eng == nil || s.eng.writer == nil || s.eng.writer.Err() == nil {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	first := !s.goneShown
	s.goneShown = true
	return first
}

func (s *Session) worker() {
	defer close(s.done)
	for j := range s.work {
		var out agent.Outcome
		s.mu.Lock()
		stale := j.gen != s.gen
		s.mu.Unlock()
		err := s.ctx.Err() // closing: the queued work does not start
		if err == nil && stale {
			err = errors.New("cancelled before it started")
		}
		if err == nil {
			out, err = j.run(s.ctx)
		}
		// Idle first, then the reply (buffered): a caller that has its
		// outcome never finds the session still busy with it.
		s.mu.Lock()
		s.queued--
		s.idle.Broadcast()
		s.mu.Unlock()
		if j.reply != nil {
			j.reply <- result{out, err}
		}
	}
}

// enqueue hands work to the session's goroutine.
func (s *Session) enqueue(j job) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("the session is closed")
	}
	if s.queued > MaxQueued {
		return fmt.Errorf("%d prompts are already waiting; wait for them or cancel", MaxQueued)
	}
	s.queued++
	j.gen = s.gen
	s.work <- j
	return nil
}

// CancelAll cancels the running turn and drops the queued prompts and
// compactions (a signal, or a client leaving for good).
func (s *Session) CancelAll() {
	s.mu.Lock()
	s.gen++
	s.mu.Unlock()
	s.eng.Cancel()
}

// ID is the session id ("ephemeral" with NoSession).
func (s *Session) ID() string { return s.eng.SessionID() }

// Engine is the runtime under the session (for in-process frontends
// that need its read-only views, such as the session snapshot).
func (s *Session) Engine() *Engine { return s.eng }

// Model is the resolved model the session talks to.
func (s *Session) Model() *config.Resolved { return s.res }

// Hub is the session's event stream.
func (s *Session) Hub() *hub.Hub { return s.hub }

// Subscribe reads the session's events after sequence since (0 = the
// whole in-memory window). The caller closes the subscription.
func (s *Session) Subscribe(since int64) *hub.Subscription { return s.hub.Subscribe(since) }

// Follow hands the session's events after since to fn on a goroutine of
// its own (Hub.Follow): how a transport that pushes events follows one.
func (s *Session) Follow(since int64, fn func(hub.Entry) error) *hub.Follower {
	return s.hub.Follow(since, fn)
}

// Publish puts an event on the session's stream (a transport's own
// notices, such as a command error it answers for).
func (s *Session) Publish(e protocol.Event) int64 { return s.hub.Publish(e) }

// Busy reports whether a turn runs or waits.
func (s *Session) Busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queued > 0
}

// Cost prices a usage with the session model's prices; ok is false when
// they are unknown.
func (s *Session) Cost(u protocol.Usage) (float64, bool) { return s.res.Price.Of(u) }

// Snapshot is the session as recorded so far.
func (s *Session) Snapshot() *session.Session { return s.eng.Session() }

// ErrUnknownCommand is wrapped by Apply for commands a session does not take.
var ErrUnknownCommand = errors.New("unknown command")

// Apply carries out one protocol command. Prompts and compactions are
// queued and report through the event stream; the other commands act at
// once. An error means the command was refused (its text is what a
// command_error carries); nothing else changed.
func (s *Session) Apply(cmd protocol.Command) error {
	switch c := cmd.(type) {
	case protocol.PromptCmd:
		return s.enqueue(job{run: func(ctx context.Context) (agent.Outcome, error) {
			return s.turn(ctx, c.Content, c.SubmissionID)
		}})
	case protocol.SteerCmd:
		if !s.eng.Steer(c.Kind, c.Content, c.SubmissionID) {
			s.hub.Publish(protocol.SteerDropped{Content: c.Content, SubmissionID: c.SubmissionID})
		}
	case protocol.CancelCmd:
		s.eng.Cancel()
	case protocol.GoalCmd:
		var text *string
		if c.Action == "set" {
			text = &c.Text
		}
		return s.eng.SetGoal(text, c.Auto)
	case protocol.ShellCmd:
		return s.queueShell(c.Cmd)
	case protocol.CompactCmd:
		// Failures are reported by compaction_failed.
		return s.enqueue(job{run: func(ctx context.Context) (agent.Outcome, error) {
			_ = s.eng.Compact(ctx)
			return agent.Outcome{}, nil
		}})
	case protocol.ApprovalCmd:
		return s.eng.ResolveApproval(c.ID, c.Allow, c.Remember, c.Reason)
	case protocol.NetworkAllowCmd:
		return s.eng.AllowNetwork(c.Host)
	case protocol.JobsSnapshotCmd:
		s.hub.Publish(protocol.JobsSnapshot{RequestID: c.RequestID, Jobs: s.eng.Jobs()})
	case protocol.JobStopCmd:
		s.hub.Publish(protocol.JobStopResult{RequestID: c.RequestID, Generation: c.Generation, JobID: c.JobID,
			Outcome: s.eng.StopJob(c.Generation, c.JobID)})
	default:
		return fmt.Errorf("%w: %s", ErrUnknownCommand, cmd.CommandName())
	}
	return nil
}

// Prompt runs one turn (after the queued ones) and waits for how it ended.
// ctx ending cancels the turn.
func (s *Session) Prompt(ctx context.Context, content protocol.Content, submissionID *string) (agent.Outcome, error) {
	return s.queue(ctx, func(tctx context.Context) (agent.Outcome, error) {
		return s.turn(tctx, content, submissionID)
	})
}

// queue runs fn on the session's goroutine after the queued work and
// waits for it; ctx ending cancels it.
func (s *Session) queue(ctx context.Context, fn func(context.Context) (agent.Outcome, error)) (agent.Outcome, error) {
	reply := make(chan result, 1)
	if err := s.enqueue(job{reply: reply, run: func(sctx context.Context) (agent.Outcome, error) {
		tctx, cancel := context.WithCancel(sctx)
		defer cancel()
		stop := context.AfterFunc(ctx, cancel)
		defer stop()
		return fn(tctx)
	}}); err != nil {
		return agent.Outcome{}, err
	}
	select {
	case r := <-reply:
		return r.out, r.err
	case <-s.done:
		return agent.Outcome{}, errors.New("the session closed before the turn ran")
	}
}

// turn runs one prompt to its end: a turn that reached the context
// ceiling carries on from its checkpoint (every client behaves alike),
// and a turn_summary with the totals closes it.
func (s *Session) turn(ctx context.Context, content protocol.Content, submissionID *string) (agent.Outcome, error) {
	start := time.Now()
	s.mu.Lock()
	s.subrun = protocol.Usage{}
	s.mu.Unlock()
	var traced *telemetry.Turn
	if tel := s.eng.opts.Telemetry; tel != nil {
		ctx, traced = tel.StartTurn(ctx, s.ID(), s.eng.Model(), content)
	}
	out, err := s.eng.Prompt(ctx, content, submissionID)
	steps, usage := out.Steps, out.Usage
	for yields := 0; err == nil && ctx.Err() == nil && out.Kind == session.ContextYield && yields < MaxContextYields; yields++ {
		out, err = s.eng.Prompt(ctx, protocol.Text(ContinuePrompt), nil)
		steps, usage = steps+out.Steps, usage.Add(out.Usage)
	}
	if err != nil {
		if gone := (*session.GoneError)(nil); errors.As(err, &gone) {
			err = gone // what went and what to do, without the step that found it
		}
		s.emit(protocol.SessionError{Error: err.Error()})
		if traced != nil {
			traced.Fail(err)
		}
		return out, err
	}
	s.mu.Lock()
	usage = usage.Add(s.subrun)
	s.mu.Unlock()
	out.Steps, out.Usage = steps, usage
	sum := protocol.TurnSummary{Session: s.ID(), Outcome: string(out.Kind), DurationMs: time.Since(start).Milliseconds(),
		Steps: steps, Usage: usage}
	if c, ok := s.Cost(usage); ok {
		sum.CostUSD = &c
	}
	if traced != nil {
		traced.End(sum)
	}
	if out.Kind == session.Finished {
		// An answer that says the tests pass must have a passing run
		// after the last edit in the record; else every face warns.
		if f, ok := evidence.Check(out.Answer, s.eng.Session()); ok {
			s.hub.Publish(protocol.UnverifiedClaim{Session: s.ID(), Claim: f.Claim.Kind.String(), Quote: f.Claim.Quote, Message: f.Message})
		}
	}
	s.hub.Publish(sum)
	return out, nil
}

// observe watches the engine's events on their way to the hub: it sums
// the sub-agents' usage into the running turn's totals.
func (s *Session) observe(e protocol.Event) {
	if f, ok := e.(protocol.SubrunFinished); ok {
		s.mu.Lock()
		s.subrun = s.subrun.Add(f.Spent())
		s.mu.Unlock()
	}
}

// Drain waits until every queued prompt and compaction has finished.
func (s *Session) Drain() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.queued > 0 {
		s.idle.Wait()
	}
}

// Close cancels the running turn and the queued ones, stops the session's
// background jobs, releases its log and ends its event stream.
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.work)
	s.mu.Unlock()
	s.cancel()
	s.eng.Cancel()
	<-s.done
	if s.onClose != nil {
		s.onClose(s)
	}
	err := s.eng.Close()
	s.hub.Close()
	return err
}

// Compact has the model summarise the session and appends the summary
// (a compaction event), after the queued turns; ctx ending cancels it. A
// failure leaves the log unchanged and is also reported on the event
// stream (compaction_failed).
func (s *Session) Compact(ctx context.Context) error {
	_, err := s.queue(ctx, func(cctx context.Context) (agent.Outcome, error) {
		return agent.Outcome{}, s.eng.Compact(cctx)
	})
	return err
}
