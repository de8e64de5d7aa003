package agent

import (
	"context"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

// UserCall runs a tool call the user made between turns (`!cmd` in the
// terminal UI). It takes the model's path — hooks, guard, approval,
// sandbox, redaction — and is reported as tool_started/tool_result, but
// it is no call of the model's: the log records note(result) as a runtime
// notice, which the model reads as a user message at the start of its
// next request. Like Turn, it refuses to start while a turn runs; steers
// sent meanwhile are reported as dropped. An error means the notice
// could not be recorded.
func (a *Agent) UserCall(ctx context.Context, call chat.ToolCall, note func(tool.Result) string) (tool.Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t, err := a.begin(ctx, cancel)
	if err != nil {
		return tool.Result{}, err
	}
	defer a.settle()
	var res tool.Result
	if err := t.passGate([]chat.ToolCall{call}, false); err != nil {
		res = tool.Errorf("error: not run: %v", err)
	} else {
		res = t.call(ctx, call, "")
	}
	var brief *string
	if res.Brief != "" {
		brief = &res.Brief
	}
	t.emit(protocol.ToolResult{ToolCallID: call.ID, ToolName: call.Name, IsError: res.IsError, Content: res.Content.Text(), Brief: brief, Diff: diffOf(res.Data)})
	return res, t.append(&session.Notice{Content: note(res)})
}
