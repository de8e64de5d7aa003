// Package chat is the provider-neutral vocabulary of a model conversation:
// messages with roles, tool calls and reasoning. The session projection
// produces it; model providers consume it. It holds no behaviour.
package chat

import (
	"encoding/json"

	"github.com/openseek/openseek/protocol"
)

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
//
// ReasoningItems is opaque provider state for an assistant message: the
// OpenAI Responses API's reasoning items (encrypted_content included) or
// OpenRouter's reasoning_details (signatures included) — a JSON array each
// adapter recognises as its own and sends back verbatim, so the model keeps
// its chain of thought across tool calls. nil when the provider returned none.
type Message struct {
	Role           Role
	Content        protocol.Content
	ToolCalls      []ToolCall
	Reasoning      *string
	ReasoningItems json.RawMessage
	ToolCallID     string
	// ReasoningSignature is the provider's signature of Reasoning
	// (Anthropic's thinking signature, llm.Response.ReasoningSignature),
	// sent back unchanged with it; "" when there is none.
	ReasoningSignature string
}

// Text is the message's text view (see protocol.Content.Text).
func (m Message) Text() string { return m.Content.Text() }
