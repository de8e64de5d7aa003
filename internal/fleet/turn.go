package fleet

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/openseek/openseek/internal/agent"
	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/verify"
	"github.com/openseek/openseek/protocol"
)

// turnSpec is one attempt's turn: a host over a workspace, a session in
// it, one prompt.
type turnSpec struct {
	Engine  engine.Options // Dir is the workspace
	Session string         // resumed when its log is there; "" = a new id
	Holder  string
	// NoSession records nothing on disk (the judge).
	NoSession bool
	Prompt    string
	// Run, when set, drives the session's turn instead of a model turn on
	// Prompt (a workflow task's program).
	Run     func(ctx context.Context, host *engine.Host, sess *engine.Session) (agent.Outcome, error)
	MaxCost float64 // > 0: the turn is cancelled once its usage costs this much
	// OnOpen, when set, is called with the session's log file once it is
	// open; OnEntry with each of its events, in order.
	OnOpen  func(logPath string)
	OnEntry func(engine.Entry)
	// After, when set, is called once the turn has ended, before the host
	// closes, with how it ended and a check that runs a command in the
	// session's sandbox (a task's verify command).
	After func(ctx context.Context, res turnResult, check checkFunc)
}

// checkFunc runs command in dir and reports whether it passed and the
// tail of its output.
type checkFunc func(ctx context.Context, dir, command string) (bool, string)

// turnResult is how a turn ended.
type turnResult struct {
	Out  agent.Outcome
	Err  error   // the prompt's error
	Cost float64 // USD, priced from the usage events
	// CostUnknown: a response's price was unknown, so Cost is not the
	// whole (llm.Price.Of, the one rule every face follows).
	CostUnknown bool
	Over        bool // the cost budget stopped it
	Session     string
	LogPath     string
}

// runTurn runs ts's prompt to its end. The error is for a turn that could
// not start (configuration, model, session); how a started turn ended is
// in the result.
func runTurn(ctx context.Context, ts turnSpec) (turnResult, error) {
	host, err := engine.NewHost(ctx, ts.Engine)
	if err != nil {
		return turnResult{}, err
	}
	defer host.Close()
	sess, err := host.Open(ctx, engine.OpenOptions{ID: ts.Session, Holder: ts.Holder, NoSession: ts.NoSession})
	if err != nil {
		return turnResult{}, err
	}
	res := turnResult{Session: sess.ID()}
	if !ts.NoSession {
		res.LogPath = host.Store().Path(sess.ID())
	}
	if ts.OnOpen != nil && res.LogPath != "" {
		ts.OnOpen(res.LogPath)
	}
	// Price usage as it comes so the cost budget can stop the turn.
	var (
		mu        sync.Mutex
		cost      float64
		unknown   bool
		overspent bool
	)
	f := sess.Follow(sess.Hub().Head(), func(e engine.Entry) error {
		if ts.OnEntry != nil {
			ts.OnEntry(e)
		}
		if u, ok := spent(e.Event); ok {
			c, known := sess.Cost(u)
			mu.Lock()
			cost, unknown = cost+c, unknown || !known
			over := ts.MaxCost > 0 && cost >= ts.MaxCost && !overspent
			overspent = overspent || over
			mu.Unlock()
			if over {
				sess.CancelAll()
			}
		}
		return nil
	})
	if ts.Run != nil {
		res.Out, res.Err = ts.Run(ctx, host, sess)
	} else {
		res.Out, res.Err = sess.Prompt(ctx, protocol.Text(ts.Prompt), nil)
	}
	_ = sess.Close()
	_ = f.Wait() // the session's last events, then the stream's end
	mu.Lock()
	res.Cost, res.CostUnknown, res.Over = math.Round(cost*1e6)/1e6, unknown, overspent
	mu.Unlock()
	if ts.After != nil {
		ts.After(ctx, res, func(ctx context.Context, dir, command string) (bool, string) {
			sb, err := sess.Engine().Sandbox()
			if err != nil {
				return false, "the check did not run: " + err.Error()
			}
			r := verify.Run(ctx, dir, verify.NewCheck(command), 10*time.Minute, sb, nil, 2000)
			return r.OK, r.Output
		})
	}
	return res, nil
}

// spent is the usage an event of the session reports: a model response's,
// or a sub-agent's (an agent tool call, a workflow's agent), whose own
// responses are in its own session, priced as the engine's totals price
// it (all prompt tokens uncached).
func spent(e protocol.Event) (protocol.Usage, bool) {
	switch e := e.(type) {
	case protocol.UsageEvent:
		return e.Usage, true
	case protocol.SubrunFinished:
		if e.PromptTokens == 0 && e.CompletionTokens == 0 {
			return protocol.Usage{}, false
		}
		return e.Spent(), true
	}
	return protocol.Usage{}, false
}
