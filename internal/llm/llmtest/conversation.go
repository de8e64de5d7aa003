package llmtest

import (
	"encoding/json"
	"fmt"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/protocol"
)

// Conversation is a long, varied conversation of about n messages for
// the adapters' encoding tests: a system prompt, prompts and steering
// (text, images), assistant messages with and without reasoning, signed
// reasoning, opaque reasoning items (OpenRouter's and the Responses
// API's), parallel tool calls, results (text, images, errors), runtime
// notices, final answers, and text that JSON encoders treat specially
// (<, >, &, U+2028, invalid UTF-8, quotes, control characters).
func Conversation(n int) []chat.Message {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	msgs := []chat.Message{
		{Role: chat.System, Content: protocol.Text("You are a coding agent. Use <tools> & be terse.\u2028Line two.")},
		{Role: chat.User, Content: protocol.Text("fix the failing test in a&b/<pkg>")},
	}
	openRouter := json.RawMessage(`[{"type":"reasoning.text","text":"thinking","signature":"sig==","format":"anthropic-claude-v1","index":0}]`)
	responses := json.RawMessage(`[{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAAB=="}]`)
	for i := 0; len(msgs) < n; i++ {
		r := fmt.Sprintf("step %d: I should look at <file_%d> & its \"test\".", i, i)
		id := fmt.Sprintf("call_%d", i)
		switch i % 7 {
		case 0: // one call with plain reasoning
			msgs = append(msgs,
				chat.Message{Role: chat.Assistant, Reasoning: &r, ToolCalls: []chat.ToolCall{{ID: id, Name: "read", Arguments: fmt.Sprintf(`{"path":"pkg/file_%d.go"}`, i)}}},
				chat.Message{Role: chat.Tool, ToolCallID: id, Content: protocol.Text(fmt.Sprintf("package pkg\n\nfunc F%d() string { return \"<&>\" }\n", i))})
		case 1: // parallel calls, signed reasoning, text beside the calls
			msgs = append(msgs,
				chat.Message{Role: chat.Assistant, Content: protocol.Text("Reading both."), Reasoning: &r, ReasoningSignature: "c2lnbmF0dXJl",
					ToolCalls: []chat.ToolCall{{ID: id + "a", Name: "read", Arguments: `{"path":"a.go"}`}, {ID: id + "b", Name: "shell", Arguments: `{ "command" : "go test ./..." }`}}},
				chat.Message{Role: chat.Tool, ToolCallID: id + "a", Content: protocol.Text("a")},
				chat.Message{Role: chat.Tool, ToolCallID: id + "b", Content: protocol.Text("error: exit status 1\n--- FAIL: TestX\u2028\x01")})
		case 2: // OpenRouter reasoning items, a result with an image
			msgs = append(msgs,
				chat.Message{Role: chat.Assistant, Reasoning: &r, ReasoningItems: openRouter, ToolCalls: []chat.ToolCall{{ID: id, Name: "screenshot", Arguments: ""}}},
				chat.Message{Role: chat.Tool, ToolCallID: id, Content: protocol.Content{{Type: "text", Text: "the page:"}, {Type: "image", MediaType: "image/png", Data: png}}})
		case 3: // Responses reasoning items, no reasoning text, a runtime notice
			msgs = append(msgs,
				chat.Message{Role: chat.Assistant, ReasoningItems: responses, ToolCalls: []chat.ToolCall{{ID: id, Name: "plan", Arguments: `{"steps":[]}`}}},
				chat.Message{Role: chat.Tool, ToolCallID: id, Content: protocol.Text("plan updated")},
				chat.Message{Role: chat.User, Content: protocol.Text("[plan] Your plan has 2 open step(s)")})
		case 4: // a final answer, then the next prompt with an image
			msgs = append(msgs,
				chat.Message{Role: chat.Assistant, Content: protocol.Text(fmt.Sprintf("Done with part %d.", i))},
				chat.Message{Role: chat.User, Content: protocol.Content{{Type: "text", Text: "and this one?"}, {Type: "image", MediaType: "image/png", Data: png}}})
		case 5: // invalid UTF-8 and an empty reasoning
			empty := ""
			msgs = append(msgs,
				chat.Message{Role: chat.Assistant, Reasoning: &empty, ToolCalls: []chat.ToolCall{{ID: id, Name: "shell", Arguments: `{"command":"cat bin"}`}}},
				chat.Message{Role: chat.Tool, ToolCallID: id, Content: protocol.Text("bytes: \xff\xfe end")})
		case 6: // steering between results, a status terminal
			msgs = append(msgs,
				chat.Message{Role: chat.Assistant, Reasoning: &r, ToolCalls: []chat.ToolCall{{ID: id, Name: "read", Arguments: `{"path":"x"}`}}},
				chat.Message{Role: chat.Tool, ToolCallID: id, Content: protocol.Text("x")},
				chat.Message{Role: chat.User, Content: protocol.Text("also check the docs")},
				chat.Message{Role: chat.Assistant, Content: protocol.Text("[agent interrupted]\ncancelled")},
				chat.Message{Role: chat.User, Content: protocol.Text("go on")})
		}
	}
	return msgs[:n]
}
