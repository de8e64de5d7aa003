package runtime

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/openseek/openseek/internal/agent"
	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/hooks"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

// hookAdapter turns the user's hooks (package hooks) into the turn loop's
// Hooks. Hook errors and messages for the user are reported as
// background notices; they never stop the loop.
type hookAdapter struct {
	r          *hooks.Runner
	emit       func(protocol.Event)
	sessionID  string
	transcript string
	cwd        string
}

func (h *hookAdapter) input() hooks.Input {
	return hooks.Input{SessionID: h.sessionID, TranscriptPath: h.transcript, Cwd: h.cwd}
}

func (h *hookAdapter) run(ctx context.Context, ev hooks.Event, in hooks.Input) hooks.Outcome {
	if !h.r.Has(ev) {
		return hooks.Outcome{}
	}
	out := h.r.Run(ctx, ev, in)
	for _, e := range out.Errors {
		h.emit(protocol.BackgroundNotice{Content: "[hook] " + string(ev) + ": " + e})
	}
	for _, m := range out.Messages {
		h.emit(protocol.BackgroundNotice{Content: "[hook] " + m})
	}
	return out
}

func (h *hookAdapter) UserPromptSubmit(ctx context.Context, prompt string) (bool, string, string) {
	in := h.input()
	in.Prompt = prompt
	out := h.run(ctx, hooks.UserPromptSubmit, in)
	if out.Halt {
		return true, firstNonEmpty(out.HaltReason, out.Reason), ""
	}
	return out.Block, out.Reason, out.AdditionalContext
}

func (h *hookAdapter) PreToolUse(ctx context.Context, call chat.ToolCall) agent.PreToolDecision {
	in := h.input()
	in.ToolName, in.ToolInput = call.Name, json.RawMessage(call.Arguments)
	out := h.run(ctx, hooks.PreToolUse, in)
	if out.Halt {
		return agent.PreToolDecision{Block: true, Reason: firstNonEmpty(out.HaltReason, out.Reason)}
	}
	d := agent.PreToolDecision{Block: out.Block, Reason: out.Reason, Context: out.AdditionalContext}
	// updatedInput (Claude Code's PreToolUse output) rewrites the call.
	if len(out.UpdatedInput) > 0 && json.Valid(out.UpdatedInput) && out.UpdatedInput[0] == '{' {
		d.Arguments = string(out.UpdatedInput)
	}
	return d
}

func (h *hookAdapter) PostToolUse(ctx context.Context, call chat.ToolCall, res tool.Result) string {
	in := h.input()
	in.ToolName, in.ToolInput = call.Name, json.RawMessage(call.Arguments)
	resp, _ := json.Marshal(map[string]any{"content": res.Content.Text(), "is_error": res.IsError})
	in.ToolResponse = resp
	out := h.run(ctx, hooks.PostToolUse, in)
	return strings.TrimSpace(strings.Join([]string{out.Reason, out.AdditionalContext}, "\n"))
}

func (h *hookAdapter) Stop(ctx context.Context, active bool) (bool, string) {
	in := h.input()
	in.StopHookActive = active
	out := h.run(ctx, hooks.Stop, in)
	return out.Block && !out.Halt, out.Reason
}

func (h *hookAdapter) PreCompact(ctx context.Context, trigger string) {
	in := h.input()
	in.Trigger = trigger
	h.run(ctx, hooks.PreCompact, in)
}

func (h *hookAdapter) PostCompact(ctx context.Context, trigger, summary string) string {
	in := h.input()
	in.Trigger, in.Summary = trigger, summary
	return strings.TrimSpace(h.run(ctx, hooks.PostCompact, in).Summary)
}

// session runs SessionStart / SessionEnd hooks; SessionStart's context
// for the model is returned.
func (h *hookAdapter) session(ctx context.Context, ev hooks.Event, trigger string) string {
	in := h.input()
	in.Trigger = trigger
	return h.run(ctx, ev, in).AdditionalContext
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
