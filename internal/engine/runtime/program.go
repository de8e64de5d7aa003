package runtime

import (
	"context"
	"time"

	"github.com/openseek/openseek/internal/agent"
	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

// Program runs a turn that a program drives instead of the model (see
// agent.Agent.Program): the workspace snapshot and the sandbox are
// readied first, as for a prompt, and the program's tool calls take the
// model's path.
func (e *Engine) Program(ctx context.Context, input protocol.Content, call chat.ToolCall, run func(context.Context, tool.Caller) tool.Result) (agent.Outcome, error) {
	e.agent.SetTools(e.tools.Without("goal"))
	tctx, finish := e.snapshotTurn(ctx)
	out, err := e.agent.Program(tctx, input, call, run)
	finish()
	if err == nil && e.sandboxErr != nil {
		err = e.sandboxErr
	}
	return out, err
}

// Program queues a program-driven turn (Engine.Program) like a prompt
// and waits for how it ended; a turn_summary closes it, with the
// sub-agents' usage summed in.
func (s *Session) Program(ctx context.Context, input protocol.Content, call chat.ToolCall, run func(context.Context, tool.Caller) tool.Result) (agent.Outcome, error) {
	return s.queue(ctx, func(tctx context.Context) (agent.Outcome, error) {
		start := time.Now()
		s.mu.Lock()
		s.subrun = protocol.Usage{}
		s.mu.Unlock()
		out, err := s.eng.Program(tctx, input, call, run)
		if err != nil {
			s.emit(protocol.SessionError{Error: err.Error()})
			return out, err
		}
		s.mu.Lock()
		out.Usage = out.Usage.Add(s.subrun)
		s.mu.Unlock()
		sum := protocol.TurnSummary{Session: s.ID(), Outcome: string(out.Kind), DurationMs: time.Since(start).Milliseconds(), Usage: out.Usage}
		if c, ok := s.Cost(out.Usage); ok {
			sum.CostUSD = &c
		}
		s.hub.Publish(sum)
		return out, nil
	})
}

// Announce publishes an event that a part standing on the host made for
// the session's running turn (a workflow's sub-runs), as if the engine
// had: a subrun_finished's usage counts in the turn's totals.
func (s *Session) Announce(e protocol.Event) { s.emit(e) }
