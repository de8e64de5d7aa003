package agent

import (
	"context"
	"strconv"
	"sync"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

// inner is the tool.Caller a tool gets for calls of its own (the script
// tool): each goes through turn.call — hooks, guard, approval, sandbox and
// redaction, exactly as the model's calls — and is recorded as a tool
// result whose Parent is the calling tool's call, with the synthetic id
// "<parent>.<n>". The model never sees these records (the projection
// keeps only results of the calls it made); it sees the caller's result.
type inner struct {
	t      *turn
	parent chat.ToolCall

	mu sync.Mutex
	n  int
}

// Tools implements tool.Caller.
func (in *inner) Tools() []string { return toolNames(in.t.tools) }

// Call implements tool.Caller. The inner call's context carries no
// Caller, so a tool called from a script cannot call tools in turn.
func (in *inner) Call(ctx context.Context, name, args string) tool.Result {
	in.mu.Lock()
	in.n++
	id := in.parent.ID + "." + strconv.Itoa(in.n)
	in.mu.Unlock()
	c := chat.ToolCall{ID: id, Name: name, Arguments: args}
	var res tool.Result
	if ctx.Err() != nil {
		res = tool.Result{Content: protocol.Text("error: not run: the call was cancelled"), IsError: true}
	} else {
		res = in.t.call(tool.WithCaller(ctx, nil), c, in.parent.ID)
	}
	if res.Control != tool.Respond && !res.IsError {
		// Only the model ends its turn (finish has no effect to undo).
		res = tool.Result{Content: protocol.Text("error: " + name + " ends the turn, which a script cannot do; call it yourself after the script"), IsError: true}
	}
	item := &session.ToolResult{
		ToolCallID: id,
		ToolName:   name,
		Content:    res.Content,
		IsError:    res.IsError,
		Data:       res.Data,
		Parent:     in.parent.ID,
		Arguments:  args,
	}
	var brief *string
	if res.Brief != "" {
		b := res.Brief
		brief, item.Brief = &b, &b
	}
	if err := in.t.append(item); err != nil {
		return tool.Result{Content: protocol.Text("error: recording the call failed: " + err.Error()), IsError: true}
	}
	in.t.emit(protocol.ToolResult{ToolCallID: id, ToolName: name, IsError: res.IsError, Content: res.Content.Text(), Brief: brief, Diff: diffOf(res.Data)})
	if len(res.Notices) > 0 {
		in.t.innerMu.Lock()
		in.t.innerNotices = append(in.t.innerNotices, res.Notices...)
		in.t.innerMu.Unlock()
	}
	if name == "goal" && !res.IsError {
		in.t.goalAnswered = true // the calling tool is never concurrent: its batch runs alone
	}
	return res
}
