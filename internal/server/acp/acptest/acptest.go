// Package acptest holds what tests of OpenSeek's ACP agent share on the
// client's side: the client methods an editor may refuse (terminals),
// and readers of the session updates it got (their text, their kinds in
// order).
package acptest

import (
	"context"
	"errors"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// NoTerminals refuses the client's terminal methods; a test client
// embeds it (the agent runs commands in its own sandbox, never in a
// client's terminal).
type NoTerminals struct{}

var errNotOffered = errors.New("not offered")

func (NoTerminals) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errNotOffered
}

func (NoTerminals) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errNotOffered
}

func (NoTerminals) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errNotOffered
}

func (NoTerminals) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errNotOffered
}

func (NoTerminals) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errNotOffered
}

// Text joins the text of the updates pick selects.
func Text(us []sdk.SessionUpdate, pick func(sdk.SessionUpdate) *sdk.ContentBlock) string {
	var b strings.Builder
	for _, u := range us {
		if c := pick(u); c != nil && c.Text != nil {
			b.WriteString(c.Text.Text)
		}
	}
	return b.String()
}

// Agent picks the agent's message chunks.
func Agent(u sdk.SessionUpdate) *sdk.ContentBlock {
	if u.AgentMessageChunk != nil {
		return &u.AgentMessageChunk.Content
	}
	return nil
}

// Thought picks the agent's thought chunks.
func Thought(u sdk.SessionUpdate) *sdk.ContentBlock {
	if u.AgentThoughtChunk != nil {
		return &u.AgentThoughtChunk.Content
	}
	return nil
}

// User picks the user's message chunks (a replay's).
func User(u sdk.SessionUpdate) *sdk.ContentBlock {
	if u.UserMessageChunk != nil {
		return &u.UserMessageChunk.Content
	}
	return nil
}

// Kinds names the updates in order, tool calls with their kind and
// updates with their status; the chunks of one message count once and
// the context meter's usage updates (one per model response) are left
// out.
func Kinds(us []sdk.SessionUpdate) string {
	var out []string
	for _, u := range us {
		var k string
		switch {
		case u.UsageUpdate != nil:
			continue
		case u.UserMessageChunk != nil:
			k = "user"
		case u.AgentMessageChunk != nil:
			k = "message"
		case u.AgentThoughtChunk != nil:
			k = "thought"
		case u.ToolCall != nil:
			k = "tool_call:" + string(u.ToolCall.Kind)
		case u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil:
			k = "update:" + string(*u.ToolCallUpdate.Status)
		case u.ToolCallUpdate != nil:
			k = "update"
		case u.Plan != nil:
			k = "plan"
		default:
			k = "other"
		}
		if n := len(out); n > 0 && out[n-1] == k && (k == "message" || k == "thought" || k == "user") {
			continue
		}
		out = append(out, k)
	}
	return strings.Join(out, " ")
}
