package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

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
	f    *engine.Follower
	emit func(protocol.Event)
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
	ls := &localSession{Session: s, emit: emit}
	ls.f = s.Follow(0, func(e engine.Entry) error { emit(e.Event); return nil })
	return ls, nil
}

// Prompt runs a turn and returns once every event it caused was delivered.
func (l *localSession) Prompt(ctx context.Context, content protocol.Content, submissionID *string) (engine.Outcome, error) {
	out, err := l.Session.Prompt(ctx, content, submissionID)
	_ = l.f.CatchUp(context.Background())
	return out, err
}

// close ends the session and delivers its last events.
func (l *localSession) close() {
	err := l.Session.Close()
	_ = l.f.Wait()
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
