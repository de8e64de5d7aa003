package main

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/agent"
	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/protocol"
)

// newHost builds the workspace host from the global flags. It needs no
// key: the model is resolved by ResolveModel or the first Open.
func (c *cli) newHost(cmd *cobra.Command, sysFile, addendum string) (*engine.Host, error) {
	opts, err := c.engineOptions(cmd, sysFile, addendum)
	if err != nil {
		return nil, err
	}
	return engine.NewHost(cmd.Context(), opts)
}

// localSession is a session engine driven in process with one reader of
// its events (run): the events go to emit, in order, on their own
// goroutine, so a slow terminal never stalls the turn.
type localSession struct {
	*engine.Session
	sub    *engine.Subscription
	stop   context.CancelFunc
	pumped chan struct{}
	emit   func(protocol.Event)

	mu   sync.Mutex
	cond *sync.Cond
	seen int64 // the newest sequence delivered
}

// openSession creates the workspace directory if needed (reporting
// workspace_created), opens a session on the host and follows its events
// into the sink for format.
func (c *cli) openSession(ctx context.Context, host *engine.Host, oo engine.OpenOptions, format string) (*localSession, error) {
	if _, err := host.ResolveModel(ctx); err != nil && oo.Model == "" {
		return nil, err
	}
	emit, err := c.sink(format, nil)
	if err != nil {
		return nil, err
	}
	_, created, err := prepareDir(c.g.dir)
	if err != nil {
		return nil, err
	}
	c.warnAPIKey()
	if created {
		emit(protocol.WorkspaceCreated{Dir: host.Workspace()})
	}
	s, err := host.Open(ctx, oo)
	if err != nil {
		return nil, err
	}
	// The live line prices usage with the session's model.
	emit, _ = c.sink(format, s.Cost)
	pctx, stop := context.WithCancel(context.Background())
	ls := &localSession{Session: s, sub: s.Subscribe(0), stop: stop, pumped: make(chan struct{}), emit: emit}
	ls.cond = sync.NewCond(&ls.mu)
	go func() {
		defer close(ls.pumped)
		_ = ls.sub.Follow(pctx, ls.deliver)
		ls.mu.Lock()
		ls.seen = 1<<62 - 1 // nothing more will come: release waiters
		ls.cond.Broadcast()
		ls.mu.Unlock()
	}()
	return ls, nil
}

func (l *localSession) deliver(e engine.Entry) error {
	l.emit(e.Event)
	if e.Seq > 0 && !e.Replay {
		l.mu.Lock()
		l.seen = e.Seq
		l.cond.Broadcast()
		l.mu.Unlock()
	}
	return nil
}

// Prompt runs a turn and returns once every event it caused was delivered.
func (l *localSession) Prompt(ctx context.Context, content protocol.Content, submissionID *string) (agent.Outcome, error) {
	out, err := l.Session.Prompt(ctx, content, submissionID)
	l.wait(l.Hub().Head())
	return out, err
}

// wait blocks until the event with sequence seq was delivered.
func (l *localSession) wait(seq int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.seen < seq {
		l.cond.Wait()
	}
}

// close ends the session and delivers its last events.
func (l *localSession) close() {
	err := l.Session.Close()
	<-l.pumped
	l.stop()
	l.sub.Close()
	if err != nil && !errors.Is(err, context.Canceled) {
		l.emit(protocol.SessionError{Error: err.Error()})
	}
}

// warnAPIKey says, once the command is about to run, that a key given on
// the command line is visible to the user's other processes.
func (c *cli) warnAPIKey() {
	if c.g.apiKey != "" {
		fmt.Fprintln(c.stderr, apiKeyWarning)
	}
}
