package agent

import (
	"context"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

// Program runs a turn that no model drives: a program (a workflow) stands
// in for the model's one tool call. The turn records input as the user's
// prompt and call as the assistant's, then runs run with a tool.Caller
// whose calls take the same path as the model's (hooks, guard, approval,
// sandbox, redaction) and are recorded as children of call. run's result
// is call's result; the turn finishes with its text as the answer, or
// fails with it when it is an error. A cancelled ctx ends the turn as
// interrupted. Like Turn, it refuses to start while a turn runs.
func (a *Agent) Program(ctx context.Context, input protocol.Content, call chat.ToolCall, run func(context.Context, tool.Caller) tool.Result) (Outcome, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t, err := a.begin(ctx, cancel)
	if err != nil {
		return Outcome{}, err
	}
	defer func() {
		a.mu.Lock()
		a.active, a.cancel = false, nil
		a.mu.Unlock()
	}()
	if err := t.closeKilled(); err != nil {
		return Outcome{}, err
	}
	if err := t.append(&session.User{Content: input}); err != nil {
		return Outcome{}, err
	}
	if err := t.passGate([]chat.ToolCall{call}, false); err != nil {
		return t.end(session.Failed, err.Error())
	}
	if err := t.append(&session.Assistant{ToolCalls: []chat.ToolCall{call}}); err != nil {
		return Outcome{}, err
	}
	t.emit(protocol.ToolStarted{ToolCallID: call.ID, ToolName: call.Name, Arguments: call.Arguments})
	res := run(ctx, &inner{t: t, parent: call})
	if err := t.record(call, res); err != nil {
		return Outcome{}, err
	}
	switch {
	case ctx.Err() != nil:
		return t.end(session.Interrupted, "cancelled")
	case res.IsError:
		return t.end(session.Failed, res.Content.Text())
	}
	return t.end(session.Finished, res.Content.Text())
}

// closeKilled ends a program turn that a killed process left open: its
// unanswered calls get an error result and the turn an interrupted end,
// so that the log never holds a half-recorded run when the next begins.
func (t *turn) closeKilled() error {
	evs := t.a.cfg.Log.Session().Events
	answered := map[string]bool{}
	var open []chat.ToolCall
	for i := len(evs) - 1; i >= 0; i-- {
		switch it := evs[i].Item.(type) {
		case *session.Terminal:
			i = 0
		case *session.ToolResult:
			answered[it.ToolCallID] = true
		case *session.Assistant:
			for _, c := range it.ToolCalls {
				if !answered[c.ID] {
					open = append(open, c)
				}
			}
		}
	}
	if len(open) == 0 {
		return nil
	}
	for _, c := range open {
		if err := t.append(&session.ToolResult{ToolCallID: c.ID, ToolName: c.Name, IsError: true,
			Content: protocol.Text("error: the process running this call was killed before it ended")}); err != nil {
			return err
		}
	}
	return t.append(&session.Terminal{Kind: session.Interrupted, Message: "the process running the turn was killed"})
}
