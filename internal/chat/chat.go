// Package chat is the provider-neutral vocabulary of a model conversation:
// messages with roles, tool calls and reasoning. The session projection
// produces it; model providers consume it. It holds no behaviour.
package chat

import "github.com/openseek/openseek/protocol"

// Role is who authored a message.
type Role string

const (
	System    Role = "system"
	User      Role = "user"
	Assistant Role = "assistant"
	Tool      Role = "tool"
)

// ToolCall is one function call requested by the model. Arguments is the
// raw JSON string exactly as the model produced it.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Message is one chat message.
//
//   - System, User: Content.
//   - Assistant: Content (one text part, or none), ToolCalls, Reasoning
//     (nil when the provider returned none; sent back on tool-call turns).
//   - Tool: ToolCallID, Content (the tool result).
type Message struct {
	Role       Role
	Content    protocol.Content
	ToolCalls  []ToolCall
	Reasoning  *string
	ToolCallID string
}

// Text is the message's text view (see protocol.Content.Text).
func (m Message) Text() string { return m.Content.Text() }
